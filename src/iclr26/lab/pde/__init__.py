"""Differentiable PDE solvers shared by the science papers (wave propagation, incompressible flow)."""
