"""The shared small transformer over token ids, and its attention-only configuration.

    x_0 = E[tokens] + P                    (P from the position scheme; learned absolute by default)
    x_{l+1} = Block_l(x_l)                 (pre-LN; see :mod:`iclr26.lab.transformer.blocks`)
    logits = LN_f(x_L) W_U (+ b_U)         (W_U = E^T when tied)

:class:`AttnOnlyTransformer` is the configuration used by the ESP paper ("Two (narrow) heads are better than
(an arbitrarily wide) one", ICLR 2026, OpenReview RRmPbbZsvl): no FFN, LayerNorm only on the attention input,
a final LayerNorm *without additive bias* and no unembedding bias. Then the logits at a position are a
positive multiple of a linear function of the residual stream, which is the class the paper's
single-head impossibility argument covers.

Example
-------
>>> import torch
>>> model = Transformer(vocab_size=12, seq_len=8, d_model=32, n_layers=2, n_heads=4, init_seed=0)
>>> model(torch.zeros(2, 8, dtype=torch.long)).shape
torch.Size([2, 8, 12])
"""

from __future__ import annotations

import inspect

import torch
from torch import Tensor, nn

from iclr26.checks import check_int, check_tensor
from iclr26.lab.transformer.blocks import Block, BlockSpec, ModuleFactory, gelu_mlp, softmax_attention
from iclr26.lab.transformer.hooks import HookedModule, HookPoint
from iclr26.lab.transformer.positions import (
    LearnedAbsolutePositions,
    NoPositions,
    PositionScheme,
    RelativePositionBias,
)

__all__ = ["AttnOnlyTransformer", "Transformer"]


def _takes_generator(fn: object) -> bool:
    """Whether `fn` is a ``reset_parameters`` that accepts a ``generator`` argument."""
    if not callable(fn):
        return False
    return "generator" in inspect.signature(fn).parameters


