"""The COSMOS optimizer: SOAP on the leading gradient eigensubspace, Muon on the rest.

"COSMOS: A Hybrid Adaptive Optimizer for Memory-Efficient Training of LLMs", arXiv 2502.17410.

For a hidden matrix W (m x n) with gradient G_t, rank r, betas (b1, b2), lr ratio rho and residual weight gamma
(step t = 1, 2, ...):

1. momentum, ``M_t = b1 M_{t-1} + G_t`` (official code) or ``M_t = b1 M_{t-1} + (1 - b1) G_t`` (paper variant);
2. right eigenbasis U_t (n x r) of the gradient second moment by one power-iteration step:
   ``U_1`` = top-r right singular vectors of G_1, ``S_1 = (1 - b2) (G U_1)^T (G U_1)``;
   ``U_t = QR(b2 U_{t-1} S_{t-1} + (1 - b2) G^T G U_{t-1})``, ``R = U_{t-1}^T U_t``,
   ``S_t = b2 R^T S_{t-1} R + (1 - b2) (G U_t)^T (G U_t)``;
3. projected second moment ``V_t = b2 V_{t-1} + (1 - b2) (G U_t)^2`` (m x r);
4. blended direction ``Gh = (G_t + b1 M_t) / (1 + b1 c_t)`` with ``c_t = (1 - b1^t) / (1 - b1)`` (code), or the
   bias-corrected EMA ``Gh = M_t / (1 - b1^t)`` (paper variant);
5. leading part ``A = [(Gh U) / (sqrt(V / (1 - b2^t)) + eps)] U^T`` (one-sided Adam in the eigenbasis);
6. residual part ``B = NS5(Gh - Gh U U^T)``, ``B <- B / (||B||_F + eps)`` (Muon on the orthogonal complement);
7. ``D = A + gamma sqrt(mn) B``; ``W <- (1 - lr wd) W - lr rho sqrt(mn) D / (||D||_F + eps)``, so that every
   hidden-matrix step has per-entry RMS ``lr * rho``.

All other parameters (vectors, embeddings, the output head) take plain AdamW steps with the same group's lr and
betas. Which parameters are hidden matrices is decided per group by ``use_cosmos`` (``None``: every 2-D
parameter with at most 10,000 rows, the official code's rule); :meth:`COSMOS.from_model` routes by role with
:func:`iclr26.lab.param_groups.split_param_groups` instead, which is what a small-vocabulary model needs.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable
from typing import Any

import torch
from torch import Tensor, nn
from torch.optim import Optimizer

from iclr26.checks import (
    check_choice,
    check_float,
    check_gradients,
    check_int,
    check_parameters,
    check_tensor,
)
from iclr26.lab.param_groups import split_param_groups

__all__ = ["COSMOS", "NS5_COEFFICIENTS", "cosmos_state_numel", "newton_schulz5"]

NS5_COEFFICIENTS = (3.4445, -4.7750, 2.0315)
VARIANTS = ("code", "paper")
_MAX_ROWS = 10_000  # the official code's size rule for "hidden matrix" (used only when use_cosmos is None)


def newton_schulz5(g: Tensor, steps: int = 5, eps: float = 1e-7) -> Tensor:
    """Approximate the orthogonal polar factor of a 2-D tensor with quintic Newton-Schulz iterations.

    ``X_0 = G / (||G||_F + eps)``; ``X <- a X + b (X X^T) X + c (X X^T)^2 X`` with ``(a, b, c) =
    (3.4445, -4.7750, 2.0315)``, iterated on the wide orientation. The result's singular values lie roughly in
    [0.7, 1.2] for well-conditioned inputs (they are not driven exactly to 1). Runs in the input's dtype.
    """
    check_tensor("g", g, ndim=2, floating=True)
    check_int("steps", steps, low=0)
    a, b, c = NS5_COEFFICIENTS
    x = g / (torch.linalg.matrix_norm(g) + eps)
    tall = g.shape[0] > g.shape[1]
    if tall:
        x = x.T
    for _ in range(steps):
        gram = x @ x.T
        poly = b * gram + c * (gram @ gram)
        x = a * x + poly @ x
    return x.T if tall else x


def _sign_fix(u: Tensor) -> Tensor:
    """Flip each column so that its largest-magnitude entry is positive (deterministic eigenvectors)."""
    idx = u.abs().argmax(dim=0, keepdim=True)
    signs = torch.sign(torch.gather(u, 0, idx))
    signs[signs == 0] = 1.0
    return u * signs


def _orthonormal_basis(y: Tensor) -> Tensor:
    """Reduced QR factor Q of ``y`` with the signs chosen so that diag(R) >= 0."""
    q, r = torch.linalg.qr(y, mode="reduced")
    signs = torch.sign(torch.diagonal(r))
    signs[signs == 0] = 1.0
    return q * signs


def cosmos_state_numel(m: int, n: int, rank: int) -> int:
    """Floats COSMOS keeps for one m x n hidden matrix: M (mn) + U (nr) + S (r^2) + V (mr), r = min(rank, m, n)."""
    r = min(rank, m, n)
    return m * n + n * r + r * r + m * r


def _check_hparams(group: dict[str, Any]) -> None:
    check_float("lr", group["lr"], low=0.0)
    check_float("eps", group["eps"], low=0.0)
    check_float("weight_decay", group["weight_decay"], low=0.0)
    betas = group["betas"]
    if not isinstance(betas, (tuple, list)) or len(betas) != 2:
        raise ValueError(f"betas must be a pair (beta1, beta2), got {betas!r}")
    for i, beta in enumerate(betas):
        check_float(f"betas[{i}]", beta, 0.0, 1.0, high_open=True)
    check_int("rank", group["rank"], low=1)
    check_float("lr_ratio", group["lr_ratio"], low=0.0)
    check_float("residual_weight", group["residual_weight"], low=0.0)
    check_int("ns_steps", group["ns_steps"], low=0)
    check_choice("variant", group["variant"], VARIANTS)
    check_choice("use_cosmos", group["use_cosmos"], (None, True, False))


class COSMOS(Optimizer):
    """COSMOS (arXiv 2502.17410): SOAP-style Adam in a tracked rank-r eigenbasis plus Muon on the residual.

    Parameters
    ----------
    params : parameters or parameter groups; every hyperparameter below can be set per group.
    lr : base learning rate; hidden matrices move by per-entry RMS ``lr * lr_ratio``, the AdamW branch by ``lr``.
    betas : (beta1, beta2): momentum and second-moment / eigenbasis decay (newer official code: (0.9, 0.999)).
    eps : denominator guard.
    weight_decay : decoupled weight decay (``W <- (1 - lr * wd) W``) in both branches.
    rank : r, the size of the tracked leading eigensubspace; clipped to min(m, n) per matrix with a warning
        (an error with ``strict=True``).
    lr_ratio : rho, the hidden-matrix step RMS relative to ``lr``.
    residual_weight : gamma, the weight of the normalised Muon residual (0.2 in the official code).
    ns_steps : Newton-Schulz iterations for the residual (5).
    variant : ``"code"`` (newer official code: raw momentum and a Nesterov-style blend) or ``"paper"`` (EMA first
        moment, bias-corrected).
    use_cosmos : ``True`` / ``False`` sends a group's 2-D parameters to the COSMOS / AdamW branch; ``None``
        (default) uses the official size rule (2-D with <= 10,000 rows). Non-2-D parameters always take AdamW.
    strict : raise instead of warning when ``rank`` exceeds a matrix's smaller side.

    Examples
    --------
    >>> import torch
    >>> from torch import nn
    >>> model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1))
    >>> opt = COSMOS.from_model(model, lr=0.05, rank=4)
    >>> x, y = torch.randn(32, 6), torch.randn(32, 1)
    >>> for _ in range(3):
    ...     opt.zero_grad()
    ...     loss = nn.functional.mse_loss(model(x), y)
    ...     loss.backward()
    ...     _ = opt.step()
    >>> sorted(opt.state[model[2].weight])
    ['basis', 'basis_cov', 'exp_avg', 'exp_avg_sq', 'step']
    """

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict[str, Any]],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        *,
        rank: int = 64,
        lr_ratio: float = 0.1,
        residual_weight: float = 0.2,
        ns_steps: int = 5,
        variant: str = "code",
        use_cosmos: bool | None = None,
        strict: bool = False,
    ) -> None:
        self.strict = bool(strict)
        defaults = dict(
            lr=lr,
            betas=tuple(betas) if isinstance(betas, (tuple, list)) else betas,
            eps=eps,
            weight_decay=weight_decay,
            rank=rank,
            lr_ratio=lr_ratio,
            residual_weight=residual_weight,
            ns_steps=ns_steps,
            variant=variant,
            use_cosmos=use_cosmos,
        )
        _check_hparams(defaults)
        super().__init__(params, defaults)
        check_parameters(type(self).__name__, self.param_groups)

    @classmethod
    def from_model(cls, model: nn.Module, lr: float = 1e-3, **kwargs: Any) -> COSMOS:
        """COSMOS over all of ``model``'s trainable parameters, routed by role.

        Hidden 2-D matrices (:func:`~iclr26.lab.param_groups.split_param_groups`) take the COSMOS branch;
        embeddings, positional tables, the output head, biases and norm gains take the AdamW branch.
        """
        matrices, others = split_param_groups(model)
        pairs = ((matrices, True), (others, False))
        groups = [{"params": ps, "use_cosmos": flag} for ps, flag in pairs if ps]
        if not groups:
            raise ValueError("model has no trainable parameters")
        return cls(groups, lr=lr, **kwargs)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group after validating its hyperparameters and the rank against its matrices."""
        super().add_param_group(param_group)
        group = self.param_groups[-1]
        if isinstance(group["betas"], list):
            group["betas"] = tuple(group["betas"])
        _check_hparams(group)
        for p in group["params"]:
            if self._is_matrix(p, group) and group["rank"] > min(p.shape):
                msg = (
                    f"rank={group['rank']} exceeds min(m, n)={min(p.shape)} of a {tuple(p.shape)} matrix; "
                    f"it is clipped to {min(p.shape)}"
                )
                if self.strict:
                    raise ValueError(msg.replace("it is clipped to", "strict=True forbids clipping to"))
                warnings.warn(msg, stacklevel=3)

    @staticmethod
    def _is_matrix(p: Tensor, group: dict[str, Any]) -> bool:
        if p.ndim != 2:
            return False
        flag = group["use_cosmos"]
        return bool(flag) if flag is not None else p.shape[0] <= _MAX_ROWS

    @torch.no_grad()
    def step(self, closure: Callable[[], Tensor] | None = None) -> Tensor | None:  # type: ignore[override]
        """One optimisation step; ``closure`` (re-evaluating the loss with gradients) is optional."""
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        check_gradients("COSMOS", self.param_groups)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad
                if self._is_matrix(p, group):
                    self._cosmos_step(p, grad, group)
                else:
                    self._adamw_step(p, grad, group)
        return loss

    def _adamw_step(self, p: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        state = self.state[p]
        if not state:
            state["step"] = torch.tensor(0.0)
            state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
            state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
        beta1, beta2 = group["betas"]
        state["step"] += 1
        t = int(state["step"].item())
        cdt = torch.float64 if p.dtype == torch.float64 else torch.float32
        g = grad.to(cdt)
        m = state["exp_avg"].to(cdt).mul_(beta1).add_(g, alpha=1 - beta1)
        v = state["exp_avg_sq"].to(cdt).mul_(beta2).addcmul_(g, g, value=1 - beta2)
        state["exp_avg"].copy_(m)
        state["exp_avg_sq"].copy_(v)
        denom = (v / (1 - beta2**t)).sqrt_().add_(group["eps"])
        update = (m / (1 - beta1**t)) / denom
        new = p.to(cdt).mul_(1 - group["lr"] * group["weight_decay"]).sub_(update, alpha=group["lr"])
        p.copy_(new)

    def _cosmos_step(self, p: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        mrows, ncols = p.shape
        r = min(group["rank"], mrows, ncols)
        state = self.state[p]
        if not state:
            state["step"] = torch.tensor(0.0)
            state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
            state["basis"] = torch.zeros(ncols, r, dtype=p.dtype, device=p.device)
            state["basis_cov"] = torch.zeros(r, r, dtype=p.dtype, device=p.device)
            state["exp_avg_sq"] = torch.zeros(mrows, r, dtype=p.dtype, device=p.device)
        beta1, beta2 = group["betas"]
        eps = group["eps"]
        state["step"] += 1
        t = int(state["step"].item())
        cdt = torch.float64 if p.dtype == torch.float64 else torch.float32
        g = grad.to(cdt)

        # 1. momentum
        m = state["exp_avg"].to(cdt)
        if group["variant"] == "code":
            m.mul_(beta1).add_(g)
        else:
            m.mul_(beta1).add_(g, alpha=1 - beta1)
        state["exp_avg"].copy_(m)

        # 2. eigenbasis of G^T G by one power-iteration step (exact SVD at t = 1)
        if t == 1:
            _, _, vh = torch.linalg.svd(g, full_matrices=False)
            u = _sign_fix(vh[:r].T.contiguous())
            gu = g @ u
            s = (1 - beta2) * (gu.T @ gu)
        else:
            u_prev = state["basis"].to(cdt)
            s_prev = state["basis_cov"].to(cdt)
            u = _orthonormal_basis(beta2 * (u_prev @ s_prev) + (1 - beta2) * (g.T @ (g @ u_prev)))
            rot = u_prev.T @ u
            gu = g @ u
            s = beta2 * (rot.T @ s_prev @ rot) + (1 - beta2) * (gu.T @ gu)
        state["basis"].copy_(u)
        state["basis_cov"].copy_(s)

        # 3. second moment of the projected gradient
        v = state["exp_avg_sq"].to(cdt).mul_(beta2).addcmul_(gu, gu, value=1 - beta2)
        state["exp_avg_sq"].copy_(v)

        # 4. blended first-moment direction
        if group["variant"] == "code":
            c_t = (1 - beta1**t) / (1 - beta1)
            gh = (g + beta1 * m) / (1 + beta1 * c_t)
        else:
            gh = m / (1 - beta1**t)

        # 5. leading subspace: Adam in the eigenbasis
        proj = gh @ u
        lead = (proj / ((v / (1 - beta2**t)).sqrt() + eps)) @ u.T

        # 6. residual subspace: Newton-Schulz orthogonalisation, unit Frobenius norm
        resid = gh - proj @ u.T
        rnorm = torch.linalg.matrix_norm(resid)
        tiny = 1e-12 + (1e-6 if cdt == torch.float32 else 1e-12) * float(torch.linalg.matrix_norm(gh))
        if float(rnorm) <= tiny:
            ortho = torch.zeros_like(resid)
        else:
            ortho = newton_schulz5(resid, group["ns_steps"])
            ortho = ortho / (torch.linalg.matrix_norm(ortho) + eps)

        # 7. combine, normalise to per-entry RMS lr * rho, decoupled weight decay
        scale = math.sqrt(mrows * ncols)
        direction = lead + group["residual_weight"] * scale * ortho
        direction = direction / (torch.linalg.matrix_norm(direction) + eps)
        lr = group["lr"]
        new = (
            p.to(cdt)
            .mul_(1 - lr * group["weight_decay"])
            .sub_(direction, alpha=lr * group["lr_ratio"] * scale)
        )
        p.copy_(new)
