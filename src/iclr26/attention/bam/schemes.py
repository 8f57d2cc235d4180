"""The positional-scheme registry: NoPE, sinusoidal, RoPE, ALiBi, Laplace and BAM, each with or without SSMax.

Every scheme builds the same backbone, :class:`iclr26.lab.transformer.Transformer` with pre-LN blocks, a SwiGLU
FFN of hidden width ``2 d_model`` and no biases, and a :class:`PEAttention` mixer; only the positional encoding
differs. BAM's prior (and Laplace's) is one :class:`GGDPrior` shared by all layers (the paper's global prior);
SSMax scales are per head and per layer.

Example
-------
>>> model = get_scheme("bam-ssmax").build_model(vocab_size=10, seq_len=32, d_model=16, n_layers=2, n_heads=2)
>>> extra_parameters(model, n_layers=2, n_heads=2)
8
"""

from __future__ import annotations

from dataclasses import dataclass

from torch import nn

from iclr26.attention.bam.encodings import SinusoidalPositions
from iclr26.attention.bam.mixer import PEAttention
from iclr26.attention.bam.prior import GGDPrior
from iclr26.checks import check_int
from iclr26.lab.transformer import BlockSpec, Transformer, swiglu_mlp

__all__ = ["PE_NAMES", "SCHEMES", "PositionalScheme", "extra_parameters", "get_scheme"]

PE_NAMES = ("nope", "sinusoidal", "rope", "alibi", "laplace", "bam")


@dataclass(frozen=True)
class PositionalScheme:
    """A positional encoding (``pe``), optionally with SSMax, and the init of a learned prior.

    ``prior_init = (init_scale, init_shape)`` for ``"bam"``: the official default ``(1.0, 0.0)`` (a uniform prior
    whose shape is learned) or ``("alibi", 1.0)`` (ALiBi at init).
    """

    name: str
    pe: str
    ssmax: bool = False
    prior_init: tuple[str | float, str | float] = (1.0, 0.0)

    def __post_init__(self) -> None:
        if self.pe not in PE_NAMES:
            raise ValueError(f"pe must be one of {PE_NAMES}, got {self.pe!r}")

    def make_prior(self, n_heads: int, causal: bool = True) -> GGDPrior | None:
        """The shared prior of the ``"bam"`` and ``"laplace"`` schemes (None for the others)."""
        if self.pe == "bam":
            scale, shape = self.prior_init
            return GGDPrior(
                n_heads,
                init_scale=scale,
                init_shape=shape,
                causal=causal,
                allow_increasing=shape == "sampled",
            )
        if self.pe == "laplace":
            return GGDPrior(n_heads, init_scale="alibi", init_shape=1.0, train_shape=False, causal=causal)
        return None

    def mixer_factory(self, n_heads: int, causal: bool = True, chunk_size: int | None = None):
        """A ``BlockSpec -> PEAttention`` factory; every layer it builds shares one prior."""
        prior = self.make_prior(n_heads, causal)
        pe = "nope" if self.pe == "sinusoidal" else self.pe

        def factory(spec: BlockSpec) -> PEAttention:
            return PEAttention(
                spec.d_model,
                spec.n_heads,
                pe=pe,
                ssmax=self.ssmax,
                prior=prior,
                d_head=spec.d_head,
                causal=spec.causal,
                chunk_size=chunk_size,
            )

        return factory

    def build_model(
        self,
        vocab_size: int,
        seq_len: int,
        d_model: int = 64,
        n_layers: int = 4,
        n_heads: int = 4,
        *,
        init_seed: int | None = None,
        chunk_size: int | None = None,
    ) -> Transformer:
        """The shared backbone with this scheme (``seq_len``: the longest sequence it will see, e.g. at eval)."""
        positions = SinusoidalPositions(d_model) if self.pe == "sinusoidal" else "none"
        return Transformer(
            vocab_size=vocab_size,
            seq_len=seq_len,
            d_model=d_model,
            n_layers=n_layers,
            n_heads=n_heads,
            d_mlp=2 * d_model,
            positions=positions,
            mixer=self.mixer_factory(n_heads, chunk_size=chunk_size),
            ffn=swiglu_mlp,
            bias=False,
            init_seed=init_seed,
        )


def _registry() -> dict[str, PositionalScheme]:
    out = {}
    for pe in PE_NAMES:
        for ssmax in (False, True):
            name = pe + ("-ssmax" if ssmax else "")
            out[name] = PositionalScheme(name, pe, ssmax)
    out["bam-alibi-init-ssmax"] = PositionalScheme("bam-alibi-init-ssmax", "bam", True, ("alibi", 1.0))
    return out


SCHEMES: dict[str, PositionalScheme] = _registry()


def get_scheme(name: str) -> PositionalScheme:
    """The registered scheme called ``name`` (e.g. ``"bam-ssmax"``, ``"rope"``, ``"alibi"``)."""
    if not isinstance(name, str) or name not in SCHEMES:
        raise ValueError(f"unknown positional scheme {name!r}; choose from {sorted(SCHEMES)}")
    return SCHEMES[name]


def extra_parameters(model: nn.Module, n_layers: int, n_heads: int) -> int:
    """Trainable parameters of ``model`` beyond its NoPE twin: the priors' and the SSMax scales'."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be an nn.Module, got {type(model).__name__}")
    check_int("n_layers", n_layers, low=1)
    check_int("n_heads", n_heads, low=1)
    seen = set()
    total = 0
    for module in model.modules():
        if isinstance(module, PEAttention):
            for p in [*(module.prior.parameters() if module.prior is not None else []), module.ssmax_scale]:
                if p is not None and p.requires_grad and id(p) not in seen:
                    seen.add(id(p))
                    total += p.numel()
    return total
