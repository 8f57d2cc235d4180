"""SWAX: a decoder LM whose blocks alternate sliding-window attention and mLSTM mixers (arXiv 2509.24552).

The model is the lab's pre-LN :class:`iclr26.lab.transformer.Transformer` (GELU MLP after every mixer, no
absolute positions: RoPE lives inside the SWA layers and the mLSTM needs none), with the mixer of layer ``l``
chosen by ``pattern[l % len(pattern)]``: ``"S"`` a :class:`SlidingWindowAttention`, ``"M"`` an
:class:`MLSTMLayer`.
``pattern="SM"`` is the paper's 1:1 hybrid; ``"S"`` is a pure SWA transformer and ``"M"`` a pure mLSTM stack.

All SWA layers share one window (:meth:`SWAXModel.set_window`); with a ``window_sampler`` the training loop calls
:meth:`SWAXModel.sample_window` once per optimizer step. :meth:`SWAXModel.step` decodes token by token with a
key/value window cache per SWA layer and the (C, n, m) state per mLSTM layer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor, nn

from iclr26.attention.swax.mlstm import MLSTMLayer
from iclr26.attention.swax.swa import SlidingWindowAttention, check_window
from iclr26.checks import check_choice, check_float, check_int
from iclr26.lab.transformer import BlockSpec, ModuleFactory, Transformer

__all__ = ["SWAXModel", "check_pattern", "swax_mixer_factory"]


def check_pattern(pattern: object) -> str:
    """Return ``pattern`` if it is a non-empty string of ``S`` (SWA) and ``M`` (mLSTM) layers, else raise."""
    if not isinstance(pattern, str) or not pattern:
        raise ValueError(f"pattern must be a non-empty string of 'S' and 'M', got {pattern!r}")
    bad = sorted(set(pattern) - {"S", "M"})
    if bad:
        raise ValueError(f"pattern may only contain 'S' (SWA) and 'M' (mLSTM), got {pattern!r} with {bad}")
    return pattern


def swax_mixer_factory(
    pattern: str = "SM", window: int = 128, rope_theta: float | None = 10000.0, backend: str = "auto"
) -> ModuleFactory:
    """A Transformer mixer factory: layer ``l`` gets SWA if ``pattern[l % len(pattern)] == 'S'``, else mLSTM."""
    check_pattern(pattern)
    check_window(window)
    if rope_theta is not None:
        check_float("rope_theta", rope_theta, low=0.0, low_open=True)
    check_choice("backend", backend, ("auto", "dense", "flex"))

    def factory(spec: BlockSpec) -> nn.Module:
        if pattern[spec.layer % len(pattern)] == "S":
            return SlidingWindowAttention(spec.d_model, spec.n_heads, window, rope_theta, spec.bias, backend)
        return MLSTMLayer(spec.d_model, spec.n_heads, bias=spec.bias)

    return factory


class SWAXModel(nn.Module):
    """SWA/mLSTM hybrid language model over token ids (batch, seq) -> logits (batch, seq, vocab).

    Parameters
    ----------
    n_layers, d_model, heads : depth, width, heads per mixer (``d_model % heads == 0``).
    pattern : layer pattern cycled over the depth (``"SM"``: S M S M ...).
    window_sampler : optional callable ``step -> window`` used by :meth:`sample_window` during training.
    vocab_size : number of token ids.
    window : initial sliding window of every SWA layer.
    rope_theta : RoPE base of the SWA layers (``None`` disables RoPE).
    d_mlp : MLP width (default ``4 * d_model``).
    max_seq_len : longest sequence accepted (no position table is learned, so this is only a guard).
    init_seed : seed of the initial weights.

    Examples
    --------
    >>> import torch
    >>> model = SWAXModel(4, 16, 2, pattern="SM", vocab_size=11, window=4, init_seed=0)
    >>> model.layer_kinds
    ('S', 'M', 'S', 'M')
    >>> model(torch.zeros(2, 9, dtype=torch.long)).shape
    torch.Size([2, 9, 11])
    """

    def __init__(
        self,
        n_layers: int,
        d_model: int,
        heads: int,
        pattern: str = "SM",
        window_sampler: Callable[[int], int] | None = None,
        *,
        vocab_size: int,
        window: int = 128,
        rope_theta: float | None = 10000.0,
        d_mlp: int | None = None,
        max_seq_len: int = 1 << 16,
        init_seed: int | None = None,
        backend: str = "auto",
    ) -> None:
        super().__init__()
        check_pattern(pattern)
        check_int("heads", heads, low=1)
        check_int("d_model", d_model, low=1)
        if d_model % heads:
            raise ValueError(f"d_model={d_model} must be divisible by heads={heads}")
        if window_sampler is not None and not callable(window_sampler):
            raise TypeError(
                f"window_sampler must be callable step -> window, got {type(window_sampler).__name__}"
            )
        self.pattern, self.window_sampler = pattern, window_sampler
        self.net = Transformer(
            vocab_size,
            max_seq_len,
            d_model,
            n_layers,
            heads,
            d_mlp=d_mlp,
            positions="none",
            mixer=swax_mixer_factory(pattern, window, rope_theta, backend),
            init_seed=init_seed,
        )
        self.layer_kinds = tuple(pattern[i % len(pattern)] for i in range(n_layers))
        self.window = check_window(window)

    @property
    def swa_layers(self) -> list[SlidingWindowAttention]:
        """The SWA mixers, in depth order."""
        return [b.attn for b in self.net.blocks if isinstance(b.attn, SlidingWindowAttention)]

    def set_window(self, window: int) -> None:
        """Set the sliding window of every SWA layer."""
        self.window = check_window(window)
        for layer in self.swa_layers:
            layer.window = self.window

    def sample_window(self, step: int) -> int:
        """Draw the window of training step ``step`` from ``window_sampler``, set it, and return it."""
        if self.window_sampler is None:
            return self.window
        window = self.window_sampler(step)
        self.set_window(check_int(f"window_sampler({step!r})", window, low=1))
        return self.window

    def forward(self, tokens: Tensor) -> Tensor:
        """Logits (batch, seq, vocab) for token ids (batch, seq)."""
        return self.net(tokens)

    def init_state(self) -> list[Any]:
        """Empty decoding state: a KV window cache per SWA layer, ``None`` (empty memory) per mLSTM layer."""
        return [b.attn.init_cache() if k == "S" else None for b, k in zip(self.net.blocks, self.layer_kinds)]

    def step(self, tokens: Tensor, state: list[Any]) -> tuple[Tensor, list[Any]]:
        """Decode one position: token ids (batch,) -> logits (batch, vocab) and the new state."""
        if not isinstance(tokens, Tensor) or tokens.ndim != 1:
            raise ValueError(
                f"tokens must be a (batch,) tensor of ids, got {getattr(tokens, 'shape', tokens)}"
            )
        self.net.check_tokens(tokens)
        if not isinstance(state, list) or len(state) != len(self.layer_kinds):
            raise ValueError(
                f"state must be the list of init_state() (one entry per layer, {len(self.layer_kinds)}), "
                f"got {type(state).__name__} of length {len(state) if isinstance(state, list) else '-'}"
            )
        x = self.net.W_E[tokens]
        new_state = []
        for block, layer_state in zip(self.net.blocks, state):
            y, layer_state = block.attn.step(block.ln1(x), layer_state)
            x = x + y
            if block.mlp is not None:
                x = x + block.mlp(block.ln2(x))
            new_state.append(layer_state)
        if self.net.ln_final is not None:
            x = self.net.ln_final(x)
        logits = x @ self.net.unembed
        return (logits if self.net.b_U is None else logits + self.net.b_U), new_state

    @torch.no_grad()
    def decode(self, tokens: Tensor) -> Tensor:
        """Logits (batch, seq, vocab) computed token by token with :meth:`step` (reference for the forward)."""
        if not isinstance(tokens, Tensor) or tokens.ndim != 2:
            raise ValueError(
                f"tokens must be a (batch, seq) tensor of ids, got {getattr(tokens, 'shape', tokens)}"
            )
        state = self.init_state()
        out = []
        for t in range(tokens.shape[1]):
            logits, state = self.step(tokens[:, t], state)
            out.append(logits)
        return torch.stack(out, dim=1)
