"""Discrete analogue of the paper's LLM tests: a small softmax GPT trained on in-context mapping prompts.

Alphabet: 64 symbols, then ``->`` (id 64) and ``,`` (id 65). Four fixed base maps f_k: A -> B (one-to-one
between two disjoint 16-symbol sets A, B shared by all maps, drawn from the seed). A prompt
``x_1 -> y_1 , ... x_n -> y_n , x_q ->`` shows one task: ``base`` (f_k), ``inverse`` (f_k^{-1}), ``bijection``
(f_k and f_k^{-1} mixed: demos and query in both directions on A U B) or ``copy`` (x -> x on all 64 symbols).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from iclr26.checks import check_array, check_choice, check_float, check_int
from iclr26.lab.tasks import IGNORE_INDEX
from iclr26.lab.training import sequence_loss, train_loop
from iclr26.lab.transformer import Transformer
from iclr26.mechanisms.task_vectors.vectors import ARROW_ID, extract, inject, multi_inject

__all__ = [
    "COMMA_ID",
    "TASK_TYPES",
    "VOCAB",
    "MapPool",
    "evaluate_discrete",
    "make_gpt",
    "map_pool",
    "map_prompts",
    "train_gpt",
]

N_SYMBOLS = 64
COMMA_ID = 65
VOCAB = 66
TASK_TYPES = ("base", "inverse", "bijection", "copy")


@dataclass(frozen=True)
class MapPool:
    """The fixed base maps: ``src[k]`` maps to ``dst[k]`` elementwise."""

    src: np.ndarray
    dst: np.ndarray

    def __post_init__(self) -> None:
        src = check_array("src", self.src, ndim=2, integer=True)
        dst = check_array("dst", self.dst, ndim=2, integer=True)
        if dst.shape != src.shape:
            raise ValueError(f"dst must have the shape of src (n_maps, size) = {src.shape}, got {dst.shape}")
        for name, x in (("src", src), ("dst", dst)):
            if x.size and (int(x.min()) < 0 or int(x.max()) >= N_SYMBOLS):
                raise ValueError(
                    f"{name} must hold symbols in [0, {N_SYMBOLS}), got values in [{int(x.min())}, {int(x.max())}]"
                )

    @property
    def n_maps(self) -> int:
        return int(self.src.shape[0])


def map_pool(seed: int, n_maps: int = 4, size: int = 16) -> MapPool:
    """Symbol sets A, B (shared by all maps) and `n_maps` random bijections f_k: A -> B (from `seed`).

    Sharing the domain makes the query ambiguous without context (as "to upper" vs "to French" are for an LLM):
    the prompt must say which map, and the task vector must carry it.
    """
    check_int("seed", seed, low=0)
    check_int("size", size, 1, N_SYMBOLS // 2)
    check_int("n_maps", n_maps, low=1)
    rng = np.random.default_rng(seed)
    perm = rng.permutation(N_SYMBOLS)
    a, b = perm[:size], perm[size : 2 * size]
    src = np.tile(a, (n_maps, 1))
    dst = np.stack([b[rng.permutation(size)] for _ in range(n_maps)])
    return MapPool(src, dst)


def _check_pool(pool: object) -> None:
    if not isinstance(pool, MapPool):
        raise TypeError(f"pool must be a MapPool (from map_pool), got {type(pool).__name__}")


def _check_gpt(model: object, n: int) -> None:
    """`model` must be a lab Transformer over the 66-token vocabulary with room for n-shot prompts."""
    if not isinstance(model, Transformer):
        raise TypeError(f"model must be a lab Transformer (from make_gpt), got {type(model).__name__}")
    if model.vocab_size < VOCAB:
        raise ValueError(
            f"model must have vocab_size >= {VOCAB} (64 symbols, '->', ','), got {model.vocab_size}"
        )
    if model.seq_len < 4 * n + 2:
        raise ValueError(
            f"n = {n}-shot prompts have {4 * n + 2} tokens but the model's seq_len is {model.seq_len}"
        )


def _pairs(
    pool: MapPool, task: str, k: int, m: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """m (x, y) pairs of task `task` on map k."""
    size = pool.src.shape[1]
    if task == "copy":
        x = rng.integers(0, N_SYMBOLS, m)
        return x, x.copy()
    j = rng.integers(0, size, m)
    fwd = (
        np.ones(m, bool)
        if task == "base"
        else np.zeros(m, bool)
        if task == "inverse"
        else rng.random(m) < 0.5
    )
    a, b = pool.src[k][j], pool.dst[k][j]
    return np.where(fwd, a, b), np.where(fwd, b, a)


def map_prompts(
    pool: MapPool, task: str, n: int, batch: int, seed: int, k: np.ndarray | None = None
) -> tuple[Tensor, Tensor, np.ndarray]:
    """`batch` prompts of `n` demos + query of one task type; returns (tokens (B, 4n+2), answers (B,), k).

    `k` (B,) fixes each prompt's map (drawn uniformly when None).
    """
    _check_pool(pool)
    check_choice("task", task, TASK_TYPES)
    check_int("n", n, low=0)
    check_int("batch", batch, low=1)
    check_int("seed", seed, low=0)
    if k is not None:
        k = np.asarray(k)
        if k.dtype.kind not in "iu" or k.shape != (batch,):
            raise ValueError(
                f"k must be {batch} integer map indices (shape ({batch},)), got {k.dtype} shape {k.shape}"
            )
        if k.size and (k.min() < 0 or k.max() >= pool.n_maps):
            raise ValueError(
                f"k must hold map indices in [0, {pool.n_maps - 1}], got values in [{k.min()}, {k.max()}]"
            )
    rng = np.random.default_rng(seed)
    ks = rng.integers(0, pool.n_maps, batch) if k is None else k
    toks = np.empty((batch, 4 * n + 2), dtype=np.int64)
    ans = np.empty(batch, dtype=np.int64)
    for b in range(batch):
        x, y = _pairs(pool, task, int(ks[b]), n + 1, rng)
        for i in range(n):
            toks[b, 4 * i : 4 * i + 4] = (x[i], ARROW_ID, y[i], COMMA_ID)
        toks[b, -2:] = (x[n], ARROW_ID)
        ans[b] = y[n]
    return torch.from_numpy(toks), torch.from_numpy(ans), ks


def _training_batch(pool: MapPool, n: int, batch: int, gen: torch.Generator) -> tuple[Tensor, Tensor]:
    """Mixed-task training prompts with next-token targets on every answer position."""
    seed = int(torch.randint(0, 2**31 - 1, (1,), generator=gen))
    rng = np.random.default_rng(seed)
    tasks = rng.integers(0, len(TASK_TYPES), batch)
    toks, targets = [], []
    for t in range(len(TASK_TYPES)):
        m = int((tasks == t).sum())
        if m == 0:
            continue
        x, a, _ = map_prompts(pool, TASK_TYPES[t], n, m, int(rng.integers(0, 2**31 - 1)))
        full = torch.cat([x, a[:, None]], 1)
        tgt = torch.full_like(full, IGNORE_INDEX)
        tgt[:, 1::4] = full[:, 2::4]  # at every arrow, predict the answer that follows
        toks.append(full[:, :-1])
        targets.append(tgt[:, :-1])
    return torch.cat(toks), torch.cat(targets)


def make_gpt(n: int, d_model: int, n_layers: int, n_heads: int = 4, init_seed: int = 0) -> Transformer:
    """The lab's hookable softmax GPT sized for n-shot prompts over the 66-token vocabulary."""
    check_int("n", n, low=1)
    check_int("init_seed", init_seed, low=0)
    return Transformer(VOCAB, 4 * n + 2, d_model, n_layers, n_heads, init_seed=init_seed)


