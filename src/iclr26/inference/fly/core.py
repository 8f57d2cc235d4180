"""FLy's two-tier verification rule, its decoding adapter and the prompt-lookup (n-gram) drafter level.

* :func:`verify` is the pure tensor rule: exact match, then a mismatch is forgiven when the target is uncertain
  there (top-k entropy >= theta) AND the next ``window - 1`` drafted tokens all match exactly.
* :func:`generate` plugs :func:`verify` into the shared draft-then-verify loop
  :func:`iclr26.lab.speculative.speculative_decode` as its verifier callable and counts FLy's statistics.
* :func:`ngram_propose` and :class:`NgramDrafter` add the second, lossless speculative level on the drafter side.
"""

from __future__ import annotations

import inspect
import time
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from iclr26.checks import check_bool, check_float, check_int, check_logits, check_tensor, check_token_ids
from iclr26.lab.speculative import check_verifier_inputs, crop_cache, speculative_decode

__all__ = ["FlyStats", "FlyVerifier", "NgramDrafter", "generate", "ngram_propose", "top_k_entropy", "verify"]


def _check_logits(name: str, logits: Tensor) -> None:
    check_tensor(name, logits, floating=True)
    if logits.ndim < 1 or logits.shape[-1] < 1:
        raise ValueError(f"{name} must be (..., V) logits with V >= 1, got shape {tuple(logits.shape)}")
    if bool(logits.isnan().any()):
        raise ValueError(f"{name} must hold no NaN")


def top_k_entropy(logits: Tensor, k: int = 3) -> Tensor:
    """-sum over the k most likely tokens of p log p, with p the full softmax (not renormalised over the k)."""
    _check_logits("logits", logits)
    check_int("k", k, low=1)
    probs = torch.softmax(logits.double(), dim=-1)
    top = probs.topk(min(k, probs.shape[-1]), dim=-1).values
    return -(top * torch.log(top.clamp_min(1e-300))).sum(-1)


def verify(
    target_logits: Tensor,
    draft_ids: Tensor,
    window: int | None = 6,
    entropy_threshold: float = 0.3,
    topk_entropy: int = 3,
    *,
    use_gate: bool = True,
    use_window: bool = True,
    truncate: bool = True,
) -> tuple[Tensor, Tensor]:
    """FLy's loose acceptance of ``draft_ids`` (B, K) given the target's logits (B, K, V) at those positions.

    ``a_i = [argmax z_i == d_i]``; a mismatch at ``i`` passes the window test iff ``a_{i+1..i+W-1}`` are all 1,
    which is only checked for ``i < K - W`` (the last ``W`` positions keep plain exact match); it passes the
    entropy gate iff ``H_i >= entropy_threshold`` with ``H_i`` the top-``topk_entropy`` entropy of the target.
    ``acc_i = (a_i or window_ok_i) and gate_ok_i``. ``window=None`` disables the window (exact match, lossless).
    Ablations: ``use_window=False`` accepts every mismatch the gate lets through; ``use_gate=False`` drops the
    gate. With ``truncate`` (default) the mask is cut to the longest accepted prefix (what decoding emits).
    Returns ``(accepted_mask (B, K) bool, recovered_ids (B, K) = argmax z_i)``.
    """
    if not isinstance(target_logits, Tensor) or target_logits.ndim != 3:
        raise ValueError(
            f"target_logits must be a (B, K, V) tensor, got shape {getattr(target_logits, 'shape', None)}"
        )
    if not isinstance(draft_ids, Tensor) or draft_ids.ndim != 2:
        raise ValueError(f"draft_ids must be a (B, K) tensor, got shape {getattr(draft_ids, 'shape', None)}")
    if draft_ids.dtype.is_floating_point or draft_ids.dtype == torch.bool:
        raise TypeError(f"draft_ids must hold integer token ids, got dtype {draft_ids.dtype}")
    if tuple(draft_ids.shape) != tuple(target_logits.shape[:2]):
        raise ValueError(
            f"draft_ids shape {tuple(draft_ids.shape)} must equal target_logits' first two dims "
            f"{tuple(target_logits.shape[:2])}"
        )
    _check_logits("target_logits", target_logits)
    check_logits("target_logits", target_logits)  # a +inf logit would make its token's acceptance meaningless
    check_token_ids("draft_ids", draft_ids, target_logits.shape[-1])
    if window is not None:
        check_int("window", window, low=2)
    theta = check_float("entropy_threshold", entropy_threshold, low=0.0)
    check_int("topk_entropy", topk_entropy, low=1)
    b, k = draft_ids.shape
    recovered = target_logits.argmax(-1)
    match = recovered == draft_ids.to(recovered.device)
    if k == 0:
        return match, recovered
    gate_ok = (
        match | (top_k_entropy(target_logits, topk_entropy) >= theta) if use_gate else torch.ones_like(match)
    )
    if not use_window:
        acc = gate_ok.clone()
    else:
        window_ok = torch.zeros_like(match)
        if window is not None:
            for i in range(k - window):  # positions K-W .. K-1 cannot see a full window: exact match only
                window_ok[:, i] = ~match[:, i] & match[:, i + 1 : i + window].all(-1)
        acc = (match | window_ok) & gate_ok
    if truncate:
        acc = acc.long().cumprod(-1).bool()
    return acc, recovered


