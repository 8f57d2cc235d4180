"""iclr26.mechanisms: papers of the mechanisms domain."""
