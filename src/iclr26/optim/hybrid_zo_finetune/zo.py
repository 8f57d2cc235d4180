"""Zeroth-order (SPSA, MeZO-style) and hybrid zeroth-/first-order optimizers.

The zeroth-order path never stores a perturbation: the direction ``z ~ N(0, I)`` over all ZO parameters is
drawn tensor by tensor from a dedicated :class:`torch.Generator` seeded by ``(seed, step, k)`` and regenerated
from that seed whenever it is needed again (perturb, un-perturb, update). The global RNG is never touched, so
data order and dropout are the same whether or not the ZO path runs.

One ZO estimate (central difference, one direction): ``g = (L(theta + mu z) - L(theta - mu z)) / (2 mu) * z``;
with ``n_perturb = q`` the q estimates are averaged.

:class:`HybridZOFO` updates the ZO block with that estimate and the FO block with backprop on the same
minibatch; :class:`MeZO` is the ZO block alone and runs the same two functions (:func:`spsa_projections`,
:func:`zo_update_`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import torch
from torch import Tensor

from iclr26.checks import check_choice, check_float, check_gradients, check_int, check_tensor

__all__ = ["HybridZOFO", "MeZO", "perturb_", "spsa_projections", "step_seed", "zo_update_"]

Closure = Callable[[bool], Any]


def step_seed(seed: int, step: int, k: int = 0) -> int:
    """The 63-bit generator seed of perturbation `k` at optimizer step `step` (a pure function of its inputs)."""
    check_int("seed", seed, low=0)
    check_int("step", step, low=0)
    check_int("k", k, low=0)
    return int(
        np.random.SeedSequence([int(seed), int(step), int(k)]).generate_state(1, dtype=np.uint64)[0] >> 1
    )


def _directions(params: Sequence[Tensor], seed: int) -> Iterable[tuple[Tensor, Tensor]]:
    """Yield ``(p, z_p)`` for every parameter, z drawn in a fixed order from a generator seeded with `seed`."""
    gen = torch.Generator(device=params[0].device).manual_seed(seed)
    for p in params:
        yield p, torch.randn(p.shape, generator=gen, dtype=p.dtype, device=p.device)


def _check_seeds(seeds: Sequence[int]) -> list[int]:
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, Sequence):
        raise TypeError(f"seeds must be a sequence of ints, got {type(seeds).__name__}")
    return [check_int(f"seeds[{i}]", s, low=0) for i, s in enumerate(seeds)]


@torch.no_grad()
def perturb_(params: Sequence[Tensor], seed: int, scale: float) -> None:
    """In place: ``p += scale * z_p`` with z regenerated from `seed` (no z is kept)."""
    params = _param_list(params, "params")
    check_int("seed", seed, low=0)
    check_float("scale", scale)
    _perturb(params, seed, scale)


@torch.no_grad()
def _perturb(params: Sequence[Tensor], seed: int, scale: float) -> None:
    if params:
        for p, z in _directions(params, seed):
            p.add_(z, alpha=scale)


@torch.no_grad()
def zo_update_(
    params: Sequence[Tensor],
    seeds: Sequence[int],
    coeffs: Sequence[float],
    lr: float,
    weight_decay: float = 0.0,
) -> None:
    """In place: ``p <- p - lr * (sum_k coeffs[k] * z_k + weight_decay * p)``, each z_k regenerated."""
    params = _param_list(params, "params")
    seeds = _check_seeds(seeds)
    if isinstance(coeffs, (str, bytes)) or not isinstance(coeffs, Sequence) or len(coeffs) != len(seeds):
        raise ValueError(f"coeffs must hold one number per seed ({len(seeds)}), got {coeffs!r}")
    for i, c in enumerate(coeffs):
        check_float(f"coeffs[{i}]", c)
    check_float("lr", lr, low=0.0)
    check_float("weight_decay", weight_decay, low=0.0)
    _zo_update(params, seeds, coeffs, lr, weight_decay)


@torch.no_grad()
def _zo_update(
    params: Sequence[Tensor], seeds: Sequence[int], coeffs: Sequence[float], lr: float, weight_decay: float
) -> None:
    if not params:
        return
    if weight_decay:
        for p in params:
            p.mul_(1.0 - lr * weight_decay)
    for seed, c in zip(seeds, coeffs):
        _perturb(params, seed, -lr * c)


def _loss_value(loss: Any, what: str) -> float:
    """Check that the closure returned one finite number and return it as a float."""
    if isinstance(loss, Tensor):
        if loss.numel() != 1:
            raise ValueError(f"closure must return a scalar loss, got a tensor of shape {tuple(loss.shape)}")
        value = float(loss.detach())
    elif isinstance(loss, (int, float)) and not isinstance(loss, bool):
        value = float(loss)
    else:
        raise ValueError(f"closure must return a scalar loss (tensor or float), got {type(loss).__name__}")
    if not math.isfinite(value):
        raise ValueError(f"closure returned a non-finite loss ({value}) at {what}")
    return value


def spsa_projections(
    params: Sequence[Tensor], closure: Closure, mu: float, seeds: Sequence[int]
) -> tuple[list[float], list[float]]:
    """Central-difference projected gradients ``(L(+mu z_k) - L(-mu z_k)) / (2 mu)``, one per seed.

    `closure(False)` is evaluated under ``torch.no_grad`` at ``theta + mu z`` and ``theta - mu z``; `params`
    are restored afterwards (also when the closure raises). Returns the projections and the mean
    ``(L_plus + L_minus) / 2`` of each pair.
    """
    params = _param_list(params, "params")
    if not params:
        raise ValueError("params is empty: SPSA needs at least one parameter to perturb")
    if not callable(closure):
        raise TypeError("closure must be callable: closure(need_grad: bool) -> loss")
    check_float("mu", mu, low=0.0, low_open=True)
    seeds = _check_seeds(seeds)
    _check_finite(params, "params")
    return _spsa(params, closure, mu, seeds)


def _spsa(
    params: Sequence[Tensor], closure: Closure, mu: float, seeds: Sequence[int]
) -> tuple[list[float], list[float]]:
    projections, centres = [], []
    for seed in seeds:
        offset = 0.0  # current displacement of params, in units of z
        try:
            _perturb(params, seed, mu)
            offset = mu
            with torch.no_grad():
                l_plus = _loss_value(closure(False), "theta + mu z")
            _perturb(params, seed, -2.0 * mu)
            offset = -mu
            with torch.no_grad():
                l_minus = _loss_value(closure(False), "theta - mu z")
        finally:
            if offset:
                _perturb(params, seed, -offset)
        projections.append((l_plus - l_minus) / (2.0 * mu))
        centres.append(0.5 * (l_plus + l_minus))
    return projections, centres


def _check_finite(params: Sequence[Tensor], name: str) -> None:
    """Refuse a step from parameters holding NaN or infinity (their losses could only be non-finite)."""
    for i, p in enumerate(params):
        check_tensor(f"{name}[{i}]", p.detach(), finite=True)


def _param_list(params: Iterable[Tensor] | None, name: str) -> list[Tensor]:
    if params is None:
        return []
    if isinstance(params, Tensor):
        raise TypeError(f"{name} must be an iterable of tensors, not a single tensor")
    out = list(params)
    for p in out:
        if not isinstance(p, Tensor):
            raise TypeError(f"{name} must hold tensors, got {type(p).__name__}")
        if p.is_complex():
            raise TypeError(f"{name}: complex parameters are not supported")
        if not p.is_floating_point():
            raise TypeError(f"{name}: parameters must be floating point, got {p.dtype}")
        if p.is_sparse:
            raise TypeError(f"{name}: sparse parameters are not supported")
    if len({id(p) for p in out}) != len(out):
        raise ValueError(f"{name} lists the same parameter more than once")
    return out


def _state_steps(state: object) -> int:
    if not isinstance(state, dict) or "steps" not in state:
        raise ValueError(f"state must be a dict from state_dict() with a 'steps' entry, got {state!r}")
    return check_int("state['steps']", state["steps"], low=0)


class MeZO:
    """MeZO: memory-free SPSA on `params` (Malladi et al., 2023), the hybrid's ZO block on its own.

    ``step(closure)`` with ``closure(need_grad: bool) -> loss``: two forward passes per perturbation at
    ``theta +- mu z``, then ``theta <- theta - lr * (mean_k proj_k z_k + weight_decay * theta)``. z is
    regenerated from :func:`step_seed` ``(seed, step, k)``; nothing but the step counter is stored.

    Examples
    --------
    >>> theta = torch.zeros(3)
    >>> opt = MeZO([theta], lr=0.05, mu=1e-3, seed=0)
    >>> losses = [opt.step(lambda need_grad: float(((theta - 1) ** 2).sum())) for _ in range(300)]
    >>> losses[-1] < 0.1 * losses[0]
    True
    """

    def __init__(
        self,
        params: Iterable[Tensor],
        lr: float,
        mu: float = 1e-3,
        n_perturb: int = 1,
        seed: int = 0,
        weight_decay: float = 0.0,
    ) -> None:
        self.params = _param_list(params, "params")
        if not self.params:
            raise ValueError("params is empty: MeZO needs at least one parameter")
        self.lr = check_float("lr", lr, low=0.0)
        self.mu = check_float("mu", mu, low=0.0, low_open=True)
        self.weight_decay = check_float("weight_decay", weight_decay, low=0.0)
        self.n_perturb = check_int("n_perturb", n_perturb, low=1)
        self.seed = check_int("seed", seed, low=0)
        self.steps = 0

    def step(self, closure: Closure) -> float:
        """One SPSA step; returns the mean of the perturbed losses."""
        if not callable(closure):
            raise TypeError("closure must be callable: closure(need_grad: bool) -> loss")
        _check_finite(self.params, "params")
        seeds = [step_seed(self.seed, self.steps, k) for k in range(self.n_perturb)]
        proj, centres = _spsa(self.params, closure, self.mu, seeds)
        coeffs = [g / self.n_perturb for g in proj]
        _zo_update(self.params, seeds, coeffs, self.lr, self.weight_decay)
        self.steps += 1
        return float(np.mean(centres))

    def state_dict(self) -> dict[str, int]:
        """The step counter (z is a function of seed and step, so this is all the state there is)."""
        return {"steps": self.steps}

    def load_state_dict(self, state: dict[str, int]) -> None:
        """Restore the step counter."""
        self.steps = _state_steps(state)


class HybridZOFO:
    """Hybrid fine-tuning step: SPSA (MeZO) on the base weights, backprop on the PEFT weights.

    Parameters
    ----------
    zo_params : base weights theta, updated with the central-difference SPSA estimate (no autograd: their
        ``requires_grad`` is switched off unless ``freeze_zo=False``).
    fo_params : PEFT weights phi (e.g. LoRA A, B), updated by a torch optimizer from backprop gradients.
    lr_zo, lr_fo : learning rates eta_theta, eta_phi (>= 0). With ``lr_zo == 0`` no perturbation is made at
        all, so the step is exactly the FO optimizer's step.
    mu : perturbation scale (> 0).
    n_perturb : number q of SPSA directions averaged per step.
    fo_optimizer : ``"sgd"``, ``"adam"`` or ``"adamw"`` (torch.optim) for phi.
    seed : seed of the perturbation stream; z for step t, direction k comes from ``step_seed(seed, t, k)``.
    weight_decay_zo : MeZO-style decoupled weight decay on theta.
    fo_kwargs : extra keyword arguments of the FO optimizer (momentum, weight_decay, betas, ...).
    fo_at_perturbed : take g_phi at ``theta + mu z_0`` (sharing that forward pass) instead of at the
        unperturbed theta (the default, one extra forward pass).

    ``step(closure)`` calls ``closure(need_grad)``: with ``need_grad=False`` it runs under ``torch.no_grad``
    (ZO evaluations), with ``need_grad=True`` the returned loss is back-propagated by the optimizer (the
    closure must not call ``backward`` itself). Every call must use the same minibatch. Returns the loss at the
    unperturbed point (or the mean of the perturbed losses when no unperturbed evaluation is made).

    Examples
    --------
    >>> theta, phi = torch.zeros(3), torch.zeros(2, requires_grad=True)
    >>> opt = HybridZOFO([theta], [phi], lr_zo=0.05, lr_fo=0.1, seed=0)
    >>> closure = lambda need_grad: ((theta - 1) ** 2).sum() + ((phi - 1) ** 2).sum()
    >>> losses = [opt.step(closure) for _ in range(300)]
    >>> losses[-1] < 0.1 * losses[0]
    True
    """

    def __init__(
        self,
        zo_params: Iterable[Tensor] | None,
        fo_params: Iterable[Tensor] | None,
        lr_zo: float,
        lr_fo: float,
        mu: float = 1e-3,
        n_perturb: int = 1,
        fo_optimizer: str = "sgd",
        seed: int = 0,
        *,
        weight_decay_zo: float = 0.0,
        fo_kwargs: dict[str, Any] | None = None,
        fo_at_perturbed: bool = False,
        freeze_zo: bool = True,
    ) -> None:
        self.zo_params = _param_list(zo_params, "zo_params")
        self.fo_params = _param_list(fo_params, "fo_params")
        if not self.zo_params and not self.fo_params:
            raise ValueError("zo_params and fo_params are both empty: nothing to optimize")
        if {id(p) for p in self.zo_params} & {id(p) for p in self.fo_params}:
            raise ValueError("zo_params and fo_params overlap: each parameter must be in exactly one set")
        self.lr_zo = check_float("lr_zo", lr_zo, low=0.0)
        self.lr_fo = check_float("lr_fo", lr_fo, low=0.0)
        self.mu = check_float("mu", mu, low=0.0, low_open=True)
        self.weight_decay_zo = check_float("weight_decay_zo", weight_decay_zo, low=0.0)
        self.n_perturb = check_int("n_perturb", n_perturb, low=1)
        self.seed = check_int("seed", seed, low=0)
        for key, value in (fo_kwargs or {}).items():
            values = value if isinstance(value, (tuple, list)) else (value,)
            for v in values:
                if isinstance(v, float) or (isinstance(v, int) and not isinstance(v, bool)):
                    check_float(f"fo_kwargs[{key!r}]", v)
        self.fo_at_perturbed = bool(fo_at_perturbed)
        optimizers = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam, "adamw": torch.optim.AdamW}
        check_choice("fo_optimizer", fo_optimizer, optimizers)
        for p in self.fo_params:
            if not p.requires_grad:
                raise ValueError("fo_params must require grad (they are trained by backprop)")
        if freeze_zo:
            for p in self.zo_params:
                p.requires_grad_(False)
        self.fo_optimizer = (
            optimizers[fo_optimizer](self.fo_params, lr=self.lr_fo, **(fo_kwargs or {}))
            if self.fo_params
            else None
        )
        self.steps = 0
        self.last_projections: list[float] = []

    @property
    def zo_active(self) -> bool:
        """Whether the ZO block runs (there are ZO parameters and ``lr_zo > 0``)."""
        return bool(self.zo_params) and self.lr_zo > 0.0

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear the FO parameters' gradients."""
        if self.fo_optimizer is not None:
            self.fo_optimizer.zero_grad(set_to_none=set_to_none)

    def _fo_backward(self, closure: Closure, where: str) -> float:
        self.zero_grad()
        with torch.enable_grad():
            loss = closure(True)
        value = _loss_value(loss, where)
        if not isinstance(loss, Tensor) or not loss.requires_grad:
            raise ValueError(
                "closure(True) must return a loss tensor that depends on fo_params (requires grad)"
            )
        loss.backward()
        return value

    def step(self, closure: Closure) -> float:
        """One hybrid step on one minibatch (see the class docstring); returns a loss value."""
        if not callable(closure):
            raise TypeError("closure must be callable: closure(need_grad: bool) -> loss")
        _check_finite(self.zo_params, "zo_params")
        _check_finite(self.fo_params, "fo_params")
        seeds = [step_seed(self.seed, self.steps, k) for k in range(self.n_perturb)] if self.zo_active else []
        proj: list[float] = []
        centres: list[float] = []
        loss_value: float | None = None
        fo_done = False
        if seeds and self.fo_at_perturbed and self.fo_optimizer is not None:
            # g_phi at theta + mu z_0, sharing the L_plus forward pass; theta is restored in all cases
            offset = 0.0
            try:
                _perturb(self.zo_params, seeds[0], self.mu)
                offset = self.mu
                l_plus = self._fo_backward(closure, "theta + mu z")
                _perturb(self.zo_params, seeds[0], -2.0 * self.mu)
                offset = -self.mu
                with torch.no_grad():
                    l_minus = _loss_value(closure(False), "theta - mu z")
            finally:
                if offset:
                    _perturb(self.zo_params, seeds[0], -offset)
            proj.append((l_plus - l_minus) / (2.0 * self.mu))
            centres.append(0.5 * (l_plus + l_minus))
            more, more_c = _spsa(self.zo_params, closure, self.mu, seeds[1:])
            proj, centres, fo_done = proj + more, centres + more_c, True
        elif seeds:
            proj, centres = _spsa(self.zo_params, closure, self.mu, seeds)
        if self.fo_optimizer is not None:
            if not fo_done:
                loss_value = self._fo_backward(closure, "theta")
            try:
                check_gradients("HybridZOFO", self.fo_optimizer.param_groups)
            except ValueError as err:  # "non-finite" marks a diverged run, as for a non-finite loss
                if "NaN or infinite" in str(err):
                    raise ValueError(f"{err} (a non-finite gradient of fo_params)") from None
                raise
            self.fo_optimizer.step()
        if seeds:
            _zo_update(
                self.zo_params, seeds, [g / len(seeds) for g in proj], self.lr_zo, self.weight_decay_zo
            )
        self.last_projections = proj
        self.steps += 1
        if loss_value is None:
            loss_value = float(np.mean(centres)) if centres else float("nan")
        return loss_value

    def state_dict(self) -> dict[str, Any]:
        """Step counter (fixes every future z) and the FO optimizer's state."""
        return {
            "steps": self.steps,
            "fo": self.fo_optimizer.state_dict() if self.fo_optimizer is not None else None,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore :meth:`state_dict`."""
        self.steps = _state_steps(state)
        if self.fo_optimizer is not None and state.get("fo") is not None:
            self.fo_optimizer.load_state_dict(state["fo"])
