"""Bad input to the delayed Lipschitz bandit: horizon, delta, delays, the mean reward function, dimensions."""

import numpy as np

from iclr26.decision.delayed_lipschitz_bandit import (
    DLPP,
    DelayedZooming,
    DelayQueue,
    LipschitzEnv,
    NoDelay,
    UniformDelay,
    make_env,
    run,
)

CASES = [
    (lambda: run(make_env("trig1d"), DLPP(1, 100), NoDelay(), 0, 0), ValueError, ["T must", ">= 1"]),
    (lambda: DelayedZooming(1, 100, delta=1.5), ValueError, ["delta", "(0, 1)"]),
    (lambda: UniformDelay(-3), ValueError, ["max", "non-negative integer"]),
    (lambda: UniformDelay(2.5), ValueError, ["max", "non-negative integer"]),
    (lambda: DelayQueue().push(1, 1.5, 0, 0.5), ValueError, ["delay", "non-negative integer"]),
    (lambda: LipschitzEnv(lambda x: 1.5 + 0 * x[:, 0], 1), ValueError, ["mu", "[0, 1]"]),
    (lambda: LipschitzEnv(lambda x: 0.5 + 0.4 * np.sin(10 * x[:, 0]), 1), ValueError, ["mu", "Lipschitz"]),
    (lambda: run(make_env("trig1d"), DLPP(2, 100), NoDelay(), 10, 0), ValueError, ["dim"]),
]