@dataclass
class FlyStats:
    """Counts of one :func:`generate` call (the shared loop's counts plus FLy's own)."""

    draft_rounds: int = 0
    target_forwards: int = 0
    draft_forwards: int = 0
    drafter_model_forwards: int = 0
    drafted: int = 0
    accepted: int = 0
    emitted: int = 0
    mismatches: int = 0
    mismatches_forgiven: int = 0
    wall_time: float = 0.0

    def __post_init__(self) -> None:
        for name in (
            "draft_rounds",
            "target_forwards",
            "draft_forwards",
            "drafter_model_forwards",
            "drafted",
            "accepted",
            "emitted",
            "mismatches",
            "mismatches_forgiven",
        ):
            check_int(name, getattr(self, name), low=0)
        check_float("wall_time", self.wall_time, low=0.0)

    @property
    def acceptance_length(self) -> float:
        """Tokens emitted per target forward (tau)."""
        return self.emitted / self.target_forwards if self.target_forwards else 0.0


class FlyVerifier:
    """:func:`verify` as a verifier callable of :func:`iclr26.lab.speculative.speculative_decode`.

    Counts every mismatch the loop meets: each is either forgiven (inside the accepted prefix) or ends the round.
    """

    def __init__(
        self,
        window: int | None = 6,
        entropy_threshold: float = 0.3,
        topk_entropy: int = 3,
        use_gate: bool = True,
        use_window: bool = True,
    ) -> None:
        if window is not None:
            check_int("window", window, low=2)
        self.kw = dict(
            window=window,
            entropy_threshold=check_float("entropy_threshold", entropy_threshold, low=0.0),
            topk_entropy=check_int("topk_entropy", topk_entropy, low=1),
            use_gate=check_bool("use_gate", use_gate),
            use_window=check_bool("use_window", use_window),
        )
        self.mismatches = 0
        self.forgiven = 0
        self.forgiven_positions: list[tuple[int, int]] = []  # (drafted id, target's id) of each forgiven one

    def __call__(
        self, target_logits: Tensor, draft_logits: Tensor, draft_ids: Tensor, generator: torch.Generator
    ) -> tuple[int, int]:
        k = check_verifier_inputs(target_logits, draft_logits, draft_ids)
        acc, rec = verify(target_logits[None, :k], draft_ids[None].long(), **self.kw)
        n = int(acc[0].sum())
        match = (rec[0] == draft_ids).tolist()
        for i in range(n):
            if not match[i]:
                self.forgiven += 1
                self.forgiven_positions.append((int(draft_ids[i]), int(rec[0, i])))
        self.mismatches += sum(1 for i in range(min(n + 1, k)) if not match[i])
        nxt = int(rec[0, n]) if n < k else int(target_logits[k].argmax())
        return n, nxt


