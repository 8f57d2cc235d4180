"""iclr26.agents: papers of the agents domain."""
