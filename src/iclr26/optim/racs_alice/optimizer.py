"""RACS and Alice: two optimizers derived from structured Fisher approximations (arXiv 2502.07752).

Both precondition 2-D weight matrices. Every other tensor (biases, norm gains, and by choice embeddings or the
output head) goes to a *fallback* parameter group that this same optimizer updates with AdamW (the functional
:func:`torch.optim.adamw.adamw`, so it matches :class:`torch.optim.AdamW` exactly). :meth:`RACS.from_model` and
:meth:`Alice.from_model` route a model's parameters with :func:`iclr26.lab.param_groups.split_param_groups`.

RACS (Row And Column Scaled SGD) keeps one EMA of mean squared gradient per row and per column (``m + n``
floats for an ``m x n`` matrix plus the limiter's norm), scales the gradient by both and limits the growth of
the scaled update's norm by a factor ``gamma`` per step. Alice tracks a rank-``r`` eigenbasis ``U`` of the row
covariance ``E[G G^T]`` (refreshed every ``update_interval`` steps by one subspace-iteration step, keeping the
``leading_basis`` top directions and filling the rest with fresh directions from the complement), runs an Adam
without bias correction in that basis, and adds a column-scaled, norm-limited update for the part of the
gradient outside the basis.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import torch
from torch import nn
from torch.optim.adamw import adamw as _adamw_functional

from iclr26.checks import check_choice, check_float, check_gradients, check_int, check_parameters
from iclr26.lab.param_groups import split_param_groups

__all__ = ["RACS", "Alice", "alice_state_numel", "racs_state_numel"]


def racs_state_numel(m: int, n: int) -> int:
    """Optimizer-state floats RACS keeps for an ``m x n`` matrix: row and column scales plus the limiter norm."""
    return m + n + 1


def alice_state_numel(m: int, n: int, rank: int) -> int:
    """Optimizer-state floats Alice keeps for an ``m x n`` matrix at ``rank`` (after transposing to ``m <= n``).

    ``U`` (m x r), ``Q`` (r x r), the two moments (r x n each), the residual scale ``p`` (n) and the limiter norm,
    with ``r = min(rank, m)``.
    """
    m, n = min(m, n), max(m, n)
    r = min(rank, m)
    return m * r + r * r + 2 * r * n + n + 1


class _FallbackOptimizer(torch.optim.Optimizer):
    """Shared plumbing: validation, the AdamW fallback group, closure handling and the per-matrix loop."""

    _matrix_name = "matrix optimizer"

    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        defaults = {"fallback": False, "adam_betas": (0.9, 0.999), "adam_eps": 1e-8, **defaults}
        super().__init__(params, defaults)
        check_parameters(type(self).__name__, self.param_groups)

    # --- validation -------------------------------------------------------------------------------------------
    def _validate_common(self, group: dict[str, Any]) -> None:
        check_float("lr", group["lr"], low=0.0)
        check_float("weight_decay", group["weight_decay"], low=0.0)
        check_float("eps", group["eps"], low=0.0)
        betas = group["adam_betas"]
        if not isinstance(betas, (tuple, list)) or len(betas) != 2:
            raise ValueError(f"adam_betas must be a pair (beta1, beta2), got {betas!r}")
        for i, b in enumerate(betas):
            check_float(f"adam_betas[{i}]", b, 0.0, 1.0, high_open=True)
        check_float("adam_eps", group["adam_eps"], low=0.0)
        if not isinstance(group["fallback"], bool):
            raise TypeError(f"fallback must be a bool, got {type(group['fallback']).__name__}")

    def _validate_group(self, group: dict[str, Any]) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group after checking its hyperparameters and parameter shapes/dtypes."""
        super().add_param_group(param_group)
        group = self.param_groups[-1]
        self._validate_common(group)
        self._validate_group(group)
        for p in group["params"]:
            if p.is_complex():
                raise TypeError(f"{type(self).__name__} does not support complex parameters (got {p.dtype})")
            if not group["fallback"] and p.ndim != 2:
                raise ValueError(
                    f"{type(self).__name__} preconditions 2-D matrices only; got a {p.ndim}-D parameter of shape "
                    f"{tuple(p.shape)} in a matrix group: route it to AdamW with a group "
                    "{'params': [...], 'fallback': True} (or use from_model)"
                )

    # --- stepping ---------------------------------------------------------------------------------------------
    @torch.no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Perform one optimization step; ``closure`` (re-evaluating the loss) is optional."""
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        check_gradients(type(self).__name__, self.param_groups)
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            if group["fallback"]:
                self._adamw_step(group, params)
            else:
                for index, p in enumerate(group["params"]):
                    if p.grad is not None:
                        self._matrix_step(p, group, index)
        return loss

    def _adamw_step(self, group: dict[str, Any], params: list[torch.Tensor]) -> None:
        if not params:
            return
        exp_avgs, exp_avg_sqs, steps = [], [], []
        for p in params:
            state = self.state[p]
            if not state:
                state["step"] = torch.tensor(0.0)
                state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
            exp_avgs.append(state["exp_avg"])
            exp_avg_sqs.append(state["exp_avg_sq"])
            steps.append(state["step"])
        beta1, beta2 = group["adam_betas"]
        _adamw_functional(
            params,
            [p.grad for p in params],
            exp_avgs,
            exp_avg_sqs,
            [],
            steps,
            foreach=False,
            amsgrad=False,
            beta1=beta1,
            beta2=beta2,
            lr=group["lr"],
            weight_decay=group["weight_decay"],
            eps=group["adam_eps"],
            maximize=False,
        )

    def _matrix_step(self, p: torch.Tensor, group: dict[str, Any], index: int) -> None:  # pragma: no cover
        raise NotImplementedError

    @staticmethod
    def _work_dtype(p: torch.Tensor) -> torch.dtype:
        return torch.promote_types(p.dtype, torch.float32)

    @staticmethod
    def _limit(norm: torch.Tensor, phi: torch.Tensor, gamma: float) -> float:
        """Norm-growth limiter: the factor ``eta`` that caps a direction of norm ``norm`` at ``gamma * phi``.

        Updates ``phi`` to the limited norm. The first step (``phi == 0``) is not limited.
        """
        prev, value = float(phi[0]), float(norm)
        eta = 1.0
        if prev > 0 and value > 0:
            eta = min(1.0, gamma * prev / value)
        phi.fill_(value * eta)
        return eta

    @classmethod
    def _from_model(
        cls,
        model: nn.Module,
        lr: float,
        fallback_lr: float | None,
        fallback_weight_decay: float,
        exclude_head: bool,
        **kwargs: Any,
    ) -> Any:
        if not isinstance(model, nn.Module):
            raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
        matrices, others = split_param_groups(model, exclude_head=exclude_head)
        groups: list[dict[str, Any]] = []
        if matrices:
            groups.append({"params": matrices})
        if others:
            groups.append(
                {
                    "params": others,
                    "fallback": True,
                    "lr": 1e-3 if fallback_lr is None else fallback_lr,
                    "weight_decay": fallback_weight_decay,
                }
            )
        if not groups:
            raise ValueError("model has no trainable parameters")
        return cls(groups, lr=lr, **kwargs)


class RACS(_FallbackOptimizer):
    """Row And Column Scaled SGD with a Fira-style norm-growth limiter (no momentum).

    For an ``m x n`` gradient ``G`` with ``V = G * G``: ``q <- beta q + (1-beta) rowmean(V)`` (m floats),
    ``s <- beta s + (1-beta) colmean(V)`` (n floats), both zero-initialised without bias correction;
    ``G~ = Diag(q + eps)^{-1/2} G Diag(s + eps)^{-1/2}``; ``eta_t = min(1, gamma phi_{t-1} / ||G~||)`` (1 on the
    first step), ``phi_t = eta_t ||G~||``; ``W <- W - lr alpha eta_t G~`` (plus decoupled weight decay).

    Parameters
    ----------
    params : iterable of tensors or param-group dicts
        Matrix groups must hold 2-D tensors only. A group with ``"fallback": True`` is updated by AdamW
        (``lr``, ``adam_betas``, ``adam_eps``, ``weight_decay`` of that group).
    lr, beta, alpha, gamma, eps, weight_decay : float
        Per-group hyperparameters (defaults 1e-3, 0.9, 0.05, 1.01, 1e-8, 0).
    normalize : ``"mean"`` or ``"fixed_point"``
        ``"mean"`` uses plain row/column means of ``V``; ``"fixed_point"`` runs one step of the rank-1 Frobenius
        fixed point ``q = V s / ||s||^2``, ``s = V^T q / ||q||^2`` (EMA-smoothed), whose product ``q s^T`` equals
        ``V`` when ``V`` is rank one. The two differ by a scalar per step.
    """

    _matrix_name = "RACS"

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        beta: float = 0.9,
        alpha: float = 0.05,
        gamma: float = 1.01,
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        normalize: str = "mean",
        adam_betas: tuple[float, float] = (0.9, 0.999),
        adam_eps: float = 1e-8,
    ) -> None:
        defaults = {
            "lr": lr,
            "beta": beta,
            "alpha": alpha,
            "gamma": gamma,
            "eps": eps,
            "weight_decay": weight_decay,
            "normalize": normalize,
            "adam_betas": adam_betas,
            "adam_eps": adam_eps,
        }
        super().__init__(params, defaults)

    @classmethod
    def from_model(
        cls,
        model: nn.Module,
        lr: float = 1e-3,
        fallback_lr: float | None = None,
        fallback_weight_decay: float = 0.0,
        exclude_head: bool = True,
        **kwargs: Any,
    ) -> RACS:
        """RACS on ``model``'s hidden matrices and AdamW (``fallback_lr``, default 1e-3) on everything else."""
        return cls._from_model(model, lr, fallback_lr, fallback_weight_decay, exclude_head, **kwargs)

    def _validate_group(self, group: dict[str, Any]) -> None:
        check_float("beta", group["beta"], 0.0, 1.0, high_open=True)
        check_float("alpha", group["alpha"], low=0.0)
        check_float("gamma", group["gamma"], low=1.0, finite=False)  # infinity switches the limiter off
        check_choice("normalize", group["normalize"], ("mean", "fixed_point"))

    def _matrix_step(self, p: torch.Tensor, group: dict[str, Any], index: int) -> None:
        dtype = self._work_dtype(p)
        grad = p.grad.to(dtype)
        state = self.state[p]
        if not state:
            state["step"] = torch.tensor(0.0)
            state["row"] = torch.zeros(p.shape[0], dtype=dtype, device=p.device)
            state["col"] = torch.zeros(p.shape[1], dtype=dtype, device=p.device)
            state["phi"] = torch.zeros(1, dtype=dtype, device=p.device)
        state["step"] += 1
        beta, eps = group["beta"], group["eps"]
        row, col = state["row"], state["col"]
        sq = grad * grad
        if group["normalize"] == "mean":
            row.lerp_(sq.mean(dim=1), 1.0 - beta)
            col.lerp_(sq.mean(dim=0), 1.0 - beta)
        else:
            s_bar = col if bool((col > 0).any()) else torch.ones_like(col)
            row.lerp_(sq @ s_bar / s_bar.square().sum(), 1.0 - beta)
            q_norm = row.square().sum()
            col_stat = sq.T @ row / q_norm if float(q_norm) > 0 else sq.mean(dim=0)
            col.lerp_(col_stat, 1.0 - beta)
        scaled = torch.mul(grad, (row + eps).rsqrt()[:, None]).mul_((col + eps).rsqrt()[None, :])
        eta = self._limit(torch.linalg.vector_norm(scaled), state["phi"], group["gamma"])
        if group["weight_decay"]:
            p.mul_(1.0 - group["lr"] * group["weight_decay"])
        p.add_(scaled.to(p.dtype), alpha=-group["lr"] * group["alpha"] * eta)


