"""iclr26.decision: papers of the decision domain."""
