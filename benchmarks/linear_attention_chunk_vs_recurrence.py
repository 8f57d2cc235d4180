"""Chunk-wise vs step-by-step rank-generalized linear attention: forward + backward time, float32, same run.

Setting of the linear-attention issue: B = 2, H = 4, d_k = d_v = 64, T in {256, 1024, 4096}, HDLA's rank
(r_ab = 2, r_kv = 1), chunk size 16. For each T both forms run on identical inputs (interleaved, best of
``--repeats``); the script prints the time ratio and the largest relative output difference.

The user's alternative: flash-linear-attention's pure-torch forms when it is importable (it is not installed
here); without it, the step-by-step recurrence in plain torch (batched einsums per step, the form of
flash-linear-attention's own naive DPLR reference), which is what a user would write for this state transition.
With ``--json`` the ratios (alternative / chunk-wise, forward + backward) go to ``benchmarks/RESULTS.md``;
``--small``: T in {256, 1024}, 2 repeats.

    python benchmarks/linear_attention_chunk_vs_recurrence.py [--lengths 256 1024 4096] [--repeats 3]
        [--small] [--json PATH]
"""

from __future__ import annotations

import argparse
import time

import torch
from _bench import row, write_result

from iclr26.lab.linear_attention import rank_generalized_chunk, rank_generalized_recurrence


def inputs(
    t: int, b: int = 2, h: int = 4, d: int = 64, r_ab: int = 2, seed: int = 0
) -> dict[str, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    kh = torch.nn.functional.normalize(torch.randn(b, t, h, d, generator=gen), dim=-1)
    return {
        "q": torch.randn(b, t, h, d, generator=gen) * d**-0.5,
        "k": kh,
        "v": torch.randn(b, t, h, d, generator=gen),
        "a": -0.5 * torch.nn.functional.normalize(torch.randn(b, t * r_ab, h, d, generator=gen), dim=-1),
        "b": torch.nn.functional.normalize(torch.randn(b, t * r_ab, h, d, generator=gen), dim=-1),
        "log_f": torch.nn.functional.logsigmoid(torch.randn(b, t, h, d, generator=gen) + 3),
    }


def fwd_bwd(fn, x: dict[str, torch.Tensor], **kw) -> tuple[float, torch.Tensor]:
    leaves = {k: v.clone().requires_grad_(True) for k, v in x.items()}
    t0 = time.perf_counter()
    o, s = fn(**leaves, r_ab=2, r_kv=1, **kw)
    (o.square().sum() + s.square().sum()).backward()
    return time.perf_counter() - t0, o.detach()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[256, 1024, 4096])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--small", action="store_true", help="make bench setting: T in {256, 1024}, 2 repeats"
    )
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    if args.small:
        args.lengths, args.repeats = [256, 1024], 2
    try:
        import fla  # noqa: F401

        have_fla = True
    except ImportError:
        have_fla = False
    rows = []
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}")
    print(f"{'T':>6} {'recurrence s':>13} {'chunk s':>9} {'ratio':>7} {'max rel diff':>13}")
    for t in args.lengths:
        x = inputs(t)
        rec, chk = [], []
        for i in range(args.repeats):  # interleaved, the order alternating
            if i % 2:
                tc, o_c = fwd_bwd(rank_generalized_chunk, x, chunk_size=16)
            tr, o_r = fwd_bwd(rank_generalized_recurrence, x)
            if not i % 2:
                tc, o_c = fwd_bwd(rank_generalized_chunk, x, chunk_size=16)
            rec.append(tr)
            chk.append(tc)
        diff = float((o_r - o_c).abs().max() / o_r.abs().max())
        print(f"{t:>6} {min(rec):>13.3f} {min(chk):>9.3f} {min(rec) / min(chk):>7.1f} {diff:>13.2e}")
        rows.append(
            row(
                "",
                f"rank-2 DPLR linear attention, fwd+bwd, B 2, H 4, d 64, T {t} (max rel diff {diff:.1e})",
                "rank_generalized_chunk, chunk 16",
                "torch step-by-step recurrence (fla not installed)",
                min(rec) / min(chk),
            )
        )
    notes = (
        [] if not have_fla else ["flash-linear-attention is importable but its forms are not wired in yet."]
    )
    write_result(
        args.json,
        {
            "script": "linear_attention_chunk_vs_recurrence.py",
            "title": "Chunk-wise rank-generalized linear attention vs the torch recurrence",
            "device": "cpu",
            "settings": {k: v for k, v in vars(args).items() if k != "json"},
            "rows": rows,
            "notes": notes,
        },
    )


if __name__ == "__main__":
    main()
