"""The shared-trunk, multi-head Q-network of iS-QN: one trunk, one last linear layer holding K+1 heads."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from iclr26.checks import check_bool, check_int, check_tensor

__all__ = ["SharedHeadQNet", "mlp_trunk", "shift_head_rows_"]


def check_hidden(hidden: Sequence[int]) -> tuple[int, ...]:
    if isinstance(hidden, (str, bytes)) or not isinstance(hidden, Sequence):
        raise TypeError(f"hidden must be a sequence of layer widths, got {hidden!r}")
    if not hidden:
        raise ValueError("hidden must list at least one layer width")
    return tuple(check_int("hidden width", h, low=1) for h in hidden)


def mlp_trunk(obs_dim: int, hidden: Sequence[int], layer_norm: bool = False) -> nn.Sequential:
    """ReLU MLP feature extractor ``obs_dim -> hidden[0] -> ... -> hidden[-1]`` (optional LayerNorm per layer)."""
    check_int("obs_dim", obs_dim, low=1)
    hidden = check_hidden(hidden)
    check_bool("layer_norm", layer_norm)
    layers: list[nn.Module] = []
    width = obs_dim
    for h in hidden:
        layers.append(nn.Linear(width, h))
        if layer_norm:
            layers.append(nn.LayerNorm(h))
        layers.append(nn.ReLU())
        width = h
    return nn.Sequential(*layers)


@torch.no_grad()
def shift_head_rows_(weight: torch.Tensor, bias: torch.Tensor, n_heads: int, n_actions: int) -> None:
    """Window shift ``omega_i <- omega_{i+1}`` (i = 0..n_heads-2) in place; the last head keeps its weights.

    ``weight`` has shape (..., n_heads * n_actions, d) and ``bias`` (..., n_heads * n_actions); any leading axes
    (e.g. the member axis of a stacked ensemble) are shifted together.
    """
    check_tensor("weight", weight, floating=True)
    check_tensor("bias", bias, floating=True)
    check_int("n_heads", n_heads, low=1)
    check_int("n_actions", n_actions, low=1)
    if (
        weight.ndim < 2
        or bias.ndim < 1
        or weight.shape[-2] != n_heads * n_actions
        or bias.shape[-1] != n_heads * n_actions
    ):
        raise ValueError(
            f"weight/bias must hold n_heads * n_actions = {n_heads * n_actions} rows, got "
            f"{tuple(weight.shape)} and {tuple(bias.shape)}"
        )
    a = n_actions
    weight[..., : (n_heads - 1) * a, :] = weight[..., a:, :].clone()
    bias[..., : (n_heads - 1) * a] = bias[..., a:].clone()


class SharedHeadQNet(nn.Module):
    """Q-network with K+1 heads ``[Qbar_0, Q_1, ..., Q_K]`` on one shared trunk.

    The trunk is an MLP (``hidden`` widths, ReLU, optional LayerNorm); the last layer is a single
    ``nn.Linear(d, (K+1) * n_actions)`` whose output is reshaped to heads. ``K = 0`` gives an ordinary
    single-head Q-network (used for DQN and target-free DQN).

    Parameters
    ----------
    obs_dim : observation size.
    n_actions : number of discrete actions.
    K : number of learned Bellman iterations (the net has K+1 heads).
    hidden : trunk widths.
    layer_norm : LayerNorm after every hidden linear layer.
    """

    def __init__(
        self,
        obs_dim: int,
        n_actions: int,
        K: int,
        hidden: Sequence[int] = (128, 128),
        layer_norm: bool = False,
    ) -> None:
        super().__init__()
        self.obs_dim = check_int("obs_dim", obs_dim, low=1)
        self.n_actions = check_int("n_actions", n_actions, low=1)
        self.K = check_int("K", K, low=0)
        self.trunk = mlp_trunk(obs_dim, hidden, layer_norm)
        self.feature_dim = int(tuple(hidden)[-1])
        self.head = nn.Linear(self.feature_dim, (K + 1) * n_actions)

    @property
    def n_heads(self) -> int:
        """K + 1."""
        return self.K + 1

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """Q-values of every head: obs (..., obs_dim) -> (..., K+1, n_actions)."""
        check_tensor("obs", obs, floating=True)
        if obs.ndim < 1 or obs.shape[-1] != self.obs_dim:
            raise ValueError(f"obs must end with obs_dim = {self.obs_dim}, got shape {tuple(obs.shape)}")
        out = self.head(self.trunk(obs))
        return out.unflatten(-1, (self.n_heads, self.n_actions))

    def shift_heads_(self) -> None:
        """Gradient-free window shift: head i takes head i+1's weights and bias; head K is unchanged."""
        shift_head_rows_(self.head.weight, self.head.bias, self.n_heads, self.n_actions)

    def trunk_param_count(self) -> int:
        """Number of trunk parameters."""
        return sum(p.numel() for p in self.trunk.parameters())

    def head_param_count(self) -> int:
        """Parameters of one head: ``(d + 1) * n_actions``."""
        return (self.feature_dim + 1) * self.n_actions

    def param_count(self) -> int:
        """All parameters: ``|trunk| + (K+1) (d+1) |A|``."""
        return sum(p.numel() for p in self.parameters())
