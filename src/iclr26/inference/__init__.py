"""iclr26.inference: papers of the inference domain."""
