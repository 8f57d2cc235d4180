"""Chunk-wise rank-generalized linear attention vs flash-linear-attention's pure-torch DPLR forms, float32, CPU.

Setting of the linear-attention issue: B = 2, H = 4, d_k = d_v = 64, T in {256, 1024, 4096}, chunk size 16,
log-decays ``logsigmoid(N(3, 1))``, unit-norm k and b, a = -0.5 * unit vector. One thread, repeats interleaved,
median.

The user's alternative is flash-linear-attention (``fla-core``): without triton (CPU), its usable forms are the
pure-torch ``dplr_chunkwise`` / ``dplr_recurrence`` of ``fla/ops/generalized_delta_rule/dplr/naive.py``, loaded
here by file path so that ``fla/__init__.py`` (which needs triton) never runs. fla's transition is
``S_t = diag(exp(gk_t)) S_{t-1} + beta_t (alpha_t^T S_{t-1}) + k_t v_t^T`` with q scaled by ``d_k^-0.5``,
tensors laid out (B, H, T, d): our ``rank_generalized_chunk`` with ``r_ab = r_kv = 1`` maps onto it as
``alpha = a``, ``beta = b``, ``gk = log_f``, ``scale = d_k^-0.5`` after a (B, T, H, d) -> (B, H, T, d)
transpose (the transposes are outside the timed region, and fla runs at our chunk size 16, its fastest here).
Rows: rank 1, forward (no grad) and forward + backward (sum of squares of o and the final state), each against
the faster of fla's two forms measured in the same interleaved rounds (``dplr_chunkwise``; ``dplr_recurrence``
too for the forward, where its 1-step loop without autograd is competitive, and for forward + backward at
T = 256 only, its backward through T steps being far slower). Every row carries the max relative difference of
o (and of the input gradients) between ours and each fla form.

HDLA's rank-2 transition (``r_ab = 2``: ``diag(f) + b1 a1^T + b2 a2^T`` applied to the same old state) has no
fla form: fla is rank-1 DPLR per step, and two rank-1 substeps compose to a product, not a sum. That row stays
against the step-by-step torch recurrence (``rank_generalized_recurrence``, the form a user would write).
Without ``fla-core`` installed, the rank-1 rows fall back to that recurrence and say so.

``--small`` (make bench): T in {256, 1024}, 3 repeats.

    python benchmarks/linear_attention_chunk_vs_recurrence.py [--lengths 256 1024 4096] [--repeats 3]
        [--small] [--json PATH]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
from functools import partial
from pathlib import Path
from types import ModuleType

import torch
from _bench import interleaved, median, row, write_result

from iclr26.lab.linear_attention import rank_generalized_chunk, rank_generalized_recurrence

NAIVE = "ops/generalized_delta_rule/dplr/naive.py"


def load_fla_naive() -> ModuleType | None:
    """fla-core's pure-torch DPLR module, loaded by path without running ``fla/__init__.py``; None if absent."""
    try:
        spec = importlib.util.find_spec("fla")
    except (ImportError, ValueError):
        spec = None
    roots = list(spec.submodule_search_locations or []) if spec is not None else []
    if not roots:
        try:
            roots = [
                str(f.locate().parent.parent.parent.parent)
                for f in importlib.metadata.files("fla-core") or []
                if str(f).endswith("generalized_delta_rule/dplr/naive.py")
            ]
        except importlib.metadata.PackageNotFoundError:
            return None
    for root in roots:
        path = Path(root) / NAIVE
        if path.is_file():
            mod_spec = importlib.util.spec_from_file_location("fla_dplr_naive", path)
            module = importlib.util.module_from_spec(mod_spec)
            try:
                mod_spec.loader.exec_module(module)
            except ImportError:  # einops missing
                return None
            return module
    return None


