"""A few-line in-house LoRA (the ``peft`` library is not installed here).

* :class:`LoRALinear` wraps an ``nn.Linear``: ``y = W x + b + (alpha / r) B A x`` with ``A: (r, in)``,
  ``B: (out, r)``, B initialised to zero so the wrapped layer starts equal to the base layer.
* :class:`LoRADelta` is the same low-rank update as a ``torch.nn.utils.parametrize`` parametrization of a weight
  tensor, for weights that are not ``nn.Linear`` modules: a ``(out, in)`` matrix, or the per-head
  ``(heads, in, d_head)`` query/key/value weights of :class:`iclr26.lab.transformer.MultiHeadAttention`
  (read as the ``in -> heads * d_head`` map).
* :func:`add_lora` attaches LoRA to the named weights of a model and returns the new (trainable) parameters.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor, nn
from torch.nn.utils import parametrize

from iclr26.checks import check_float, check_int, check_tensor

__all__ = ["LoRADelta", "LoRALinear", "add_lora"]


def _check_rank(
    r: object, alpha: object, out_f: int | None = None, in_f: int | None = None
) -> tuple[int, float]:
    """The rank (an int in [1, min(out, in)] when the weight's shape is known) and alpha (> 0)."""
    high = None if out_f is None or in_f is None else min(out_f, in_f)
    rank = check_int("r (LoRA rank)", r, low=1, high=high)
    return rank, check_float("alpha", alpha, low=0.0, low_open=True)


def _init_a(r: int, fan_in: int, dtype: torch.dtype, generator: torch.Generator | None) -> nn.Parameter:
    """A ~ N(0, 1/fan_in) (the B = 0 start makes the scale of A matter only through the learning dynamics)."""
    return nn.Parameter(torch.randn(r, fan_in, generator=generator, dtype=dtype) * fan_in**-0.5)


class LoRALinear(nn.Module):
    """``base(x) + (alpha / r) * x A^T B^T``; the base layer is kept as ``self.base`` (its weights untouched).

    Examples
    --------
    >>> layer = nn.Linear(4, 3)
    >>> lora = LoRALinear(layer, r=2, alpha=4.0)
    >>> x = torch.ones(1, 4)
    >>> torch.equal(lora(x), layer(x)), lora.A.shape, lora.B.shape
    (True, torch.Size([2, 4]), torch.Size([3, 2]))
    """

    def __init__(
        self, base: nn.Linear, r: int, alpha: float = 1.0, generator: torch.Generator | None = None
    ) -> None:
        super().__init__()
        if not isinstance(base, nn.Linear):
            raise TypeError(f"base must be an nn.Linear, got {type(base).__name__}")
        self.r, self.alpha = _check_rank(r, alpha, base.out_features, base.in_features)
        self.scale = self.alpha / self.r
        self.base = base
        dtype = base.weight.dtype
        self.A = _init_a(self.r, base.in_features, dtype, generator)
        self.B = nn.Parameter(torch.zeros(base.out_features, self.r, dtype=dtype))

    def forward(self, x: Tensor) -> Tensor:
        """The base output plus the scaled low-rank correction; `x` is (..., in_features), any leading axes."""
        check_tensor("x", x, floating=True)
        if x.ndim < 1 or x.shape[-1] != self.base.in_features:
            raise ValueError(f"x must be (..., {self.base.in_features}), got shape {tuple(x.shape)}")
        return self.base(x) + self.scale * nn.functional.linear(nn.functional.linear(x, self.A), self.B)

    def merged_weight(self) -> Tensor:
        """``W + (alpha / r) B A``, the weight of the equivalent plain linear layer."""
        return self.base.weight + self.scale * self.B @ self.A


class LoRADelta(nn.Module):
    """Parametrization ``W -> W + (alpha / r) reshape(B A)`` of a 2-D ``(out, in)`` or per-head 3-D weight.

    For a 3-D weight ``(heads, in, d_head)`` the update is the rank-r ``in -> heads * d_head`` map, i.e.
    ``delta[h, i, e] = (alpha / r) (B A)[h * d_head + e, i]``.
    """

    def __init__(
        self,
        shape: Sequence[int],
        r: int,
        alpha: float = 1.0,
        dtype: torch.dtype = torch.float32,
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__()
        self.shape = tuple(int(s) for s in shape)
        if len(self.shape) == 2:
            out_f, in_f = self.shape
        elif len(self.shape) == 3:
            heads, in_f, d_head = self.shape
            out_f = heads * d_head
        else:
            raise ValueError(
                f"LoRADelta needs a 2-D (out, in) or 3-D (heads, in, d_head) weight, got {self.shape}"
            )
        self.r, self.alpha = _check_rank(r, alpha, out_f, in_f)
        self.scale = self.alpha / self.r
        self.A = _init_a(self.r, in_f, dtype, generator)
        self.B = nn.Parameter(torch.zeros(out_f, self.r, dtype=dtype))

    def delta(self) -> Tensor:
        """The low-rank update in the weight's own layout."""
        d = self.scale * (self.B @ self.A)  # (out, in)
        if len(self.shape) == 2:
            return d
        heads, in_f, d_head = self.shape
        return d.reshape(heads, d_head, in_f).permute(0, 2, 1)

    def forward(self, weight: Tensor) -> Tensor:
        """``weight + delta``."""
        check_tensor("weight", weight, floating=True, shape=self.shape)
        return weight + self.delta()


def add_lora(
    model: nn.Module,
    r: int,
    alpha: float = 1.0,
    targets: Sequence[str] = ("W_Q", "W_V"),
    seed: int = 0,
) -> list[nn.Parameter]:
    """Attach LoRA to every weight or ``nn.Linear`` child whose attribute name is in `targets`.

    ``nn.Linear`` children are replaced by :class:`LoRALinear`; other 2-D/3-D parameters get a
    :class:`LoRADelta` parametrization (their original tensor moves to ``parametrizations.<name>.original``).
    Returns the new LoRA parameters (A and B of every adapter), in a deterministic order. A is drawn from a
    private generator seeded with `seed`.
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be an nn.Module, got {type(model).__name__}")
    _check_rank(r, alpha)
    check_int("seed", seed, low=0)
    if isinstance(targets, str) or not targets:
        raise ValueError(f"targets must be a non-empty sequence of attribute names, got {targets!r}")
    gen = torch.Generator().manual_seed(int(seed))
    new: list[nn.Parameter] = []
    for _, module in list(model.named_modules()):
        for name in targets:
            child = module._modules.get(name)
            if isinstance(child, nn.Linear):
                wrapped = LoRALinear(child, r, alpha, gen)
                setattr(module, name, wrapped)
                new += [wrapped.A, wrapped.B]
            elif isinstance(module._parameters.get(name), nn.Parameter):
                w = module._parameters[name]
                delta = LoRADelta(w.shape, r, alpha, w.dtype, gen)
                parametrize.register_parametrization(module, name, delta)
                new += [delta.A, delta.B]
    if not new:
        raise ValueError(f"targets {list(targets)} matched no nn.Linear child or parameter of the model")
    return new
