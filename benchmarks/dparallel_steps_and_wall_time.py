"""dParallel: decoding steps (NFE) and wall time per sample, distilled model vs its teacher (not a test).

Loads (or trains and caches) the quick-budget teacher of the dParallel reproduction, distils a dParallel
student from it (beta = 2, T = 0.5, quick settings, seed 0), then decodes the same test prompts one at a time
(batch 1, as a latency-bound server would) with: the teacher at one token per call (the accuracy reference),
the teacher with entropy-threshold decoding (tau = 0.5, training-free), and the student with the same rule.
Repetitions are interleaved (the method order rotates every repetition) on one pinned thread; the wall-time
speedup is the teacher's per-sample time over the method's, with a percentile-bootstrap 95% interval over
repetitions.

With ``--json`` the rows go to ``benchmarks/RESULTS.md``: the claim's ratios (the teacher's NFE and wall time at one
token per call over dParallel's, beside the paper's 8.5x on GSM8K) and the one against what a user would do without
distillation (the teacher with the same training-free entropy-threshold rule). ``--small``: 24 prompts, 3 repeats.

    python benchmarks/dparallel_steps_and_wall_time.py [--samples 60] [--repeats 5] [--tau 0.5] [--small] [--json PATH]
"""

import argparse
import copy
import time

import numpy as np
import torch
from _bench import row, write_result

from iclr26.harness.stats import bootstrap_interval
from iclr26.inference.dparallel import CertaintyForcingTrainer, decode
from iclr26.inference.dparallel.experiment import EXPERIMENT
from iclr26.inference.dparallel.teacher import load_or_train_teacher
from iclr26.lab.threads import limited_threads


def per_sample(model, prompts, task, block, **rule) -> tuple[float, float, float]:
    """(seconds per sample, accuracy, mean NFE) decoding the prompts one at a time."""
    t0 = time.perf_counter()
    correct, nfe = 0, 0
    for i in range(prompts.shape[0]):
        out = decode(model, prompts[i : i + 1], task.gen_len, block, **rule)
        correct += int(task.correct(prompts[i : i + 1], out.ids[:, task.prompt_len :]).item())
        nfe += int(out.nfe.item())
    n = prompts.shape[0]
    return (time.perf_counter() - t0) / n, correct / n, nfe / n


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=60)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--tau", type=float, default=0.5)
    ap.add_argument("--small", action="store_true", help="make bench setting: 24 prompts, 3 repeats")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    if args.small:
        args.samples, args.repeats = 24, 3
    cfg = EXPERIMENT.config("quick")
    task, block = cfg.teacher.task, cfg.teacher.block_size
    with limited_threads(1):
        teacher, data, _ = load_or_train_teacher(cfg.teacher)
        student = copy.deepcopy(teacher)
        CertaintyForcingTrainer(student, block_size=block, lr=cfg.distill_lr, beta=cfg.beta).fit(
            data, task.prompt_len, steps=cfg.distill_steps, batch_size=cfg.distill_batch, seed=1
        )
        prompts, _ = task.sample(args.samples, torch.Generator().manual_seed(2024))
        methods = {
            "teacher, 1 token/call": (teacher, {"steps": task.gen_len}),
            f"teacher, entropy tau={args.tau:g}": (teacher, {"entropy_threshold": args.tau}),
            f"dParallel, entropy tau={args.tau:g}": (student, {"entropy_threshold": args.tau}),
        }
        names = list(methods)
        times = {m: [] for m in names}
        stats = {}
        for rep in range(args.repeats):
            for j in range(len(names)):
                name = names[(j + rep) % len(names)]
                model, rule = methods[name]
                sec, acc, nfe = per_sample(model, prompts, task, block, **rule)
                times[name].append(sec)
                stats[name] = (acc, nfe)
    ref = np.array(times[names[0]])
    print(
        f"{args.samples} prompts, batch 1, gen_len {task.gen_len}, block {block}, 1 thread, {args.repeats} repeats"
    )
    print(f"{'method':<28} {'acc':>6} {'NFE':>6} {'ms/sample':>10} {'x NFE':>6} {'x wall [95% CI]':>22}")
    for name in names:
        acc, nfe = stats[name]
        t = np.array(times[name])
        iv = bootstrap_interval(ref / t)
        speed_nfe = stats[names[0]][1] / nfe
        print(
            f"{name:<28} {acc:>6.3f} {nfe:>6.2f} {1e3 * np.median(t):>10.2f} {speed_nfe:>6.2f} "
            f"{iv.estimate:>8.2f} [{iv.lo:.2f}, {iv.hi:.2f}]"
        )
    teacher1, teacher_tau, ours = names
    acc = {k: stats[k][0] for k in names}
    wall = {k: np.array(times[k]) for k in names}

    def wall_ratio(base: str) -> tuple[float, str]:
        iv = bootstrap_interval(wall[base] / wall[ours])
        return iv.estimate, f"95% CI [{iv.lo:.2f}, {iv.hi:.2f}]"

    r1, ci1 = wall_ratio(teacher1)
    r2, ci2 = wall_ratio(teacher_tau)
    rows = [
        row(
            "dparallel",
            f"claim: decoding steps (NFE {stats[teacher1][1]:.1f} -> {stats[ours][1]:.1f}), acc "
            f"{acc[teacher1]:.2f} -> {acc[ours]:.2f}",
            ours,
            teacher1,
            stats[teacher1][1] / stats[ours][1],
            paper_value="8.5x (GSM8K, 256 -> 30 steps)",
        ),
        row(
            "dparallel",
            f"claim: wall time per sample, batch 1 ({ci1})",
            ours,
            teacher1,
            r1,
            paper_value="8.5x (steps)",
        ),
        row(
            "dparallel",
            f"wall time per sample, batch 1 ({ci2}); acc {acc[teacher_tau]:.2f} vs {acc[ours]:.2f}",
            ours,
            f"{teacher_tau} (training-free)",
            r2,
        ),
    ]
    write_result(
        args.json,
        {
            "script": "dparallel_steps_and_wall_time.py",
            "title": "dParallel vs its teacher's decoding",
            "device": "cpu",
            "settings": {k: v for k, v in vars(args).items() if k != "json"},
            "rows": rows,
        },
    )


if __name__ == "__main__":
    main()