def ngram_propose(context_ids: Tensor | list[int], max_ngram: int = 4, num_pred: int = 6) -> list[int]:
    """Prompt lookup: the tokens that followed the latest earlier occurrence of the longest suffix n-gram.

    Tries n = ``max_ngram`` down to 1; returns up to ``num_pred`` tokens, or ``[]`` when no suffix recurs.

    >>> ngram_propose([5, 6, 7, 8, 9, 5, 6, 7], max_ngram=3, num_pred=2)
    [8, 9]
    """
    if isinstance(context_ids, Tensor):
        if context_ids.ndim == 2 and context_ids.shape[0] == 1:
            context_ids = context_ids[0]
        if context_ids.ndim != 1:
            raise ValueError(f"context_ids must be 1-D (or (1, n)), got shape {tuple(context_ids.shape)}")
        check_tensor("context_ids", context_ids, floating=False)
        context_ids = context_ids.tolist()
    elif not isinstance(context_ids, (list, tuple)):
        raise TypeError(f"context_ids must be a tensor or a list of ints, got {type(context_ids).__name__}")
    else:
        for i, t in enumerate(context_ids):
            check_int(f"context_ids[{i}]", t)
    check_int("max_ngram", max_ngram, low=1)
    check_int("num_pred", num_pred, low=1)
    seq = list(context_ids)
    n_tok = len(seq)
    for n in range(min(max_ngram, n_tok - 1), 0, -1):
        suffix = seq[n_tok - n :]
        for start in range(n_tok - n - 1, -1, -1):  # latest earlier occurrence first
            if seq[start : start + n] == suffix:
                follow = seq[start + n : start + n + num_pred]
                if follow:
                    return follow
    return []


class _Out(dict):
    """The part of a Hugging Face model output that the shared loop reads."""

    @property
    def logits(self) -> Tensor:
        return self["logits"]


class _LookaheadCache:
    """The logical KV cache of :class:`NgramDrafter`: the real cache may hold verified look-ahead tokens beyond it."""

    def __init__(self) -> None:
        self.inner: object | None = None
        self.seq: list[int] = []
        self.ahead: list[tuple[int, Tensor]] = []  # (token, drafter logits after it), drafter-greedy-verified

    def get_seq_length(self) -> int:
        return len(self.seq)

    def crop(self, count: int) -> None:
        new = count if count >= 0 else len(self.seq) + count
        self.seq = self.seq[: max(new, 0)]
        self.ahead = []
        if self.inner is not None:
            crop_cache(self.inner, len(self.seq))


class NgramDrafter(nn.Module):
    """A drafter model sped up by prompt lookup, usable wherever the shared loop expects a causal LM.

    When fed new context, it also appends the :func:`ngram_propose` guess and runs the real drafter over both in
    one forward; the guessed tokens the drafter itself would pick greedily are kept as look-ahead, so that the
    following single-token feeds of those tokens cost no drafter forward. The greedy draft is unchanged.
    """

    def __init__(self, model: nn.Module, max_ngram: int = 4, num_pred: int = 6) -> None:
        super().__init__()
        _check_causal_lm(model, "model")
        self.model = model
        self.config = model.config
        self.max_ngram = check_int("max_ngram", max_ngram, low=1)
        self.num_pred = check_int("num_pred", num_pred, low=1)
        self.model_forwards = 0
        self.lookahead_hits = 0
        params = inspect.signature(model.forward).parameters
        self._cache_arg = "cache" if "cache" in params else "past_key_values"

    def get_output_embeddings(self) -> nn.Module:
        return self.model.get_output_embeddings()

    @torch.no_grad()
    def forward(self, input_ids: Tensor, use_cache: bool = True, past_key_values: object = None) -> _Out:
        check_tensor("input_ids", input_ids, ndim=2, floating=False)
        if input_ids.shape[0] != 1:
            raise ValueError(
                f"input_ids must be one row (1, n) of token ids, got shape {tuple(input_ids.shape)}"
            )
        config = self.config
        vocab = config.get("vocab_size") if isinstance(config, dict) else getattr(config, "vocab_size", None)
        if isinstance(vocab, int):
            check_token_ids("input_ids", input_ids, vocab)
        cache = past_key_values if isinstance(past_key_values, _LookaheadCache) else _LookaheadCache()
        new = input_ids[0].tolist()
        if len(new) == 1 and cache.ahead and cache.ahead[0][0] == new[0]:
            tok, row = cache.ahead.pop(0)
            cache.seq.append(tok)
            self.lookahead_hits += 1
            return _Out(logits=row[None, None], past_key_values=cache)
        cache.ahead = []
        if cache.inner is not None:
            crop_cache(cache.inner, len(cache.seq))
        guess = ngram_propose(cache.seq + new, self.max_ngram, self.num_pred)
        ids = torch.tensor([new + guess], dtype=input_ids.dtype, device=input_ids.device)
        out = self.model(ids, use_cache=True, **{self._cache_arg: cache.inner})
        self.model_forwards += 1
        cache.inner = out.get("cache", None) or out.get("past_key_values", None)
        logits = out.logits[0]
        m = len(new)
        kept = 0
        while kept < len(guess) and int(logits[m - 1 + kept].argmax()) == guess[kept]:
            cache.ahead.append((guess[kept], logits[m + kept]))
            kept += 1
        crop_cache(cache.inner, len(cache.seq) + m + kept)
        cache.seq.extend(new)
        return _Out(logits=logits[None, :m], past_key_values=cache)


