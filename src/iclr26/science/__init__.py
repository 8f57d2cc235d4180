"""iclr26.science: papers of the science domain."""
