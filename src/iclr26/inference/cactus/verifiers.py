"""Acceptance rules for speculative sampling as batch-first tensor functions.

Naming follows the Cactus paper: ``q`` is the verifier (target) distribution, ``p`` the draft distribution and
``n ~ p`` the drafted token. Every rule here is *per position*: given ``(q, p, n)`` it accepts ``n`` with some
probability ``a(n)`` and otherwise emits a token from a residual law ``res(n)``. :meth:`BaseVerifier.rule`
returns both exactly, which makes :func:`one_step_output_distribution` an exact enumeration and
:meth:`BaseVerifier.verify` a sampler of the same law.

* :class:`SpSVerifier` -- standard speculative sampling: ``a = min(1, q_n/p_n)``, residual ``(q - p)_+``.
* :class:`CactusVerifier` -- SpS against ``h = cactus_h(q, n, delta)``, which raises the drafted token's
  probability inside a divergence budget ``KL(h || q) <= delta`` and rescales the rest.
* :class:`TypicalVerifier` -- vLLM typical acceptance (TAS): accept if ``q_n > min(eps, alpha exp(-H(q)))``,
  else emit ``argmax q``.
* :class:`TopKVerifier` -- accept if ``q_n`` is at least the k-th largest ``q`` (the official rule; ``exact_k``
  takes exactly k tokens); residual ``(1[top-k] - p)_+``.
* :class:`InterpVerifier` -- SpS against ``h = alpha p + (1 - alpha) q``.

Example
-------
>>> import torch
>>> q = torch.tensor([0.5, 0.3, 0.2], dtype=torch.float64)
>>> p = torch.tensor([0.2, 0.6, 0.2], dtype=torch.float64)
>>> r = one_step_output_distribution(p, q, CactusVerifier(delta=0.0))
>>> bool(torch.allclose(r, q, atol=1e-12))
True
"""

from __future__ import annotations

import torch
from torch import Tensor

from iclr26.checks import check_bool, check_choice, check_float, check_int, check_probability, check_tensor

__all__ = [
    "BaseVerifier",
    "CactusVerifier",
    "InterpVerifier",
    "SpSVerifier",
    "TopKVerifier",
    "TypicalVerifier",
    "acceptance_probability",
    "binary_kl",
    "cactus_h",
    "check_probs",
    "enumerate_rule",
    "one_step_law",
    "one_step_output_distribution",
]

_SUM_TOL = 1e-4