def _check_causal_lm(model: object, name: str) -> None:
    if not isinstance(model, nn.Module) or not hasattr(model, "config"):
        raise TypeError(
            f"{name} must be a Hugging Face causal LM (nn.Module with .config), got {type(model)}"
        )
    can_generate = getattr(model, "can_generate", None)
    if getattr(model.config, "is_encoder_decoder", False) or (callable(can_generate) and not can_generate()):
        raise ValueError(f"{name} must be a causal (decoder-only) LM, got {type(model).__name__}")


def generate(
    target: nn.Module,
    drafter: nn.Module,
    input_ids: Tensor,
    max_new_tokens: int,
    k: int = 15,
    window: int | None = 6,
    entropy_threshold: float = 0.3,
    ngram_drafter: bool = True,
    return_stats: bool = True,
    *,
    topk_entropy: int = 3,
    use_gate: bool = True,
    use_window: bool = True,
    max_ngram: int = 4,
    num_ngram_pred: int = 6,
    eos_token_id: int | None = None,
    verifier: FlyVerifier | None = None,
) -> Tensor | tuple[Tensor, FlyStats]:
    """Greedy FLy decoding of up to ``max_new_tokens`` after ``input_ids`` (1, n); batch size 1.

    ``window=None`` turns FLy into exact-match speculative decoding (token-identical to target greedy).
    ``verifier``: a fresh :class:`FlyVerifier` to decode with (e.g. a case of the component registry), used
    instead of the one built from ``window``, ``entropy_threshold``, ``topk_entropy``, ``use_gate`` and
    ``use_window``; its counters feed the returned stats.
    Returns ``ids`` (1, n + emitted), and :class:`FlyStats` when ``return_stats``.
    """
    _check_causal_lm(target, "target")
    _check_causal_lm(drafter, "drafter")
    if not isinstance(input_ids, Tensor) or input_ids.ndim != 2:
        raise ValueError(f"input_ids must be a (1, n) tensor, got shape {getattr(input_ids, 'shape', None)}")
    if input_ids.shape[0] != 1:
        raise ValueError(
            f"input_ids: batch size must be 1 (batched FLy is not supported), got {input_ids.shape[0]}"
        )
    check_int("max_new_tokens", max_new_tokens, low=1)
    check_int("k", k, low=1)
    v_t = int(target.get_output_embeddings().weight.shape[0])
    v_d = int(drafter.get_output_embeddings().weight.shape[0])
    if v_t != v_d:
        raise ValueError(
            f"drafter must share the target's tokenizer/vocabulary, got vocab sizes {v_d} vs {v_t}"
        )
    if verifier is None:
        verifier = FlyVerifier(window, entropy_threshold, topk_entropy, use_gate, use_window)
    elif not isinstance(verifier, FlyVerifier):
        raise TypeError(f"verifier must be a FlyVerifier or None, got {type(verifier).__name__}")
    draft_model = NgramDrafter(drafter, max_ngram, num_ngram_pred) if ngram_drafter else drafter
    t0 = time.perf_counter()
    ids, st = speculative_decode(
        target,
        draft_model,
        input_ids,
        verifier,
        gamma=k,
        max_new_tokens=max_new_tokens,
        eos_token_id=eos_token_id,
    )
    stats = FlyStats(
        draft_rounds=st.draft_rounds,
        target_forwards=st.target_forwards,
        draft_forwards=st.draft_forwards,
        drafter_model_forwards=draft_model.model_forwards if ngram_drafter else st.draft_forwards,
        drafted=st.drafted,
        accepted=st.accepted,
        emitted=st.emitted,
        mismatches=verifier.mismatches,
        mismatches_forgiven=verifier.forgiven,
        wall_time=time.perf_counter() - t0,
    )
    return (ids, stats) if return_stats else ids
