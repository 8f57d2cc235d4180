"""Secret keys -> per-context pseudo-random vocabulary permutations (ENS, OpenReview iZ7i2y1YxO).

For layer j and the previous h token ids c = (x_{t-h}, ..., x_{t-1}), the key is
k_j(c) = first 63 bits of SHA-256(secret_j || c as little-endian int64), used as the seed of a CPU
``torch.Generator`` that draws pi_{k_j(c)} = ``randperm(V)``. Same secret and context give the same
permutation; distinct secrets give (pseudo-)independent permutations.

The secrets themselves never appear in a ``repr``, an error message or a returned value.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np
import torch

from iclr26.checks import check_int

__all__ = ["KeyedPermutations", "context_seed", "green_list_size", "keyed_permutation", "validate_secrets"]


def validate_secrets(secret_keys: Sequence[bytes], name: str = "secret_keys") -> tuple[bytes, ...]:
    """Check a list of secrets: non-empty, each non-empty ``bytes``, all distinct (independence needs it)."""
    if isinstance(secret_keys, (bytes, bytearray, str)) or not isinstance(secret_keys, Sequence):
        raise TypeError(f"{name} must be a list of bytes objects, got {type(secret_keys).__name__}")
    if len(secret_keys) == 0:
        raise ValueError(f"{name} is empty: need at least one secret key")
    out = []
    for i, s in enumerate(secret_keys):
        if not isinstance(s, (bytes, bytearray)):
            raise TypeError(f"{name}[{i}] must be bytes, got {type(s).__name__}")
        if len(s) == 0:
            raise ValueError(f"{name}[{i}] is an empty secret")
        out.append(bytes(s))
    if len(set(out)) != len(out):
        raise ValueError(
            f"{name} contains duplicate secrets: repeated keys give identical permutations, which breaks the "
            "independence that ENS unbiasedness and the detector's null distribution rely on"
        )
    return tuple(out)


def context_seed(secret: bytes, context: Sequence[int]) -> int:
    """63-bit seed from SHA-256 of the secret and the context token ids (little-endian int64)."""
    payload = np.asarray(list(context), dtype="<i8").tobytes()
    digest = hashlib.sha256(secret + b"|" + payload).digest()
    return int.from_bytes(digest[:8], "little") & 0x7FFF_FFFF_FFFF_FFFF


def keyed_permutation(secret: bytes, context: Sequence[int], vocab_size: int) -> torch.Tensor:
    """The permutation pi_k of ``range(vocab_size)`` (int64, CPU) for a secret and a context."""
    gen = torch.Generator().manual_seed(context_seed(secret, context))
    return torch.randperm(vocab_size, generator=gen)


class KeyedPermutations:
    """Permutations and green-list positions for n secrets, with a bounded LRU cache per (layer, context).

    Parameters
    ----------
    secret_keys : list of bytes
        One distinct secret per ENS layer.
    vocab_size : int
    cache_size : int
        Contexts remembered (per all layers together); 0 disables the cache.
    """

    def __init__(self, secret_keys: Sequence[bytes], vocab_size: int, cache_size: int = 4096) -> None:
        self._secrets = validate_secrets(secret_keys)
        check_int("vocab_size", vocab_size, low=2)
        check_int("cache_size", cache_size, low=0)
        self.vocab_size = vocab_size
        self.cache_size = cache_size
        self._perm: OrderedDict[tuple, torch.Tensor] = OrderedDict()
        self._rank: OrderedDict[tuple, np.ndarray] = OrderedDict()

    @property
    def n_keys(self) -> int:
        """Number of layers (secrets)."""
        return len(self._secrets)

    def __repr__(self) -> str:
        return f"KeyedPermutations(n_keys={self.n_keys}, vocab_size={self.vocab_size})"

    def _remember(self, store: OrderedDict, key: tuple, value: object) -> None:
        if self.cache_size:
            store[key] = value
            if len(store) > self.cache_size:
                store.popitem(last=False)

    def permutation(self, layer: int, context: Sequence[int]) -> torch.Tensor:
        """pi for layer `layer` at `context` (a tuple of ints): ``perm[i]`` is the token at position i."""
        key = (layer, tuple(int(c) for c in context))
        hit = self._perm.get(key)
        if hit is not None:
            self._perm.move_to_end(key)
            return hit
        perm = keyed_permutation(self._secrets[layer], key[1], self.vocab_size)
        self._remember(self._perm, key, perm)
        return perm

    def ranks(self, layer: int, context: Sequence[int]) -> np.ndarray:
        """Inverse permutation: ``rank[token]`` = position of `token` in pi (int64 numpy)."""
        key = (layer, tuple(int(c) for c in context))
        hit = self._rank.get(key)
        if hit is not None:
            self._rank.move_to_end(key)
            return hit
        rank = np.empty(self.vocab_size, dtype=np.int64)
        rank[self.permutation(layer, key[1]).numpy()] = np.arange(self.vocab_size)
        self._remember(self._rank, key, rank)
        return rank


def green_list_size(vocab_size: int, gamma_g: float) -> int:
    """Number of green tokens: round(gamma_g * V), at least 1 and at most V - 1."""
    return min(max(int(round(gamma_g * vocab_size)), 1), vocab_size - 1)