def check_probs(x: object, name: str) -> Tensor:
    """Validate a probability tensor over the last axis (floating, >= 0, sums to 1 within 1e-4)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
    if not x.is_floating_point():
        raise TypeError(f"{name} must be a floating-point tensor, got dtype {x.dtype}")
    if x.ndim < 1 or x.shape[-1] < 1:
        raise ValueError(f"{name} must have a non-empty last (vocabulary) axis, got shape {tuple(x.shape)}")
    if not bool(torch.isfinite(x).all()) or bool((x < 0).any()):
        raise ValueError(f"{name} must hold finite non-negative probabilities")
    err = float((x.sum(-1) - 1).abs().max())
    if err > _SUM_TOL:
        raise ValueError(f"{name} must sum to 1 over the last axis (tol {_SUM_TOL:g}); max error {err:.3g}")
    return x


def _bernoulli_parameter(name: str, x: Tensor | float) -> Tensor:
    """`x` as a float64 tensor of probabilities in [0, 1] (a NaN is refused)."""
    if isinstance(x, Tensor):
        check_tensor(name, x, floating=True)
    elif isinstance(x, bool) or not isinstance(x, (int, float)):
        raise TypeError(f"{name} must be a floating-point tensor or a number, got {type(x).__name__}")
    x = torch.as_tensor(x, dtype=torch.float64)
    if x.numel() and not bool(((x >= 0) & (x <= 1)).all()):
        raise ValueError(f"{name} must hold probabilities in [0, 1] (no NaN)")
    return x


def binary_kl(a: Tensor, b: Tensor) -> Tensor:
    """KL(Bernoulli(a) || Bernoulli(b)) elementwise, with 0 log 0 = 0."""
    a, b = _bernoulli_parameter("a", a), _bernoulli_parameter("b", b)
    try:
        torch.broadcast_shapes(a.shape, b.shape)
    except RuntimeError as error:
        raise ValueError(f"a {tuple(a.shape)} and b {tuple(b.shape)} must broadcast: {error}") from None

    def term(x: Tensor, y: Tensor) -> Tensor:
        return torch.where(x > 0, x * (torch.log(x.clamp_min(1e-300)) - torch.log(y.clamp_min(1e-300))), 0.0)

    return term(a, b) + term(1 - a, 1 - b)


def _exact_hn(qn: Tensor, delta: float, iters: int = 200) -> Tensor:
    """Largest x in [q_n, 1] with binary KL(x || q_n) <= delta (bisection; x = 1 when -log q_n <= delta)."""
    lo, hi = qn.clone(), torch.ones_like(qn)
    full = binary_kl(torch.ones_like(qn), qn) <= delta
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        ok = binary_kl(mid, qn) <= delta
        lo = torch.where(ok, mid, lo)
        hi = torch.where(ok, hi, mid)
    x = torch.where(full, torch.ones_like(qn), lo)
    return torch.where(qn > 0, x, qn)


def cactus_h(q: Tensor, n: Tensor, delta: float, solver: str = "taylor") -> Tensor:
    """Cactus's constrained target ``h`` around the drafted token ``n``.

    ``h_n`` is raised from ``q_n`` as far as the budget allows and the other tokens keep their relative odds:
    ``h_v = q_v (1 - h_n) / (1 - q_n)``. For this family ``KL(h || q)`` is the binary KL between
    ``h_n`` and ``q_n``. ``solver="taylor"`` uses the official second-order solution
    ``h_n = clip(q_n + sqrt(2 delta q_n (1 - q_n)), 0, 1)``; ``solver="exact"`` solves binary KL = delta by
    bisection (``h_n = 1`` when ``-log q_n <= delta``). When ``q_n`` is 0 or 1, ``h = q``.

    Parameters
    ----------
    q : (..., V) verifier probabilities.
    n : (...) drafted token ids (integer tensor).
    delta : divergence budget, >= 0 (0 gives ``h = q``).
    solver : "taylor" or "exact".
    """
    check_probs(q, "q")
    delta = check_float("delta", delta, low=0.0)
    check_choice("solver", solver, ("taylor", "exact"))
    if not isinstance(n, Tensor) or n.dtype in (torch.float16, torch.float32, torch.float64, torch.bool):
        raise TypeError("n must be an integer tensor of token ids")
    if tuple(n.shape) != tuple(q.shape[:-1]):
        raise ValueError(
            f"n must have shape {tuple(q.shape[:-1])} (q without its last axis), got {tuple(n.shape)}"
        )
    if n.numel() and (int(n.min()) < 0 or int(n.max()) >= q.shape[-1]):
        raise ValueError(f"n must hold token ids in [0, {q.shape[-1]})")
    if delta == 0:
        return q.clone()
    qn = q.gather(-1, n.unsqueeze(-1)).squeeze(-1)
    if solver == "taylor":
        hn = (qn + torch.sqrt((2 * delta * qn * (1 - qn)).clamp_min(0))).clamp(0, 1)
    else:
        hn = _exact_hn(qn.double(), delta).to(q.dtype)
    degenerate = (qn <= 0) | (qn >= 1)
    scale = torch.where(degenerate, torch.ones_like(qn), (1 - hn) / (1 - qn).clamp_min(1e-300))
    h = q * scale.unsqueeze(-1)
    h = h.scatter(-1, n.unsqueeze(-1), torch.where(degenerate, qn, hn).unsqueeze(-1))
    return torch.where(degenerate.unsqueeze(-1), q, h)


def _sps_rule(h: Tensor, p: Tensor, n: Tensor) -> tuple[Tensor, Tensor]:
    """SpS against ``h``: accept with min(1, h_n/p_n); residual (h - p)_+ normalised (h itself if it is 0)."""
    hn = h.gather(-1, n.unsqueeze(-1)).squeeze(-1)
    pn = p.gather(-1, n.unsqueeze(-1)).squeeze(-1)
    acc = torch.where(pn > 0, (hn / pn.clamp_min(1e-300)).clamp(max=1.0), torch.ones_like(pn))
    res = (h - p).clamp_min(0)
    z = res.sum(-1, keepdim=True)
    res = torch.where(z > 0, res / z.clamp_min(1e-300), h)
    return acc, res


class BaseVerifier:
    """Common sampling and validation for per-position rules; subclasses define :meth:`rule`."""

    def rule(self, q: Tensor, p: Tensor, n: Tensor) -> tuple[Tensor, Tensor]:
        """Exact rule at each position: ``(accept_prob[...], residual_law[..., V])`` given ``(q, p, n)``."""
        raise NotImplementedError

    def verify(
        self,
        target_probs: Tensor,
        draft_probs: Tensor,
        draft_ids: Tensor,
        generator: torch.Generator | None = None,
    ) -> tuple[Tensor, Tensor]:
        """Sample accept/reject per drafted position and a residual token for each.

        Parameters
        ----------
        target_probs, draft_probs : (B, K, V) verifier ``q`` and draft ``p`` at each drafted position.
        draft_ids : (B, K) drafted tokens (``draft_ids ~ draft_probs``).
        generator : torch generator for the uniforms and the residual draws.

        Returns
        -------
        accepted : (B, K) bool; the caller keeps the prefix up to the first False.
        residual_ids : (B, K) the token to emit at a position if it is the first rejected one.
        """
        check_probs(target_probs, "target_probs")
        check_probs(draft_probs, "draft_probs")
        if target_probs.ndim != 3:
            raise ValueError(f"target_probs must have shape (B, K, V), got {tuple(target_probs.shape)}")
        if draft_probs.shape != target_probs.shape:
            raise ValueError(
                f"draft_probs shape {tuple(draft_probs.shape)} must equal target_probs shape "
                f"{tuple(target_probs.shape)}"
            )
        if not isinstance(draft_ids, Tensor) or tuple(draft_ids.shape) != tuple(target_probs.shape[:2]):
            raise ValueError(
                f"draft_ids must be a tensor of shape {tuple(target_probs.shape[:2])}, "
                f"got {tuple(getattr(draft_ids, 'shape', ()))}"
            )
        ids = draft_ids.long()
        if ids.numel() and (int(ids.min()) < 0 or int(ids.max()) >= target_probs.shape[-1]):
            raise ValueError(f"draft_ids must hold token ids in [0, {target_probs.shape[-1]})")
        acc, res = self.rule(target_probs.double(), draft_probs.double(), ids)
        b, k, v = target_probs.shape
        # draws on the generator's device (a CPU generator works with cuda probabilities), moved back
        where = generator.device if generator is not None else acc.device
        u = torch.rand(b, k, generator=generator, dtype=torch.float64, device=where).to(acc.device)
        accepted = u < acc
        if b * k == 0:
            return accepted, ids.clone()
        flat = res.reshape(b * k, v).to(where)
        residual = torch.multinomial(flat, 1, generator=generator).reshape(b, k).to(ids.device)
        return accepted, residual


class SpSVerifier(BaseVerifier):
    """Standard speculative sampling (lossless): accept with min(1, q_n/p_n), residual (q - p)_+."""

    def rule(self, q: Tensor, p: Tensor, n: Tensor) -> tuple[Tensor, Tensor]:
        return _sps_rule(q, p, n)

    def __repr__(self) -> str:
        return "SpSVerifier()"


class CactusVerifier(BaseVerifier):
    """Constrained acceptance speculative sampling: SpS against ``h = cactus_h(q, n, delta, solver)``."""

    def __init__(self, delta: float = 1.0, solver: str = "taylor") -> None:
        self.delta = check_float("delta", delta, low=0.0)
        check_choice("solver", solver, ("taylor", "exact"))
        self.solver = solver

    def rule(self, q: Tensor, p: Tensor, n: Tensor) -> tuple[Tensor, Tensor]:
        return _sps_rule(cactus_h(q, n, self.delta, self.solver), p, n)

    def __repr__(self) -> str:
        return f"CactusVerifier(delta={self.delta:g}, solver={self.solver!r})"


class TypicalVerifier(BaseVerifier):
    """Typical acceptance (vLLM TAS): accept if ``q_n > min(eps, alpha * exp(-H(q)))``, else emit argmax q."""

    def __init__(self, eps: float = 0.09, alpha: float = 0.3) -> None:
        self.eps = check_float("eps", eps, 0.0, 1.0, low_open=True)
        self.alpha = check_float("alpha", alpha, low=0.0, low_open=True)

    def rule(self, q: Tensor, p: Tensor, n: Tensor) -> tuple[Tensor, Tensor]:
        entropy = -(q * torch.log(q.clamp_min(1e-300))).sum(-1)
        threshold = torch.minimum(torch.full_like(entropy, self.eps), self.alpha * torch.exp(-entropy))
        qn = q.gather(-1, n.unsqueeze(-1)).squeeze(-1)
        acc = (qn > threshold).to(q.dtype)
        res = torch.zeros_like(q).scatter(-1, q.argmax(-1, keepdim=True), 1.0)
        return acc, res

    def __repr__(self) -> str:
        return f"TypicalVerifier(eps={self.eps:g}, alpha={self.alpha:g})"


class TopKVerifier(BaseVerifier):
    """Top-k acceptance: accept the draft if it is among the verifier's top-k tokens; residual ``(1[top] - p)_+``.

    By default (``exact_k=False``) "top-k" follows the official rule (``cactus/topk.py``): every token whose
    target probability is at least the k-th largest value, so ties at the k-th value are all accepted (the set
    can hold more than k tokens) and, when fewer than k entries are non-zero, the k-th value is 0 and every
    drafted token is accepted, even one of target probability 0. ``exact_k=True`` takes exactly k tokens
    (``torch.topk``; ties at the k-th value broken by its index order), which never accepts a zero-probability
    token while k non-zero ones exist. The residual is normalised; if it is all zero (never sampled then) it
    falls back to uniform on the accepted set.
    """

    def __init__(self, k: int = 5, exact_k: bool = False) -> None:
        check_int("k", k, low=1)
        check_bool("exact_k", exact_k)
        self.k = k
        self.exact_k = exact_k

    def accepted_set(self, q: Tensor) -> Tensor:
        """Indicator (..., V) of the tokens this rule accepts."""
        k = min(self.k, q.shape[-1])
        values, indices = q.topk(k, dim=-1)
        if self.exact_k:
            return torch.zeros_like(q).scatter(-1, indices, 1.0)
        return (q >= values[..., k - 1 : k]).to(q.dtype)

    def rule(self, q: Tensor, p: Tensor, n: Tensor) -> tuple[Tensor, Tensor]:
        top = self.accepted_set(q)
        acc = top.gather(-1, n.unsqueeze(-1)).squeeze(-1)
        res = (top - p).clamp_min(0)
        z = res.sum(-1, keepdim=True)
        res = torch.where(z > 0, res / z.clamp_min(1e-300), top / top.sum(-1, keepdim=True))
        return acc, res

    def __repr__(self) -> str:
        return f"TopKVerifier(k={self.k}{', exact_k=True' if self.exact_k else ''})"


class InterpVerifier(BaseVerifier):
    """SpS against the interpolation ``h = alpha p + (1 - alpha) q`` (alpha = 0 is SpS)."""

    def __init__(self, alpha: float = 0.5) -> None:
        self.alpha = check_probability("alpha", alpha)

    def rule(self, q: Tensor, p: Tensor, n: Tensor) -> tuple[Tensor, Tensor]:
        return _sps_rule(self.alpha * p + (1 - self.alpha) * q, p, n)

    def __repr__(self) -> str:
        return f"InterpVerifier(alpha={self.alpha:g})"


def enumerate_rule(p: Tensor, q: Tensor, verifier: BaseVerifier) -> tuple[Tensor, Tensor]:
    """The verifier's exact rule for every possible drafted token ``n``: accept probabilities (..., V) and
    residual laws (..., V, V) (row ``n`` is the residual after rejecting ``n``), for ``p, q`` of shape (..., V)."""
    if not isinstance(verifier, BaseVerifier):
        raise TypeError(f"verifier must be one of this module's verifiers, got {type(verifier).__name__}")
    check_probs(p, "p")
    check_probs(q, "q")
    if p.shape != q.shape:
        raise ValueError(f"p and q must have the same shape, got {tuple(p.shape)} and {tuple(q.shape)}")
    v = q.shape[-1]
    qq = q.double().unsqueeze(-2).expand(*q.shape[:-1], v, v)
    pp = p.double().unsqueeze(-2).expand(*p.shape[:-1], v, v)
    n = torch.arange(v, device=q.device).expand(*q.shape[:-1], v)
    return verifier.rule(qq, pp, n)


def one_step_law(p: Tensor, q: Tensor, verifier: BaseVerifier) -> tuple[Tensor, Tensor]:
    """Exact acceptance probability and emitted law at one drafted position, from one enumeration of ``n ~ p``.

    Returns ``(sum_n p_n a(n), r)`` with ``r = sum_n p_n [a(n) e_n + (1 - a(n)) res(n)]``: the values of
    :func:`acceptance_probability` and :func:`one_step_output_distribution` (batched over leading axes).
    """
    acc, res = enumerate_rule(p, q, verifier)
    pd = p.double()
    return (pd * acc).sum(-1), pd * acc + ((pd * (1 - acc)).unsqueeze(-1) * res).sum(-2)


def one_step_output_distribution(p: Tensor, q: Tensor, verifier: BaseVerifier) -> Tensor:
    """Exact law of the token emitted at one drafted position, by enumerating the drafted token ``n ~ p``.

    ``r = sum_n p_n [a(n) e_n + (1 - a(n)) res(n)]``. Batched over leading axes: ``p, q`` of shape (..., V).
    """
    return one_step_law(p, q, verifier)[1]


def acceptance_probability(p: Tensor, q: Tensor, verifier: BaseVerifier) -> Tensor:
    """Exact probability that the drafted token is accepted: ``sum_n p_n a(n)`` (batched over leading axes)."""
    acc, _ = enumerate_rule(p, q, verifier)
    return (p.double() * acc).sum(-1)
