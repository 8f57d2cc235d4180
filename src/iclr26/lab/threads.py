"""Moved to :mod:`iclr26.harness.threads` (the harness applies each experiment's thread limit to every seed);
kept here so that trainers and user code importing it from the lab keep working."""

from iclr26.harness.threads import limited_threads

__all__ = ["limited_threads"]
