"""ENS and KGW as Hugging Face logits processors (ENS: OpenReview iZ7i2y1YxO, arXiv 2509.24043).

ENS_n: P^(0) = P, P^(j) = F(P^(j-1), k_j) for j = 1..n with k_j = hash(secret_j, last h tokens), and the
next token is sampled from P^(n). Each F is an unbiased reweight (DiPmark or gamma), so E_{k_1..k_n}[P^(n)] = P.

KGW (Kirchenbauer et al., 2023) adds delta to the logits of the green list (the last gamma fraction of the
keyed permutation, the same green list ENSDetector counts): biased, a detectability/quality reference.

HF's ``generate`` runs custom processors before its sampling warpers (temperature, top-k, top-p), so for the
unbiasedness guarantee sample with ``do_sample=True`` and leave those warpers off (temperature 1, top_k 0).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from transformers import LogitsProcessor

from iclr26.checks import check_float, check_int, check_tensor, check_token_ids
from iclr26.inference.ens_watermark.keys import KeyedPermutations, green_list_size, validate_secrets
from iclr26.inference.ens_watermark.reweight import DiPmarkReweight, GammaReweight

__all__ = ["BASES", "ENSLogitsProcessor", "KGWLogitsProcessor", "ens_distribution", "make_reweight"]

BASES = ("dipmark", "gamma")


def make_reweight(base: str, alpha: float = 0.45) -> DiPmarkReweight:
    """The base reweight by name: ``"dipmark"`` (uses `alpha`) or ``"gamma"`` (alpha = 0.5)."""
    if base == "dipmark":
        return DiPmarkReweight(alpha)
    if base == "gamma":
        return GammaReweight()
    raise ValueError(f"base must be one of {BASES}, got {base!r}")


def ens_distribution(
    probs: torch.Tensor, perms: Sequence[torch.Tensor], reweight: DiPmarkReweight
) -> torch.Tensor:
    """ENS_n(P): apply `reweight` once per permutation in `perms`, in order (the reference composition)."""
    out = probs
    for perm in perms:
        out = reweight.reweight(out, perm)
    return out


def _check_scores(input_ids: torch.Tensor, scores: torch.Tensor, vocab_size: int | None, width: int) -> None:
    check_tensor("input_ids", input_ids, floating=False)
    check_tensor("scores", scores, floating=True)
    if scores.dim() != 2 or input_ids.dim() != 2 or scores.shape[0] != input_ids.shape[0]:
        raise ValueError(
            f"expected input_ids (batch, seq) and scores (batch, V) with the same batch, got "
            f"{tuple(input_ids.shape)} and {tuple(scores.shape)}"
        )
    if vocab_size is not None and scores.shape[-1] != vocab_size:
        raise ValueError(
            f"vocab_size mismatch: the processor was built for vocab_size={vocab_size} but the model's scores "
            f"have {scores.shape[-1]} entries"
        )
    if input_ids.shape[1] < width:
        raise ValueError(
            f"input_ids has {input_ids.shape[1]} tokens, fewer than context_width={width}: give a longer prompt"
        )
    check_token_ids("input_ids", input_ids, scores.shape[-1])


class ENSLogitsProcessor(LogitsProcessor):
    """Ensemble of n unbiased watermarks with independent keys, as a HF ``LogitsProcessor``.

    Parameters
    ----------
    secret_keys : list of bytes
        One distinct secret per layer (n = len(secret_keys)).
    base : {"dipmark", "gamma"}
    alpha : float
        DiPmark's alpha in [0, 0.5] (ignored by "gamma").
    context_width : int
        h, the number of previous tokens hashed with each secret.
    vocab_size : int or None
        If given, scores whose last dimension differs raise ``ValueError``.
    cache_size : int
        Permutations remembered per (layer, context).

    Returns log P^(n) (``-inf`` where P^(n) is 0) in the dtype of the incoming scores; batch-aware.

    Example
    -------
    >>> import torch
    >>> proc = ENSLogitsProcessor([b"k1", b"k2"], vocab_size=8)
    >>> out = proc(torch.tensor([[3, 5]]), torch.zeros(1, 8))
    >>> round(float(out.exp().sum()), 6)
    1.0
    """

    def __init__(
        self,
        secret_keys: Sequence[bytes],
        base: str = "dipmark",
        alpha: float = 0.45,
        context_width: int = 1,
        vocab_size: int | None = None,
        cache_size: int = 4096,
    ) -> None:
        self._secrets = validate_secrets(secret_keys)
        self.base = base
        self.reweight = make_reweight(base, alpha)
        self.context_width = check_int("context_width", context_width, low=1)
        self.vocab_size = None if vocab_size is None else check_int("vocab_size", vocab_size, low=2)
        self.cache_size = check_int("cache_size", cache_size, low=0)
        self._keys: KeyedPermutations | None = None

    @property
    def n_keys(self) -> int:
        """n, the number of ensemble layers."""
        return len(self._secrets)

    def __repr__(self) -> str:
        return (
            f"ENSLogitsProcessor(n_keys={self.n_keys}, base={self.base!r}, alpha={self.reweight.alpha}, "
            f"context_width={self.context_width})"
        )

    def _perms(self, vocab: int) -> KeyedPermutations:
        if self._keys is None or self._keys.vocab_size != vocab:
            self._keys = KeyedPermutations(self._secrets, vocab, self.cache_size)
        return self._keys

    def distribution(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        """P^(n) in float64, shape (batch, V), for next-token `scores` after `input_ids`."""
        _check_scores(input_ids, scores, self.vocab_size, self.context_width)
        keys = self._perms(scores.shape[-1])
        probs = torch.softmax(scores.double(), dim=-1)
        ctx = input_ids[:, -self.context_width :].tolist()
        for layer in range(self.n_keys):
            perm = torch.stack([keys.permutation(layer, c) for c in ctx]).to(scores.device)
            probs = self.reweight.reweight(probs, perm)
        return probs

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        return torch.log(self.distribution(input_ids, scores)).to(scores.dtype)


class KGWLogitsProcessor(LogitsProcessor):
    """KGW red-green watermark (biased reference): +delta on the green list, the last `gamma` of pi.

    Detect it with ``ENSDetector([secret_key], vocab_size, gamma_g=gamma, context_width=...)``.
    """

    def __init__(
        self,
        secret_key: bytes,
        gamma: float = 0.5,
        delta: float = 2.0,
        context_width: int = 1,
        vocab_size: int | None = None,
    ) -> None:
        self._secrets = validate_secrets([secret_key], "secret_key")
        check_float("gamma", gamma, 0.0, 1.0, low_open=True, high_open=True)
        check_float("delta", delta, low=0.0, finite=False)
        self.gamma, self.delta = float(gamma), float(delta)
        self.context_width = check_int("context_width", context_width, low=1)
        self.vocab_size = None if vocab_size is None else check_int("vocab_size", vocab_size, low=2)
        self._keys: KeyedPermutations | None = None

    def __repr__(self) -> str:
        return (
            f"KGWLogitsProcessor(gamma={self.gamma}, delta={self.delta}, context_width={self.context_width})"
        )

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        _check_scores(input_ids, scores, self.vocab_size, self.context_width)
        vocab = scores.shape[-1]
        if self._keys is None or self._keys.vocab_size != vocab:
            self._keys = KeyedPermutations(self._secrets, vocab)
        n_green = green_list_size(vocab, self.gamma)
        bonus = torch.zeros_like(scores)
        for b, c in enumerate(input_ids[:, -self.context_width :].tolist()):
            green = self._keys.permutation(0, c)[vocab - n_green :].to(scores.device)
            bonus[b, green] = self.delta
        return scores + bonus
