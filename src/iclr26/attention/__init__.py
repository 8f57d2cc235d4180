"""iclr26.attention: papers of the attention domain."""
