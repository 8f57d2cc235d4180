"""FACT / NFA-RFM: our RFM against the official RFM grokking code on the same inputs (not a test).

Loads ``models/gaussian_kernel.py`` and ``models/laplace_kernel.py`` from a checkout of the official code of
Mallinar et al., "Emergence in non-neural models: grokking modular arithmetic via average gradient outer product"
(https://github.com/nmallinar/rfm-grokking; needs torch), builds one modular-addition split, and runs both
implementations side by side with the official E2 setting (ridge 0, centred gradients, no rescale of M, AGOP^1/2)
for the Gaussian (L = 2.5, the official default) and the Laplace kernel. Two comparisons per kernel:

* one step: at every iterate M_t of our run, both codes get the same M_t; compare the kernel matrix, the ridge
  solution alpha and the next M (relative max-abs differences);
* trajectories: each code runs its own loop from M = I; compare M_t and the test accuracy per iteration.

    python benchmarks/fact_nfa_official_rfm.py /path/to/rfm-grokking [--p 31] [--iters 20] [--seed 0]
"""

import argparse
import importlib
import sys

import numpy as np
import torch

from iclr26.optim.fact_nfa.experiment import modular_addition
from iclr26.optim.fact_nfa.kernel_features import (
    kernel_fact_and_agop,
    kernel_matrix,
    rfm_iterates,
    update_features,
)

BANDWIDTH = {"gaussian": 2.5, "laplace": 2.5}


def rel(a: np.ndarray, b: np.ndarray) -> float:
    """max |a - b| / max |b|."""
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-300))


def official_modules(checkout: str):
    sys.path.insert(0, checkout)
    return importlib.import_module("models.gaussian_kernel"), importlib.import_module("models.laplace_kernel")


def official_step(mods, kernel, Xtr, Ytr, M, L, ridge):
    """The official solve and update (train_kernel.solve / update) for one M: (K, alpha, M_next)."""
    gk, lk = mods
    X, Y, Mt = (torch.from_numpy(a) for a in (Xtr, Ytr, M))
    if kernel == "gaussian":
        K = gk.gaussian_M(X, X, L, Mt)
    else:
        K = lk.laplacian_M(X, X, L, Mt)
    alpha = np.linalg.solve(K.numpy() + ridge * np.eye(len(K)), Y.numpy())  # train_kernel.solve
    sol = torch.from_numpy(alpha)
    if kernel == "gaussian":
        new, _ = gk.gaussian_M_update(X, X, L, Mt, sol, K=K, centering=True, agop_power=0.5)
    else:
        new = lk.laplacian_M_update(X, X, L, Mt, sol, K=K, centering=True)
    return K.numpy(), alpha, np.asarray(new)


def accuracy(kernel, Xte, Yte, Xtr, M, alpha, L):
    return float(np.mean((kernel_matrix(Xte, Xtr, M, L, kernel) @ alpha).argmax(1) == Yte.argmax(1)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkout", help="a checkout of nmallinar/rfm-grokking (the folder holding models/)")
    ap.add_argument("--p", type=int, default=31)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    mods = official_modules(args.checkout)
    Xtr, Ytr, Xte, Yte = modular_addition(args.p, 0.5, np.random.default_rng(args.seed))
    ridge = 0.0
    print(f"p = {args.p}, {len(Xtr)} training pairs, {args.iters} iterations, ridge 0, centred, no rescale")
    for kernel, L in BANDWIDTH.items():
        ours = list(
            rfm_iterates(
                Xtr, Ytr, args.iters, L, ridge, "nfa", 0.5, kernel=kernel, center_grads=True, normalize=False
            )
        )
        step = {"K": 0.0, "alpha": 0.0, "M_next": 0.0}
        for M, alpha in ours[:-1]:
            K_off, alpha_off, new_off = official_step(mods, kernel, Xtr, Ytr, M, L, ridge)
            F, agop = kernel_fact_and_agop(Xtr, alpha, M, L, kernel=kernel, center_grads=True)
            new = update_features(F, agop, M, "nfa", 0.5, normalize=False)
            step["K"] = max(step["K"], rel(kernel_matrix(Xtr, Xtr, M, L, kernel), K_off))
            step["alpha"] = max(step["alpha"], rel(alpha, alpha_off))
            step["M_next"] = max(step["M_next"], rel(new, new_off))
        M_off, traj_M, acc_diff, acc_ours, acc_off = np.eye(Xtr.shape[1]), 0.0, 0.0, [], []
        for M, alpha in ours:
            _, alpha_off, new_off = official_step(mods, kernel, Xtr, Ytr, M_off, L, ridge)
            traj_M = max(traj_M, rel(M, M_off))
            acc_ours.append(accuracy(kernel, Xte, Yte, Xtr, M, alpha, L))
            acc_off.append(accuracy(kernel, Xte, Yte, Xtr, M_off, alpha_off, L))
            acc_diff = max(acc_diff, abs(acc_ours[-1] - acc_off[-1]))
            M_off = new_off
        print(
            f"{kernel} (L = {L:g}): one step, max relative difference: K {step['K']:.2e}, alpha "
            f"{step['alpha']:.2e}, next M {step['M_next']:.2e}; trajectory: M_t {traj_M:.2e}, test accuracy "
            f"{acc_diff:.4f} (ours final {acc_ours[-1]:.4f}, official {acc_off[-1]:.4f}, best "
            f"{max(acc_ours):.4f} / {max(acc_off):.4f})"
        )


if __name__ == "__main__":
    main()