class Transformer(HookedModule):
    """A small decoder (causal) or bidirectional transformer over token ids, with hook points.

    Parameters
    ----------
    vocab_size, seq_len : number of token ids; longest sequence (size of the learned position table).
    d_model, n_layers, n_heads : residual width, number of blocks, heads per attention mixer.
    d_head : per-head width (default ``d_model // n_heads``, at least 1).
    d_mlp : FFN width (default ``4 * d_model``); ignored when ``ffn=None``.
    causal : causal (decoder) or bidirectional attention.
    positions : ``"learned"`` (absolute, default), ``"none"``, ``"relative"`` (T5-style scalar bias per head,
        shared across layers) or a :class:`PositionScheme` instance.
    mixer : factory ``BlockSpec -> nn.Module`` for the sequence mixer (default softmax attention).
    ffn : factory for the FFN (default GELU MLP); ``None`` gives an attention-only model.
    tie : unembedding tied to the token embedding (``W_U = E^T``).
    bias : biases in attention, FFN and the block LayerNorms.
    final_norm : ``"layernorm"``, ``"layernorm_nobias"`` or ``"none"``.
    unembed_bias : learn a bias on the logits.
    init_seed : seed of a private generator for the initial weights (global RNG when None).

    Hook points are listed in :mod:`iclr26.lab.transformer.hooks`; use :meth:`run_with_cache` and
    :meth:`run_with_hooks` to read and patch them.
    """

    def __init__(
        self,
        vocab_size: int,
        seq_len: int,
        d_model: int,
        n_layers: int,
        n_heads: int,
        d_head: int | None = None,
        d_mlp: int | None = None,
        causal: bool = True,
        positions: str | PositionScheme = "learned",
        mixer: ModuleFactory = softmax_attention,
        ffn: ModuleFactory | None = gelu_mlp,
        tie: bool = True,
        bias: bool = True,
        final_norm: str = "layernorm",
        unembed_bias: bool = False,
        init_seed: int | None = None,
    ) -> None:
        super().__init__()
        for name, value, low in (
            ("vocab_size", vocab_size, 1),
            ("seq_len", seq_len, 1),
            ("d_model", d_model, 1),
            ("n_layers", n_layers, 1),
            ("n_heads", n_heads, 1),
        ):
            check_int(name, value, low=low)
        d_head = check_int("d_head", d_head, low=1) if d_head is not None else max(1, d_model // n_heads)
        d_mlp = check_int("d_mlp", d_mlp, low=1) if d_mlp is not None else 4 * d_model
        if final_norm not in ("layernorm", "layernorm_nobias", "none"):
            raise ValueError(
                f"final_norm must be 'layernorm', 'layernorm_nobias' or 'none', got {final_norm!r}"
            )
        self.vocab_size, self.seq_len, self.d_model = vocab_size, seq_len, d_model
        self.n_layers, self.n_heads, self.d_head, self.causal, self.tie = (
            n_layers,
            n_heads,
            d_head,
            causal,
            tie,
        )

        self.W_E = nn.Parameter(torch.empty(vocab_size, d_model))
        self.positions = self._position_scheme(positions, seq_len, d_model, n_heads)
        self.blocks = nn.ModuleList(
            Block(BlockSpec(layer, d_model, n_heads, d_head, d_mlp, causal, bias), mixer=mixer, ffn=ffn)
            for layer in range(n_layers)
        )
        self.ln_final = (
            None if final_norm == "none" else nn.LayerNorm(d_model, bias=final_norm == "layernorm")
        )
        self.W_U = None if tie else nn.Parameter(torch.empty(d_model, vocab_size))
        self.b_U = nn.Parameter(torch.zeros(vocab_size)) if unembed_bias else None
        self.hook_embed, self.hook_pos_embed, self.hook_resid_final = HookPoint(), HookPoint(), HookPoint()
        generator = torch.Generator().manual_seed(init_seed) if init_seed is not None else None
        self.reset_parameters(generator)

    @staticmethod
    def _position_scheme(
        positions: str | PositionScheme, seq_len: int, d_model: int, n_heads: int
    ) -> nn.Module:
        if isinstance(positions, PositionScheme):
            return positions
        if positions == "learned":
            return LearnedAbsolutePositions(seq_len, d_model)
        if positions == "none":
            return NoPositions()
        if positions == "relative":
            return RelativePositionBias(n_heads, max_distance=seq_len - 1 if seq_len > 1 else 1)
        raise ValueError(
            f"positions must be 'learned', 'none', 'relative' or a PositionScheme, got {positions!r}"
        )

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Re-initialise: embeddings ~ N(0, 1/d_model), linear maps ~ N(0, 1/fan_in), norms to identity.

        Submodules that define ``reset_parameters(generator=...)`` (all modules of this package) are
        re-initialised from `generator`; other modules of a custom mixer or FFN keep their own initialisation.
        """
        with torch.no_grad():
            self.W_E.normal_(0.0, self.d_model**-0.5, generator=generator)
            if self.W_U is not None:
                self.W_U.normal_(0.0, self.d_model**-0.5, generator=generator)
            if self.b_U is not None:
                self.b_U.zero_()
            for module in self.modules():
                if isinstance(module, nn.LayerNorm):
                    module.reset_parameters()
                elif module is not self and _takes_generator(getattr(module, "reset_parameters", None)):
                    module.reset_parameters(generator)

    @property
    def unembed(self) -> Tensor:
        """The (d_model, vocab) unembedding matrix (``E^T`` when tied)."""
        return self.W_E.T if self.W_U is None else self.W_U

    def embed(self, tokens: Tensor, validate: bool = True) -> Tensor:
        """Token embeddings E[tokens], (batch, seq) -> (batch, seq, d_model).

        ``validate=False`` skips the id-range check, which reads values and so cannot run under ``torch.vmap``;
        check the ids beforehand (:meth:`check_tokens`) when using it.
        """
        check_tensor("tokens", tokens)
        if tokens.ndim != 2:
            raise ValueError(f"tokens must have shape (batch, seq), got {tuple(tokens.shape)}")
        if validate:
            self.check_tokens(tokens)
        return self.W_E[tokens]

    def check_tokens(self, tokens: Tensor) -> None:
        """Raise ValueError unless `tokens` holds integer ids in [0, vocab_size) (any leading axes)."""
        if tokens.dtype not in (torch.int64, torch.int32):
            raise ValueError(f"tokens must be integer ids, got dtype {tokens.dtype}")
        if tokens.numel() and (int(tokens.min()) < 0 or int(tokens.max()) >= self.vocab_size):
            raise ValueError(
                f"tokens must lie in [0, vocab_size={self.vocab_size}), got range "
                f"[{int(tokens.min())}, {int(tokens.max())}]"
            )

    def forward_embeds(self, embeds: Tensor) -> Tensor:
        """Logits from token embeddings (batch, seq, d_model); positions are added here."""
        if embeds.ndim != 3 or embeds.shape[-1] != self.d_model:
            raise ValueError(
                f"embeds must have shape (batch, seq, {self.d_model}), got {tuple(embeds.shape)}"
            )
        seq = embeds.shape[1]
        if seq > self.seq_len:
            raise ValueError(f"sequence length {seq} exceeds seq_len={self.seq_len}")
        x = self.hook_embed(embeds)
        pos = self.positions.embed(seq, x.device)
        if pos is not None:
            x = x + self.hook_pos_embed(pos)
        score_bias = self.positions.score_bias(seq, x.device)
        for block in self.blocks:
            x = block(x, score_bias)
        if self.ln_final is not None:
            x = self.ln_final(x)
        x = self.hook_resid_final(x)
        logits = x @ self.unembed
        return logits if self.b_U is None else logits + self.b_U

    def forward(self, tokens: Tensor, validate: bool = True) -> Tensor:
        """Logits (batch, seq, vocab) for token ids (batch, seq); see :meth:`embed` for `validate`."""
        return self.forward_embeds(self.embed(tokens, validate))


class AttnOnlyTransformer(Transformer):
    """Attention-only transformer in the class covered by the ESP single-head impossibility theorem.

    Pre-LN on the attention input (with bias), residual connections, no FFN, learned absolute positions by
    default, a final LayerNorm **without additive bias** (``final_norm=False`` drops it), tied or untied
    unembedding **without bias**. With these choices the logits are a positive multiple of a linear map of
    the residual stream, so a single head's prediction is decided by half-spaces, as the theorem requires;
    an additive final-norm or logit bias is not rescaled by the normalisation and would leave that class.

    Parameters
    ----------
    n_layers, n_heads, d_model, vocab_size, seq_len : as in :class:`Transformer`.
    tie : tied unembedding (``W_U = E^T``).
    d_head : per-head width (default ``d_model // n_heads``, at least 1).
    final_norm : keep the bias-free final LayerNorm.
    **kwargs : other :class:`Transformer` arguments (``causal``, ``positions``, ``bias``, ``init_seed``).

    Examples
    --------
    >>> import torch
    >>> model = AttnOnlyTransformer(n_layers=1, n_heads=2, d_model=16, vocab_size=11, seq_len=4, init_seed=0)
    >>> model.blocks[0].mlp is None, model.ln_final.bias is None
    (True, True)
    >>> model(torch.tensor([[0, 1, 8, 10]])).shape
    torch.Size([1, 4, 11])
    """

    def __init__(
        self,
        n_layers: int,
        n_heads: int,
        d_model: int,
        vocab_size: int,
        seq_len: int,
        tie: bool = True,
        d_head: int | None = None,
        final_norm: bool = True,
        **kwargs: object,
    ) -> None:
        for forbidden in ("ffn", "unembed_bias", "d_mlp"):
            if forbidden in kwargs:
                raise ValueError(
                    f"AttnOnlyTransformer does not take {forbidden!r} (it has no FFN and no logit bias)"
                )
        super().__init__(
            vocab_size=vocab_size,
            seq_len=seq_len,
            d_model=d_model,
            n_layers=n_layers,
            n_heads=n_heads,
            d_head=d_head,
            ffn=None,
            tie=tie,
            final_norm="layernorm_nobias" if final_norm else "none",
            unembed_bias=False,
            **kwargs,
        )