def inputs(
    t: int, b: int = 2, h: int = 4, d: int = 64, r_ab: int = 2, seed: int = 0
) -> dict[str, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    kh = torch.nn.functional.normalize(torch.randn(b, t, h, d, generator=gen), dim=-1)
    return {
        "q": torch.randn(b, t, h, d, generator=gen),
        "k": kh,
        "v": torch.randn(b, t, h, d, generator=gen),
        "a": -0.5 * torch.nn.functional.normalize(torch.randn(b, t * r_ab, h, d, generator=gen), dim=-1),
        "b": torch.nn.functional.normalize(torch.randn(b, t * r_ab, h, d, generator=gen), dim=-1),
        "log_f": torch.nn.functional.logsigmoid(torch.randn(b, t, h, d, generator=gen) + 3),
    }


def rel(x: torch.Tensor, ref: torch.Tensor) -> float:
    return float((x - ref).abs().max() / ref.abs().max())


ORDER = ("q", "k", "v", "a", "b", "log_f")


def ours_fn(x: dict, r_ab: int, grad: bool):
    """One call of our chunk form (forward, or forward + backward); returns (o, grads)."""
    d = x["q"].shape[-1]
    leaves = {k: v.clone().requires_grad_(grad) for k, v in x.items()}
    with torch.set_grad_enabled(grad):
        o, s = rank_generalized_chunk(**leaves, r_ab=r_ab, r_kv=1, scale=d**-0.5, chunk_size=16)
        if grad:
            (o.square().sum() + s.square().sum()).backward()
    return o.detach(), [leaves[k].grad for k in ORDER] if grad else None


def rec_fn(x: dict, r_ab: int, grad: bool):
    """Our step-by-step torch recurrence (the oracle)."""
    d = x["q"].shape[-1]
    leaves = {k: v.clone().requires_grad_(grad) for k, v in x.items()}
    with torch.set_grad_enabled(grad):
        o, s = rank_generalized_recurrence(**leaves, r_ab=r_ab, r_kv=1, scale=d**-0.5)
        if grad:
            (o.square().sum() + s.square().sum()).backward()
    return o.detach(), [leaves[k].grad for k in ORDER] if grad else None


def fla_fn(fla: ModuleType, xt: dict, grad: bool, form: str = "dplr_chunkwise"):
    """One call of fla's naive DPLR form on (B, H, T, d) inputs; returns (o in (B, T, H, d), grads)."""
    leaves = [xt[k].clone().requires_grad_(grad) for k in ORDER]
    q, k, v, alpha, beta, gk = leaves
    kw = {"chunk_size": 16} if form == "dplr_chunkwise" else {}
    with torch.set_grad_enabled(grad):
        o, s = getattr(fla, form)(q, k, v, alpha, beta, gk, **kw)
        if grad:
            (o.square().sum() + s.square().sum()).backward()
    grads = [g.grad.transpose(1, 2) for g in leaves] if grad else None
    return o.detach().transpose(1, 2), grads


def keep(store: dict, name: str, fn) -> None:
    """Run ``fn`` and keep its output under ``name`` (the timed call's outputs serve the agreement check)."""
    store[name] = fn()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[256, 1024, 4096])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--small", action="store_true", help="make bench setting: T in {256, 1024}, 3 repeats"
    )
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    if args.small:
        args.lengths, args.repeats = [256, 1024], 3
    torch.set_num_threads(1)
    fla = load_fla_naive()
    fla_version = ""
    if fla is not None:
        try:
            fla_version = importlib.metadata.version("fla-core")
        except importlib.metadata.PackageNotFoundError:
            fla_version = "?"
    rows, notes = [], []
    print(
        f"torch {torch.__version__}, 1 thread; fla-core "
        + (
            f"{fla_version} (naive DPLR loaded by path)"
            if fla
            else "not installed: rank-1 rows vs recurrence"
        )
    )
    print(
        f"{'T':>6} {'rank':>4} {'pass':>8} {'ours ms':>9} {'alt ms':>9} {'ratio':>6} "
        f"{'o rel diff':>11} {'grad rel diff':>13}  alternative"
    )
    for t in args.lengths:
        x = inputs(t)
        x1 = {**x, "a": x["a"][:, ::2].contiguous(), "b": x["b"][:, ::2].contiguous()}  # rank 1
        xt = {k: v.transpose(1, 2).contiguous() for k, v in x1.items()}
        for grad in (False, True):
            pas = "fwd+bwd" if grad else "fwd"
            fns = {"ours": partial(ours_fn, x1, 1, grad)}
            if fla is not None:
                fns["fla dplr_chunkwise"] = partial(fla_fn, fla, xt, grad)
                if not grad or t <= 256:  # its backward through T steps is slow: measured at T 256 only
                    fns["fla dplr_recurrence"] = partial(fla_fn, fla, xt, grad, "dplr_recurrence")
            else:
                fns["torch step-by-step recurrence (fla-core not installed)"] = partial(rec_fn, x1, 1, grad)
            times = interleaved(fns, args.repeats)
            med = {k: median(v) for k, v in times.items()}
            o_ours, g_ours = ours_fn(x1, 1, grad)
            alts = [k for k in fns if k != "ours"]
            best = min(alts, key=med.get)
            diffs_txt = []
            for name in alts:
                o_alt, g_alt = fns[name]()
                d_o = rel(o_ours, o_alt)
                d_g = max(rel(a, b) for a, b in zip(g_ours, g_alt)) if grad else float("nan")
                print(
                    f"{t:>6} {1:>4} {pas:>8} {1e3 * med['ours']:9.1f} {1e3 * med[name]:9.1f} "
                    f"{med[name] / med['ours']:6.1f} {d_o:11.1e} {d_g:13.1e}  {name}"
                )
                diffs_txt.append(
                    f"{name.split()[-1] if fla else 'recurrence'} o {d_o:.1e}"
                    + (f", grads {d_g:.1e}" if grad else "")
                )
            if fla is not None:
                forms = [a.split()[-1] + (" (chunk 16)" if a.endswith("chunkwise") else "") for a in alts]
                alt_name = f"fla-core {fla_version} pure-torch {forms[0]}"
                if len(forms) > 1:
                    alt_name = (
                        f"fla-core {fla_version} pure-torch DPLR, the faster of {' / '.join(forms)}: "
                        f"{best.split()[-1]}"
                    )
                elif grad and t > 256:
                    alt_name += " (dplr_recurrence's backward is slower: timed at T 256 only)"
            else:
                alt_name = best
            rows.append(
                row(
                    "",
                    f"rank-1 DPLR linear attention, {pas}, B 2, H 4, d 64, T {t} "
                    f"(max rel diff: {'; '.join(diffs_txt)})",
                    "rank_generalized_chunk, chunk 16",
                    alt_name,
                    med[best] / med["ours"],
                )
            )
        # rank 2 (HDLA's r_ab): no fla form, the step-by-step recurrence is the alternative
        outs: dict[str, tuple] = {}
        fns = {
            "ours": partial(keep, outs, "ours", partial(ours_fn, x, 2, True)),
            "alt": partial(keep, outs, "alt", partial(rec_fn, x, 2, True)),
        }
        # no warm-up round: the chunk form is warm from the rank-1 rows, the recurrence needs none
        times = interleaved(fns, args.repeats if t <= 1024 else 1, warmup=0)
        (o_ours, g_ours), (o_alt, g_alt) = outs["ours"], outs["alt"]
        d_o, d_g = rel(o_ours, o_alt), max(rel(a, b) for a, b in zip(g_ours, g_alt))
        mo, ma = median(times["ours"]), median(times["alt"])
        print(
            f"{t:>6} {2:>4} {'fwd+bwd':>8} {1e3 * mo:9.1f} {1e3 * ma:9.1f} {ma / mo:6.1f} "
            f"{d_o:11.1e} {d_g:13.1e}  torch step-by-step recurrence"
        )
        rows.append(
            row(
                "hdla",
                f"rank-2 DPLR linear attention (HDLA's r_ab), fwd+bwd, B 2, H 4, d 64, T {t} "
                f"(o max rel diff {d_o:.1e}, grads {d_g:.1e})",
                "rank_generalized_chunk, chunk 16",
                "torch step-by-step recurrence (fla's DPLR is rank 1 per step: no fla form of a rank-2 sum)",
                ma / mo,
            )
        )
    if fla is None:
        notes.append("fla-core is not installed: the rank-1 rows compare with the torch recurrence instead.")
    write_result(
        args.json,
        {
            "script": "linear_attention_chunk_vs_recurrence.py",
            "title": "Chunk-wise rank-generalized linear attention vs flash-linear-attention's pure-torch DPLR",
            "device": "cpu",
            "settings": {
                **{k: v for k, v in vars(args).items() if k != "json"},
                "fla_core": fla_version or None,
            },
            "rows": rows,
            "notes": notes,
        },
    )


if __name__ == "__main__":
    main()
