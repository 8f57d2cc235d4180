"""iclr26.optim: papers of the optim domain."""