def train_gpt(
    model: Transformer, pool: MapPool, n: int, steps: int, batch: int, lr: float, seed: int
) -> list[float]:
    """Train on mixed-task n-shot prompts (loss at every arrow) on the model's device; returns the loss curve.

    Batches are drawn on the CPU and moved, so the CPU run does not depend on the device code path."""
    check_int("n", n, low=1)
    _check_gpt(model, n)
    _check_pool(pool)
    check_int("steps", steps, low=1)
    check_int("batch", batch, low=1)
    check_float("lr", lr, low=0.0, low_open=True)
    check_int("seed", seed, low=0)
    device = next(model.parameters()).device

    def loss_fn(m: Transformer, gen: torch.Generator) -> Tensor:
        x, t = _training_batch(pool, n, batch, gen)
        return sequence_loss(m(x.to(device)), t.to(device))

    res = train_loop(model, loss_fn, steps=steps, lr=lr, seed=seed, weight_decay=0.01, description="gpt")
    return res.losses


def _acc(logits: Tensor, ans: Tensor) -> np.ndarray:
    return (logits[:, -1].argmax(-1) == ans.to(logits.device)).float().cpu().numpy()


@torch.no_grad()
def evaluate_discrete(
    model: Transformer, pool: MapPool, n: int, n_eval: int, seed: int, multi_shots: tuple[int, ...] = (1, 2)
) -> dict:
    """Per-prompt accuracies of ICL (n-shot, 1-shot), zero-shot, TV and TaskV-M for every task type.

    The TV of a prompt is extracted from a separate n-shot prompt of the same task and map at the query arrow;
    the injection layer is chosen on validation prompts (per-layer accuracies are returned as well). Prompts are
    drawn on the CPU and moved to the model's device.
    """
    check_int("n", n, low=1)
    _check_gpt(model, n)
    if model.n_layers < 2:
        raise ValueError(
            f"model must have >= 2 layers (a block whose output feeds another), got {model.n_layers}"
        )
    _check_pool(pool)
    check_int("n_eval", n_eval, low=1)
    check_int("seed", seed, low=0)
    if not isinstance(multi_shots, (tuple, list)):
        raise TypeError(f"multi_shots must be a tuple of ints, got {type(multi_shots).__name__}")
    for shots in multi_shots:
        top = (model.seq_len - 2) // 4
        check_int(f"multi_shots entry (shots whose prompts fit seq_len {model.seq_len})", shots, 1, top)
    device = next(model.parameters()).device

    def draw(*args, **kwargs) -> tuple[Tensor, Tensor, np.ndarray]:
        toks, ans, ks = map_prompts(*args, **kwargs)
        return toks.to(device), ans.to(device), ks

    model.eval()
    layers = list(range(model.n_layers - 1))
    out: dict = {"per_layer": {}, "acc": {}, "multi": {}}
    # layer choice on validation prompts (all task types)
    val = {lay: [] for lay in layers}
    for ti, task in enumerate(TASK_TYPES):
        src, _, ks = draw(pool, task, n, n_eval, seed * 7919 + 100 + ti)
        qry, ans, _ = draw(pool, task, 0, n_eval, seed * 7919 + 200 + ti, k=ks)
        for lay in layers:
            tv = extract(model, src, lay, pos=-1)
            val[lay].append(_acc(inject(model, qry, tv, lay, pos=1), ans).mean())
    out["per_layer"] = {lay: float(np.mean(v)) for lay, v in val.items()}
    best = max(layers, key=lambda lay: out["per_layer"][lay])
    out["layer"] = best
    for ti, task in enumerate(TASK_TYPES):
        base = seed * 7919 + 1000 + 10 * ti
        icl, ans, ks = draw(pool, task, n, n_eval, base)
        src, _, _ = draw(pool, task, n, n_eval, base + 1, k=ks)
        zero = torch.stack([icl[:, -2], icl[:, -1]], 1)
        one = torch.cat([draw(pool, task, 1, n_eval, base + 2, k=ks)[0][:, :4], zero], 1)
        tv = extract(model, src, best, pos=-1)
        acc = {
            "icl": _acc(model(icl), ans),
            "icl1": _acc(model(one), ans),
            "zero": _acc(model(zero), ans),
            "tv": _acc(inject(model, zero, tv, best, pos=1), ans),
        }
        out["acc"][task] = acc
        for shots in multi_shots:
            few = torch.cat([draw(pool, task, shots, n_eval, base + 3 + shots, k=ks)[0][:, :-2], zero], 1)
            taus = [
                extract(
                    model,
                    draw(pool, task, n, n_eval, base + 50 + 10 * shots + j, k=ks)[0],
                    best,
                    pos=-1,
                )
                for j in range(shots + 1)
            ]
            arrows = [4 * i + 1 for i in range(shots)] + [4 * shots + 1]
            out["multi"][(task, shots)] = {
                "icl": float(_acc(model(few), ans).mean()),
                "taskv_m": float(_acc(multi_inject(model, few, taus, best, arrows), ans).mean()),
            }
    return out
