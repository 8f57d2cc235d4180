"""iclr26.architectures: papers of the architectures domain."""