class Alice(_FallbackOptimizer):
    """Low-rank eigenbasis Adam with basis switching and norm-limited full-rank compensation.

    Works on ``G`` (transposed when ``m > n`` so that the projected side is the smaller one, size ``m``), with
    ``r = min(rank, m)`` and ``l = min(leading_basis, r)``:

    1. At step 1 and every ``update_interval`` steps: ``Qhat = beta3 U Q U^T + (1-beta3) G G^T``; one subspace
       iteration ``U' = QR(Qhat U)``; eigen-decompose ``U'^T Qhat U'``; keep the top ``l`` eigenvectors and fill the
       other ``r - l`` columns with an orthonormal basis of a subspace of their complement (``complement="random"``:
       Gaussian directions projected on the complement; ``"deterministic"``: QR of ``(I - U1 U1^T)``'s leading
       columns). ``Q`` is rotated into the new basis unless ``rotate_q_on_switch=False``; the moments are kept
       unless ``reproject_on_switch=True``. ``U`` starts as a random orthonormal matrix.
    2. ``sigma = U^T G``; ``Q, M, V`` EMAs (``beta3, beta1, beta2``) of ``sigma sigma^T, sigma, sigma^2``;
       ``omega = M / (sqrt(V) + eps)``.
    3. ``p <- max(beta1 p + (1-beta1)(colsum(G^2) - colsum(sigma^2)), 1e-8)``;
       ``C = sqrt(m - r) (G - U sigma) Diag(p)^{-1/2}``, norm-limited by ``gamma`` per step.
    4. ``W <- W - lr alpha (U omega + alpha_c C)`` (plus decoupled weight decay).

    ``beta3 = 0`` gives Alice-0. Randomness comes from ``seed``, the parameter's position in its group and the
    step, so a run resumed from ``state_dict`` is bit-identical. Fallback groups (``"fallback": True``) use AdamW.
    """

    _matrix_name = "Alice"

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 0.02,
        betas: tuple[float, float, float] = (0.9, 0.9, 0.999),
        alpha: float = 0.3,
        alpha_c: float = 0.4,
        update_interval: int = 200,
        rank: int = 256,
        leading_basis: int = 40,
        gamma: float = 1.01,
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        complement: str = "random",
        rotate_q_on_switch: bool = True,
        reproject_on_switch: bool = False,
        seed: int = 0,
        adam_betas: tuple[float, float] = (0.9, 0.999),
        adam_eps: float = 1e-8,
    ) -> None:
        defaults = {
            "lr": lr,
            "betas": betas,
            "alpha": alpha,
            "alpha_c": alpha_c,
            "update_interval": update_interval,
            "rank": rank,
            "leading_basis": leading_basis,
            "gamma": gamma,
            "eps": eps,
            "weight_decay": weight_decay,
            "complement": complement,
            "rotate_q_on_switch": rotate_q_on_switch,
            "reproject_on_switch": reproject_on_switch,
            "seed": seed,
            "adam_betas": adam_betas,
            "adam_eps": adam_eps,
        }
        super().__init__(params, defaults)

    @classmethod
    def from_model(
        cls,
        model: nn.Module,
        lr: float = 0.02,
        fallback_lr: float | None = None,
        fallback_weight_decay: float = 0.0,
        exclude_head: bool = True,
        **kwargs: Any,
    ) -> Alice:
        """Alice on ``model``'s hidden matrices and AdamW (``fallback_lr``, default 1e-3) on everything else."""
        return cls._from_model(model, lr, fallback_lr, fallback_weight_decay, exclude_head, **kwargs)

    def _validate_group(self, group: dict[str, Any]) -> None:
        betas = group["betas"]
        if not isinstance(betas, (tuple, list)) or len(betas) != 3:
            raise ValueError(f"betas must be a triple (beta1, beta2, beta3), got {betas!r}")
        for i, b in enumerate(betas):
            check_float(f"betas[{i}]", b, 0.0, 1.0, high_open=True)
        check_float("alpha", group["alpha"], low=0.0)
        check_float("alpha_c", group["alpha_c"], low=0.0)
        check_float("gamma", group["gamma"], low=1.0, finite=False)  # infinity switches the limiter off
        check_int("rank", group["rank"], low=1)
        check_int("update_interval", group["update_interval"], low=1)
        check_int("leading_basis", group["leading_basis"], low=1)
        if group["leading_basis"] > group["rank"]:
            raise ValueError(
                f"leading_basis must be <= rank, got leading_basis={group['leading_basis']} > rank={group['rank']}"
            )
        check_choice("complement", group["complement"], ("random", "deterministic"))
        check_int("seed", group["seed"])

    # --- pieces -----------------------------------------------------------------------------------------------
    @staticmethod
    def _generator(group: dict[str, Any], index: int, step: int) -> torch.Generator:
        return torch.Generator().manual_seed((group["seed"] * 1_000_003 + index * 7_919 + step) % (2**63))

    def _set_frozen_basis(self, p: torch.Tensor, basis: torch.Tensor) -> None:
        """Test hook: start ``p``'s state with the given orthonormal basis and never switch it."""
        group = next(g for g in self.param_groups if any(q is p for q in g["params"]))
        self._init_state(p, group, 0)
        state = self.state[p]
        if basis.shape != state["U"].shape:
            raise ValueError(f"basis must have shape {tuple(state['U'].shape)}, got {tuple(basis.shape)}")
        state["U"].copy_(basis)
        state["frozen"] = True

    def _init_state(self, p: torch.Tensor, group: dict[str, Any], index: int) -> None:
        dtype = self._work_dtype(p)
        m, n = min(p.shape), max(p.shape)
        r = min(group["rank"], m)
        gen = self._generator(group, index, 0)
        basis = torch.linalg.qr(torch.randn(m, r, generator=gen, dtype=torch.float64)).Q.to(dtype)
        state = self.state[p]
        state["step"] = torch.tensor(0.0)
        state["U"] = basis.to(p.device)
        state["Q"] = torch.zeros(r, r, dtype=dtype, device=p.device)
        state["M"] = torch.zeros(r, n, dtype=dtype, device=p.device)
        state["V"] = torch.zeros(r, n, dtype=dtype, device=p.device)
        state["p"] = torch.zeros(n, dtype=dtype, device=p.device)
        state["phi"] = torch.zeros(1, dtype=dtype, device=p.device)

    def _switch(self, state: dict[str, Any], grad: torch.Tensor, group: dict[str, Any], index: int) -> None:
        beta3 = group["betas"][2]
        u, q = state["U"], state["Q"]
        r = u.shape[1]
        lead = min(group["leading_basis"], r)
        q_hat = beta3 * (u @ q @ u.T) + (1.0 - beta3) * (grad @ grad.T)
        u_it, _ = torch.linalg.qr(q_hat @ u)
        vals, vecs = torch.linalg.eigh(u_it.T @ q_hat @ u_it)
        order = torch.argsort(vals, descending=True)
        u1 = (u_it @ vecs)[:, order[:lead]]
        if lead < r:
            m = u.shape[0]
            if group["complement"] == "random":
                gen = self._generator(group, index, int(state["step"]))
                z = torch.randn(m, r - lead, generator=gen, dtype=torch.float64).to(u.dtype)
            else:
                z = torch.eye(m, r - lead, dtype=u.dtype)
            z = z.to(u.device)
            for _ in range(2):  # project twice for numerical orthogonality to u1
                z = z - u1 @ (u1.T @ z)
            u2 = torch.linalg.qr(z).Q
            u2 = u2 - u1 @ (u1.T @ u2)
            u2 = torch.linalg.qr(u2).Q
            new = torch.cat([u1, u2], dim=1)
        else:
            new = u1
        rot = new.T @ u  # coordinates of the old basis in the new one
        if group["rotate_q_on_switch"]:
            state["Q"] = rot @ q @ rot.T
        if group["reproject_on_switch"]:
            state["M"] = rot @ state["M"]
            state["V"] = rot.square() @ state["V"]
        state["U"] = new

    def _matrix_step(self, p: torch.Tensor, group: dict[str, Any], index: int) -> None:
        dtype = self._work_dtype(p)
        transpose = p.shape[0] > p.shape[1]
        grad = p.grad.to(dtype)
        grad = grad.T if transpose else grad
        state = self.state[p]
        if not state:
            self._init_state(p, group, index)
        state["step"] += 1
        step = int(state["step"])
        beta1, beta2, beta3 = group["betas"]
        if not state.get("frozen", False) and (step == 1 or step % group["update_interval"] == 0):
            self._switch(state, grad, group, index)
        u = state["U"]
        m, r = u.shape
        sigma = u.T @ grad
        state["Q"].lerp_(sigma @ sigma.T, 1.0 - beta3)
        state["M"].lerp_(sigma, 1.0 - beta1)
        state["V"].lerp_(sigma.square(), 1.0 - beta2)
        omega = state["M"] / (state["V"].sqrt() + group["eps"])
        energy = torch.linalg.vector_norm(grad, dim=0).square_() - sigma.square().sum(dim=0)
        state["p"].lerp_(energy, 1.0 - beta1).clamp_min_(1e-8)
        if m > r:
            comp = torch.addmm(grad, u, sigma, alpha=-1.0)  # the part of G outside span(U)
            comp.mul_((math.sqrt(m - r) * state["p"].rsqrt())[None, :])
            eta = self._limit(torch.linalg.vector_norm(comp), state["phi"], group["gamma"])
            update = torch.addmm(comp, u, omega, beta=group["alpha_c"] * eta)
        else:
            self._limit(torch.zeros(()), state["phi"], group["gamma"])
            update = u @ omega
        update = update.T if transpose else update
        if group["weight_decay"]:
            p.mul_(1.0 - group["lr"] * group["weight_decay"])
        p.add_(update.to(p.dtype), alpha=-group["lr"] * group["alpha"])
