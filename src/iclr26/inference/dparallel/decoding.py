"""Semi-autoregressive decoding of a masked diffusion LM: fixed-step and threshold (parallel) commit rules.

dParallel (arXiv 2509.26488) decodes in blocks of ``block_size`` positions, left to right. Inside the current
block every model call predicts all masked positions at once (greedy: ``x_hat = argmax p``) and *commits* some
of them; the block is done when it holds no ``[MASK]``. The commit rules:

* fixed steps (LLaDA's low-confidence remasking): ``steps / n_blocks`` calls per block, each committing the
  ``k`` masked tokens of highest confidence ``max_v p(v)``, ``k`` spread evenly over the block's calls;
* entropy threshold (dParallel's decoder): the masked token of lowest entropy ``H = -sum_v p(v) log p(v)`` is
  always committed, and so is every other one with ``max(H, 0) < tau`` (strict; ``tau = 0`` gives one token
  per call; the official code uses ``H <= tau`` with a 1e-12 log offset);
* confidence threshold (Fast-dLLM style): the most confident token always, plus every one with
  ``max_v p(v) > c`` (strict; ``c = 1`` gives one token per call).

Probabilities are the float64 softmax of the logits with the ``[MASK]`` column removed (a committed token is
never ``[MASK]``). NFE counts model calls. Rows of a batch advance independently (a row that finished stops
being evaluated), so :func:`decode` reports a per-row NFE; :func:`generate` returns the batch's number of model
calls, which equals the per-row NFE for a single prompt.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from torch import Tensor

from iclr26.checks import check_int, check_tensor
from iclr26.lab.masked_diffusion import check_mask_id

__all__ = [
    "DecodeResult",
    "check_decode_args",
    "decode",
    "generate",
    "predictive_entropy",
    "resolve_mask_id",
    "transfer_schedule",
]


@dataclass
class DecodeResult:
    """Output of :func:`decode`.

    ids : (B, P + gen_len) prompt followed by the decoded tokens.
    nfe : (B,) model calls each row took until its last block was full.
    commits : per call, (B,) number of tokens committed (0 for rows already done).
    confidence : when recorded, per call a (B, gen_len) float tensor of ``max_v p(v)`` at each generated
        position (NaN where the position was already committed).
    """

    ids: Tensor
    nfe: Tensor
    commits: list[Tensor] = field(default_factory=list)
    confidence: list[Tensor] = field(default_factory=list)


def resolve_mask_id(model: object, mask_id: int | None) -> int:
    """The ``[MASK]`` id to use: the argument if given, else ``model.mask_id``."""
    if mask_id is None:
        mask_id = getattr(model, "mask_id", None)
        if mask_id is None:
            raise ValueError("mask_id must be given when the model has no mask_id attribute")
    return check_int("mask_id", mask_id, low=0)


def check_decode_args(
    gen_len: int,
    block_size: int,
    steps: int | None,
    entropy_threshold: float | None,
    confidence_threshold: float | None,
) -> int:
    """Validate the decoding arguments; return the number of blocks."""
    check_int("gen_len", gen_len, low=1)
    check_int("block_size", block_size, low=1)
    if gen_len % block_size:
        raise ValueError(f"gen_len ({gen_len}) must be divisible by block_size ({block_size})")
    n_blocks = gen_len // block_size
    if steps is not None:
        check_int("steps", steps, low=1)
        if steps % n_blocks:
            raise ValueError(f"steps ({steps}) must be divisible by the number of blocks ({n_blocks})")
        if steps > gen_len:
            raise ValueError(f"steps ({steps}) must be <= gen_len ({gen_len})")
    if entropy_threshold is not None and confidence_threshold is not None:
        raise ValueError("give at most one of entropy_threshold and confidence_threshold")
    if entropy_threshold is not None and not (float(entropy_threshold) >= 0.0):
        raise ValueError(f"entropy_threshold (tau) must be >= 0, got {entropy_threshold!r}")
    if confidence_threshold is not None and not (0.0 <= float(confidence_threshold) <= 1.0):
        raise ValueError(f"confidence_threshold must lie in [0, 1], got {confidence_threshold!r}")
    return n_blocks


def predictive_entropy(logits: Tensor) -> Tensor:
    """Entropy of ``softmax(logits)`` over the last axis in float64, clamped at >= 0 (exactly 0 for one-hots)."""
    check_tensor("logits", logits, floating=True)
    logp = torch.log_softmax(logits.double(), dim=-1)
    p = logp.exp()
    # 0 log 0 = 0, written so that a NaN (from a NaN or +inf logit) stays NaN instead of becoming a silent 0
    h = -(torch.where(p == 0, torch.zeros_like(p), p * logp)).sum(-1)
    return h.clamp_min(0.0)


def transfer_schedule(n_masked: int, steps: int) -> list[int]:
    """Tokens to commit at each of ``steps`` calls: ``n_masked`` spread evenly, remainder to the first calls."""
    base, rem = divmod(n_masked, steps)
    return [base + (1 if i < rem else 0) for i in range(steps)]


@torch.no_grad()
def decode(
    model: torch.nn.Module,
    prompt_ids: Tensor,
    gen_len: int,
    block_size: int,
    steps: int | None = None,
    entropy_threshold: float | None = None,
    confidence_threshold: float | None = None,
    *,
    mask_id: int | None = None,
    record: bool = False,
) -> DecodeResult:
    """Decode ``gen_len`` tokens after ``prompt_ids`` (B, P) with one of the commit rules (module docstring).

    Threshold decoding is used when a threshold is given (``steps`` is then only validated, as in the official
    code); otherwise ``steps`` fixed calls (default ``gen_len``: one token per call). Runs on the device of
    ``prompt_ids`` (the model must be there too); the result's tensors stay on it.
    """
    mask_id = resolve_mask_id(model, mask_id)
    n_blocks = check_decode_args(gen_len, block_size, steps, entropy_threshold, confidence_threshold)
    check_mask_id(prompt_ids, mask_id, "prompt_ids")
    threshold_mode = entropy_threshold is not None or confidence_threshold is not None
    steps = gen_len if steps is None else steps
    per_block = transfer_schedule(block_size, steps // n_blocks)
    b, p = prompt_ids.shape
    dev = prompt_ids.device  # every tensor of the loop lives where the prompts (and the model) are
    x = torch.cat([prompt_ids, torch.full((b, gen_len), mask_id, dtype=prompt_ids.dtype, device=dev)], dim=1)
    nfe = torch.zeros(b, dtype=torch.long, device=dev)
    calls_in_block = torch.zeros(b, dtype=torch.long, device=dev)
    per_block_t = torch.tensor(per_block, dtype=torch.long, device=dev)
    result = DecodeResult(x, nfe)
    pos = torch.arange(gen_len, device=dev)
    while True:
        gen = x[:, p:]
        masked = gen == mask_id
        active = masked.any(1)
        if not bool(active.any()):
            break
        rows = active.nonzero().squeeze(1)
        logits = model(x[rows])[:, p:].double()
        logits[..., mask_id] = -torch.inf
        probs = torch.softmax(logits, -1)
        conf, pred = probs.max(-1)
        m = masked[rows]
        block = torch.where(m, pos, gen_len).min(1).values // block_size  # current block of each row
        in_block = m & (pos[None] // block_size == block[:, None])
        commit = torch.zeros_like(in_block)
        if threshold_mode:
            if entropy_threshold is not None:
                score = predictive_entropy(logits)  # lower is more certain
                extra = score < float(entropy_threshold)
            else:
                score = -conf
                extra = conf > float(confidence_threshold)
            score = torch.where(in_block, score, torch.inf)
            best = score.argmin(1)
            commit[torch.arange(rows.numel(), device=dev), best] = True
            commit |= extra & in_block
        else:
            k = per_block_t[calls_in_block[rows]]
            ranked = torch.where(in_block, conf, -torch.inf).argsort(dim=1, descending=True, stable=True)
            rank = torch.empty_like(ranked).scatter_(1, ranked, pos.expand_as(ranked).contiguous())
            commit = (rank < k[:, None]) & in_block
        new_gen = torch.where(commit, pred, gen[rows])
        x[rows, p:] = new_gen
        nfe[rows] += 1
        block_done = ~((new_gen == mask_id) & in_block).any(1)
        calls_in_block[rows] = torch.where(block_done, 0, calls_in_block[rows] + 1)
        n_commit = torch.zeros(b, dtype=torch.long, device=dev)
        n_commit[rows] = commit.sum(1)
        result.commits.append(n_commit)
        if record:
            full = torch.full((b, gen_len), float("nan"), dtype=torch.float64, device=dev)
            full[rows] = torch.where(m, conf, torch.nan)
            result.confidence.append(full)
    result.ids = x
    return result


def generate(
    model: torch.nn.Module,
    prompt_ids: Tensor,
    gen_len: int,
    block_size: int,
    steps: int | None = None,
    entropy_threshold: float | None = None,
    confidence_threshold: float | None = None,
    mask_id: int | None = None,
) -> tuple[Tensor, int]:
    """Decode with :func:`decode`; return ``(ids (B, P + gen_len), nfe)`` with ``nfe`` the number of model calls.

    ``mask_id`` defaults to ``model.mask_id``. For one prompt, ``nfe`` is that prompt's NFE; for a batch it is
    the largest per-row NFE (use :func:`decode` for the per-row counts).

    Example
    -------
    >>> import torch
    >>> from iclr26.lab.masked_diffusion import MaskedDiffusionTransformer
    >>> m = MaskedDiffusionTransformer(n_tokens=5, seq_len=10, d_model=16, n_layers=1, n_heads=2, init_seed=0)
    >>> ids, nfe = generate(m, torch.zeros(1, 2, dtype=torch.long), gen_len=8, block_size=4)
    >>> ids.shape, nfe
    (torch.Size([1, 10]), 8)
    >>> _, nfe = generate(m, torch.zeros(1, 2, dtype=torch.long), 8, 4, entropy_threshold=10.0)
    >>> nfe
    2
    """
    out = decode(
        model,
        prompt_ids,
        gen_len,
        block_size,
        steps,
        entropy_threshold,
        confidence_threshold,
        mask_id=mask_id,
    )
    return out.ids, int(out.nfe.max()) if out.nfe.numel() else 0
