"""The ENS detector (OpenReview iZ7i2y1YxO): aggregated green counts over n keys, a one-sided z-test.

For scored token x_t with context c_t (the previous h ids) and layer j, g_{t,j} = 1[x_t is among the last
m = round(gamma_g V) tokens of pi_{k_j(c_t)}]. Under H0 (text independent of the keys) each g is
Bernoulli(p0 = m / V), independent across layers, so with S = sum_{t,j} g_{t,j} over T scored tokens

    z = (S - n T p0) / sqrt(n T p0 (1 - p0)),     p-value = 1 - Phi(z).

Repeated (context, token) pairs within one text are scored once. Only token ids and secrets are needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import torch
from scipy.stats import norm

from iclr26.checks import check_float, check_int
from iclr26.inference.ens_watermark.keys import KeyedPermutations, green_list_size, validate_secrets

__all__ = ["DetectionResult", "ENSDetector"]


class DetectionResult(NamedTuple):
    """z-score, one-sided p-value and the green count of each key (array of length n)."""

    z: float
    p_value: float
    per_key_counts: np.ndarray


class ENSDetector:
    """Key-holder detector for ENS (and, with one key, DiPmark, gamma-reweight and KGW).

    Parameters
    ----------
    secret_keys : list of bytes
        The same secrets, in any order, as the generating processor.
    vocab_size : int
        V, the length of the model's score vector (``scores.shape[-1]`` in the processor).
    gamma_g : float
        Green fraction in (0, 1); 0.5 as in DiPmark.
    context_width : int
        h, as in the processor.
    dedup : bool
        Score each (context, token) pair once per text.

    Example
    -------
    >>> import numpy as np
    >>> det = ENSDetector([b"a", b"b"], vocab_size=50)
    >>> res = det.score(np.random.default_rng(0).integers(0, 50, size=40))
    >>> res.per_key_counts.shape, -5 < res.z < 5
    ((2,), True)
    """

    def __init__(
        self,
        secret_keys: Sequence[bytes],
        vocab_size: int,
        gamma_g: float = 0.5,
        context_width: int = 1,
        dedup: bool = True,
        cache_size: int = 8192,
    ) -> None:
        secrets = validate_secrets(secret_keys)
        check_int("vocab_size", vocab_size, low=2)
        check_float("gamma_g", gamma_g, 0.0, 1.0, low_open=True, high_open=True)
        check_int("context_width", context_width, low=1)
        self.vocab_size = vocab_size
        self.gamma_g = float(gamma_g)
        self.context_width = context_width
        self.dedup = bool(dedup)
        self.n_green = green_list_size(vocab_size, self.gamma_g)
        self.p0 = self.n_green / vocab_size
        self._keys = KeyedPermutations(secrets, vocab_size, cache_size)

    @property
    def n_keys(self) -> int:
        """n, the number of keys aggregated."""
        return self._keys.n_keys

    def __repr__(self) -> str:
        return (
            f"ENSDetector(n_keys={self.n_keys}, vocab_size={self.vocab_size}, gamma_g={self.gamma_g}, "
            f"context_width={self.context_width})"
        )

    def _as_ids(self, ids: object) -> np.ndarray:
        arr = ids.detach().cpu().numpy() if isinstance(ids, torch.Tensor) else np.asarray(ids)
        if arr.ndim == 2 and arr.shape[0] == 1:
            arr = arr[0]
        if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"ids must be a 1-D sequence of integer token ids, got shape {arr.shape}")
        if arr.size and (arr.min() < 0 or arr.max() >= self.vocab_size):
            raise ValueError(
                f"ids contain token ids outside [0, vocab_size={self.vocab_size}): min {arr.min()}, max {arr.max()}"
            )
        return arr.astype(np.int64)

    def green_matrix(self, ids: object, start: int | None = None) -> np.ndarray:
        """Green indicators g (T_scored, n) as bool for the tokens ``ids[start:]`` (default start = h).

        Tokens before `start` only serve as context (e.g. the prompt). Repeated (context, token) pairs are
        dropped when ``dedup`` is on, so T_scored can be smaller than ``len(ids) - start``.
        """
        arr = self._as_ids(ids)
        h = self.context_width
        start = h if start is None else start
        check_int("start (at least context_width)", start, low=h)
        seen: set[tuple[int, ...]] = set()
        rows = []
        cut = self.vocab_size - self.n_green
        for t in range(start, arr.size):
            ctx = tuple(arr[t - h : t].tolist())
            tok = int(arr[t])
            if self.dedup:
                pair = (*ctx, tok)
                if pair in seen:
                    continue
                seen.add(pair)
            rows.append([self._keys.ranks(j, ctx)[tok] >= cut for j in range(self.n_keys)])
        return np.asarray(rows, dtype=bool).reshape(len(rows), self.n_keys)

    def z_from_counts(self, green: int | np.ndarray, n_tokens: int | np.ndarray) -> np.ndarray:
        """z = (S - n T p0) / sqrt(n T p0 (1 - p0)) for green totals S over T tokens (vectorised)."""
        trials = self.n_keys * np.asarray(n_tokens, dtype=float)
        with np.errstate(invalid="ignore", divide="ignore"):
            z = (np.asarray(green, dtype=float) - trials * self.p0) / np.sqrt(
                trials * self.p0 * (1 - self.p0)
            )
        return np.where(trials > 0, z, 0.0)

    def prefix_z(self, ids: object, start: int | None = None) -> np.ndarray:
        """z after each scored token: entry T-1 is the z-score of the first T scored tokens."""
        g = self.green_matrix(ids, start)
        return self.z_from_counts(np.cumsum(g.sum(1)), np.arange(1, len(g) + 1))

    def score(self, ids: object, start: int | None = None) -> DetectionResult:
        """Detect from token ids alone: ``(z, p_value, per_key_counts)``.

        `ids` is one text: a 1-D sequence of token ids, or a (1, T) batch of one. A text with no token after `start` carries no evidence either way, so it is an error rather than z = 0.
        """
        g = self.green_matrix(ids, start)
        if not len(g):
            n = self._as_ids(ids).size
            first = self.context_width if start is None else start
            raise ValueError(
                f"ids has {n} tokens and scoring starts at start={first}, so no token is scored: "
                f"give at least {first + 1} tokens (or a smaller start, >= context_width={self.context_width})"
            )
        z = float(self.z_from_counts(int(g.sum()), len(g)))
        return DetectionResult(z, float(norm.sf(z)), g.sum(0).astype(np.int64))
