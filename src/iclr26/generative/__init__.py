"""iclr26.generative: papers of the generative domain."""
