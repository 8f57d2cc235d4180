"""Bad input to the delayed Lipschitz bandit: horizon, delta, delays, the mean reward function, dimensions."""

import numpy as np

from iclr26.decision.delayed_lipschitz_bandit import (
    DLPP,
    CensoredDelay,
    DelayedZooming,
    DelayQueue,
    GeometricDelay,
    GridDelayedUCB1,
    LipschitzEnv,
    NoDelay,
    UniformDelay,
    Zooming,
    make_env,
    run,
    trig1d,
)

NAN = float("nan")

CASES = [
    (lambda: run(make_env("trig1d"), DLPP(1, 100), NoDelay(), 0, 0), ValueError, ["T must", ">= 1"]),
    (lambda: DelayedZooming(1, 100, delta=1.5), ValueError, ["delta", "(0, 1)"]),
    (lambda: UniformDelay(-3), ValueError, ["max", "non-negative integer"]),
    (lambda: UniformDelay(2.5), ValueError, ["max", "non-negative integer"]),
    (lambda: DelayQueue().push(1, 1.5, 0, 0.5), ValueError, ["delay", "non-negative integer"]),
    (lambda: LipschitzEnv(lambda x: 1.5 + 0 * x[:, 0], 1), ValueError, ["mu", "[0, 1]"]),
    (lambda: LipschitzEnv(lambda x: 0.5 + 0.4 * np.sin(10 * x[:, 0]), 1), ValueError, ["mu", "Lipschitz"]),
    (lambda: run(make_env("trig1d"), DLPP(2, 100), NoDelay(), 10, 0), ValueError, ["dim"]),
    (lambda: DelayedZooming(1, 100, conf_scale=True), ValueError, ["conf_scale", "> 0", "True"]),
    (lambda: DelayedZooming(1, 100, delta=NAN), ValueError, ["delta", "(0, 1)", "nan"]),
    (lambda: Zooming(1, 100, grid_res=2.5), ValueError, ["grid_res", "int >= 2", "2.5"]),
    (lambda: DLPP(1, 100, elimination_factor=float("inf")), ValueError, ["elimination_factor", "finite"]),
    (lambda: DLPP(1, 100, max_phases=True), ValueError, ["max_phases", "True"]),
    (lambda: DLPP(1, 100, seed=-1), ValueError, ["seed", ">= 0", "-1"]),
    (lambda: GeometricDelay(True), ValueError, ["mean", "True"]),
    (lambda: CensoredDelay(True), ValueError, ["p (the probability", "(0, 1]", "True"]),
    (lambda: UniformDelay(4).quantile("a"), ValueError, ["p must", "(0, 1]"]),
    (lambda: UniformDelay(4).sample(np.random.default_rng(0), -1), ValueError, ["size", ">= 0", "-1"]),
    (lambda: UniformDelay(4).sample(None, 3), TypeError, ["rng", "Generator"]),
    (lambda: DelayQueue().push(1, True, 0, 0.5), ValueError, ["delay", "True"]),
    (lambda: DelayQueue().push(1, 2, 0, NAN), ValueError, ["reward", "finite", "nan"]),
    (lambda: DelayQueue().pop_due("a"), ValueError, ["t must", "int"]),
    (lambda: LipschitzEnv(trig1d, 1, noise_sd=True), ValueError, ["noise_sd", "True"]),
    (lambda: LipschitzEnv(trig1d, 1, seed=1.5), ValueError, ["seed", "1.5"]),
    (lambda: LipschitzEnv(trig1d, 1, mu_star=2.0), ValueError, ["mu_star", "[0, 1]", "2.0"]),
    (lambda: LipschitzEnv(lambda x: np.full(len(x), NAN), 1), ValueError, ["mu", "NaN"]),
    (lambda: make_env("trig1d").mean(np.array([[5.0]])), ValueError, ["points", "[0, 1]"]),
    (lambda: make_env("trig1d").noise(-1), ValueError, ["T", ">= 0"]),
    (lambda: run(None, DLPP(1, 100), NoDelay(), 10, 0), TypeError, ["env", "LipschitzEnv", "NoneType"]),
    (lambda: run(make_env("trig1d"), None, NoDelay(), 10, 0), TypeError, ["algo", "NoneType"]),
    (lambda: run(make_env("trig1d"), DLPP(1, 100), NoDelay(), 10, -1), ValueError, ["seed", ">= 0"]),
    (lambda: DelayedZooming(1, 100).select(0), ValueError, ["t must", "<= 100", "0"]),
    (lambda: DelayedZooming(1, 100).receive(1, 999, 1, 0.5), ValueError, ["arm_id", "999"]),
    (lambda: DLPP(1, 100).receive(1, 0, 1, NAN), ValueError, ["y must", "finite"]),
    (lambda: GridDelayedUCB1(1, 100).receive(1, -1, 1, 0.5), ValueError, ["arm_id", "-1"]),
]
