"""Optimizer-state floats and step time of RACS, Alice (and COSMOS when importable) against AdamW (not a test).

One 2-layer char-level tiny GPT with d_model 256 (:mod:`iclr26.lab.tinygpt`); every optimizer is built over all
its parameters (RACS/Alice/COSMOS on the hidden matrices, their AdamW branch on the rest). The same pre-drawn
gradients are fed to every optimizer and ``optimizer.step()`` alone is timed (the first step, which allocates
state, is reported apart), then a whole training step (forward, backward, step) at batch 16 x 64 is timed too; optimizers are interleaved step by
step, so a loaded machine slows them alike and the *ratios* to AdamW measured in the same run are what to read.
Alice's basis switches (step 1 and every ``--interval`` steps) are timed apart from its plain steps and
amortised over ``--amortise-interval`` steps (the switch interval one would train with), so a short timing
window does not overweight them. State floats are counted after the run, in total and on the hidden matrices.

The baseline is ``torch.optim.AdamW``, the optimizer a user would pick instead; with ``--json`` the ratios
AdamW / ours (state floats, steady step time, whole training step) go to ``benchmarks/RESULTS.md``.

    python benchmarks/optimizer_state_and_step_time.py [--steps 8] [--threads 2] [--rank 32] [--small] [--json PATH]
"""

import argparse
import time

import numpy as np
import torch
from _bench import row, write_result

from iclr26.lab.param_groups import split_param_groups, state_numel
from iclr26.lab.tinygpt import TinyGPT, TinyGPTConfig
from iclr26.optim.racs_alice import RACS, Alice

GOALS = {"RACS": ("state", 0.05), "Alice": ("state", 0.5)}


