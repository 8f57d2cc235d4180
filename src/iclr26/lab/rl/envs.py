"""Gymnasium environments for lockstep seeds."""

from __future__ import annotations

from collections.abc import Callable

import gymnasium as gym

from iclr26.checks import check_int

__all__ = ["make_vector_env"]


def make_vector_env(
    env: str | Callable[[], gym.Env], n: int, seed: int
) -> tuple[gym.vector.SyncVectorEnv, object]:
    """``n`` copies of ``env`` (an id such as ``"CartPole-v1"`` or a factory) in a synchronous vector env.

    Copy ``i`` is reset with seed ``seed + i``; returns ``(vector_env, first_observations)``. Copies auto-reset
    in the same step (gymnasium's ``SAME_STEP`` mode): when a copy ends, ``step`` returns its reset observation
    and the true last observation is in ``info["final_obs"][i]`` — store that one as ``next_obs`` in a replay
    buffer.
    """
    check_int("n", n, low=1)
    factory = (lambda: gym.make(env)) if isinstance(env, str) else env
    venv = gym.vector.SyncVectorEnv(
        [factory for _ in range(n)], autoreset_mode=gym.vector.AutoresetMode.SAME_STEP
    )
    obs, _ = venv.reset(seed=[seed + i for i in range(n)])
    return venv, obs