def matrix_state(opt: torch.optim.Optimizer, matrices: list[torch.nn.Parameter]) -> int:
    ids = {id(p) for p in matrices}
    return sum(
        t.numel()
        for p, st in opt.state.items()
        if id(p) in ids
        for t in st.values()
        if torch.is_tensor(t) and t.ndim > 0
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rank", type=int, default=32)
    ap.add_argument("--leading-basis", type=int, default=8)
    ap.add_argument("--interval", type=int, default=4)
    ap.add_argument("--amortise-interval", type=int, default=50)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--small", action="store_true", help="make bench setting: 6 steps")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    if args.small:
        args.steps = 6
    rows = []
    torch.set_num_threads(args.threads)

    factories = {
        "AdamW": lambda m: torch.optim.AdamW(m.parameters(), lr=1e-3),
        "RACS": lambda m: RACS.from_model(m, lr=0.03, fallback_lr=1e-3, normalize="fixed_point"),
        "Alice": lambda m: Alice.from_model(
            m,
            lr=0.03,
            fallback_lr=1e-3,
            rank=args.rank,
            leading_basis=args.leading_basis,
            update_interval=args.interval,
        ),
    }
    try:
        from iclr26.optim.cosmos import COSMOS

        factories["COSMOS"] = lambda m: COSMOS.from_model(m, lr=0.03, rank=args.rank)
    except ImportError:
        print("COSMOS not importable: skipped")

    cfg = TinyGPTConfig(n_layers=2, d_model=256, n_heads=4, seq_len=64)
    models = {name: TinyGPT(cfg, 100, init_seed=0) for name in factories}
    opts = {name: f(models[name]) for name, f in factories.items()}
    gen = torch.Generator().manual_seed(0)
    shapes = [p.shape for p in models["AdamW"].parameters()]
    grads = [[torch.randn(s, generator=gen) * 1e-2 for s in shapes] for _ in range(4)]
    times: dict[str, list[float]] = {name: [] for name in factories}
    for step in range(args.steps):
        for name, opt in opts.items():
            for p, g in zip(models[name].parameters(), grads[step % len(grads)]):
                p.grad = g.clone()
            t0 = time.perf_counter()
            opt.step()
            times[name].append(time.perf_counter() - t0)

    n_params = sum(p.numel() for p in models["AdamW"].parameters())
    base_state = state_numel(opts["AdamW"])
    matrices = {name: split_param_groups(m)[0] for name, m in models.items()}
    base_matrix = matrix_state(opts["AdamW"], matrices["AdamW"])
    base_time = float(np.mean(times["AdamW"][1:]))
    switched = [s == 0 or (s + 1) % args.interval == 0 for s in range(args.steps)]
    plain = float(np.mean([t for t, sw in zip(times["Alice"], switched) if not sw]))
    switch = float(np.mean([t for t, sw in zip(times["Alice"], switched) if sw]))
    k = args.amortise_interval
    amortised = {"Alice": (switch + (k - 1) * plain) / k}
    print(f"2-layer d=256 tiny GPT, {n_params} parameters, {args.steps} steps, {args.threads} threads")
    print(
        f"{'optimizer':<8} {'state floats':>12} {'/AdamW':>7} {'matrix state':>12} {'/AdamW':>7} "
        f"{'step ms':>8} {'/AdamW':>7}"
    )
    for name, opt in opts.items():
        total, mat = state_numel(opt), matrix_state(opt, matrices[name])
        # steady state: the first step allocates state (and COSMOS runs its one exact SVD there), so it is
        # reported on its own line below instead of being averaged into a short run
        t = amortised.get(name, float(np.mean(times[name][1:])))
        if name != "AdamW":
            paper = {"RACS": "SGD-like (m+n floats per matrix)", "Alice": "mr + r^2 + 2rn + n + 1 per matrix"}
            rows.append(
                row(
                    "racs-alice" if name != "COSMOS" else "cosmos",
                    f"{name}: optimizer-state floats, tiny GPT",
                    name,
                    "torch.optim.AdamW",
                    base_state / total,
                    paper_value=paper.get(name, "below SOAP"),
                )
            )
            rows.append(
                row(
                    "racs-alice" if name != "COSMOS" else "cosmos",
                    f"{name}: optimizer.step() time (steady)",
                    name,
                    "torch.optim.AdamW",
                    base_time / t,
                )
            )
        print(
            f"{name:<8} {total:>12d} {total / base_state:>7.3f} {mat:>12d} {mat / base_matrix:>7.3f} "
            f"{1e3 * t:>8.2f} {t / base_time:>7.2f}"
        )
    print(
        f"Alice: plain step {1e3 * plain:.2f} ms ({plain / base_time:.2f} x AdamW), switch step {1e3 * switch:.2f} ms "
        f"({switch / base_time:.2f} x AdamW); row above amortises one switch per {k} steps"
    )
    print(
        "first step (state allocation; COSMOS's exact SVD): "
        + ", ".join(f"{name} {times[name][0] / times['AdamW'][0]:.1f} x AdamW" for name in opts)
    )
    print("goals: RACS state <= 0.05 x AdamW, Alice <= 0.5 x AdamW, step time <= 2 x AdamW")

    # a whole training step (forward + backward + optimizer) at the bench's batch, interleaved the same way
    data = torch.randint(0, 100, (args.batch, cfg.seq_len + 1), generator=gen)
    train_times: dict[str, list[float]] = {name: [] for name in factories}
    for _ in range(args.steps):
        for name, opt in opts.items():
            t0 = time.perf_counter()
            opt.zero_grad(set_to_none=True)
            logits = models[name](data[:, :-1])
            torch.nn.functional.cross_entropy(logits.flatten(0, 1), data[:, 1:].flatten()).backward()
            opt.step()
            train_times[name].append(time.perf_counter() - t0)
    base_train = float(np.median(train_times["AdamW"]))
    print(
        f"whole training step, batch {args.batch} x {cfg.seq_len} (median; Alice's switches included as they fall):"
    )
    for name in opts:
        t = float(np.median(train_times[name]))
        print(f"  {name:<8} {1e3 * t:>8.1f} ms {t / base_train:>6.2f} x AdamW")
        if name != "AdamW":
            rows.append(
                row(
                    "racs-alice" if name != "COSMOS" else "cosmos",
                    f"{name}: whole training step, batch {args.batch}",
                    name,
                    "torch.optim.AdamW",
                    base_train / t,
                )
            )
    write_result(
        args.json,
        {
            "script": "optimizer_state_and_step_time.py",
            "title": "Optimizer state and step time against torch.optim.AdamW",
            "device": "cpu",
            "settings": {k_: v_ for k_, v_ in vars(args).items() if k_ != "json"},
            "rows": rows,
            "notes": ["Optimizer ratios are AdamW / ours: > 1 means less state or a faster step than AdamW."],
        },
    )


if __name__ == "__main__":
    main()
