"""HyperPrune: one hypernetwork, shared by all layers and conditioned on layer/component embeddings, that maps
each group's weight/activation features to logits over the group's admissible n:m patterns.

Per decoder block (sequentially calibrated) the hypernetwork and the block's layer embedding are trained for
``steps_per_block`` Adam steps on the paper's objective ``min L_rec - lambda_1 R_out + lambda_2 R_cont``:

    L = sum_linears ||(W - M o W) X||^2 / ||W X||^2                       (local reconstruction)
      + beta  * mean ||H_psi(replay) - H_psi*(replay)||^2                 (continual: earlier blocks' outputs)
      - gamma * sum_linears E_M E_x ||(W o M) Diag(x)||^2 / E_x ||W Diag(x)||^2   (feature outliers, R_out)

with ``M`` in ``L_rec`` a straight-through Gumbel sample (tau annealed 4 -> 0.05) and ``R_out`` the exact
expectation over the sampled pattern's distribution (:func:`outlier_retention` on ``softmax(logits) @
patterns``); then the block's hard mask (argmax pattern) is frozen and applied, and the next block is calibrated
on the pruned model. Weights are never updated. ``outlier_reg="outlier_channels"`` swaps ``R_out`` for the
brief's earlier reconstruction, ``+ gamma * sum_{j in Out} (1 - M_ij)|W_ij| ||X_j|| / sum_{j in Out} |W_ij|
||X_j||`` over channels with ``||X_j|| > mean + 3 std``.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
from torch import nn

from iclr26.checks import check_choice, check_float, check_int, check_tensor
from iclr26.inference.hyperprune.baselines import (
    check_gram,
    check_model_nm,
    check_tau,
    qualified_name,
    wanda_scores,
)
from iclr26.inference.hyperprune.layers import check_calib_ids_for, get_weight, run_sequential, set_weight
from iclr26.inference.hyperprune.masks import (
    anneal_tau,
    apply_nm_mask,
    check_matrix,
    check_nm,
    gumbel_pattern_mask,
    nm_patterns,
    pattern_logits_from_scores,
)

__all__ = [
    "OUTLIER_REGS",
    "BlockRecord",
    "HyperNetwork",
    "HyperPruner",
    "group_features",
    "outlier_retention",
    "reconstruction_error",
]

OUTLIER_REGS = ("paper", "outlier_channels")

Scorer = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


def _standardize(x: torch.Tensor) -> torch.Tensor:
    return (x - x.mean()) / (x.std() + 1e-8) if x.numel() > 1 else x - x.mean()


def group_features(
    weight: torch.Tensor, gram: torch.Tensor, n: int, m: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-group hypernetwork inputs of one matrix: ``(features (G_total, 3m), prior (G_total, C(m,n)))``.

    For each weight: standardised ``log|w|``, ``log(|w| ||X_j||)`` and ``log ||X_j||`` (standardised over the
    matrix); the prior is each pattern's sum of the standardised log-Wanda scores of its kept positions.
    """
    check_nm(n, m)
    check_matrix(weight, m)
    check_gram(weight, gram)
    check_tensor("weight", weight, finite=True)
    xn = gram.diagonal().clamp_min(0).sqrt()
    f1 = _standardize(torch.log(weight.abs() + 1e-12))
    f2 = _standardize(torch.log(wanda_scores(weight, gram) + 1e-12))
    f3 = _standardize(torch.log(xn + 1e-12)).expand_as(weight)
    feats = torch.stack([f1, f2, f3], -1).reshape(weight.shape[0], -1, m * 3).reshape(-1, m * 3)
    prior = pattern_logits_from_scores(f2, n, m).reshape(feats.shape[0], -1)
    return feats, prior


def _check_keep(keep: torch.Tensor, weight: torch.Tensor) -> None:
    """A keep mask shaped like `weight`: 0/1 (any real dtype: bool, integer or float) or soft probabilities."""
    check_tensor("keep", keep, shape=tuple(weight.shape))
    if keep.is_complex():
        raise TypeError(f"keep must be a real (bool, integer or float) keep mask, got {keep.dtype}")


def reconstruction_error(weight: torch.Tensor, keep: torch.Tensor, gram: torch.Tensor) -> torch.Tensor:
    """``||(W - M o W) X||^2 / ||W X||^2`` from the Gram matrix ``X^T X / N`` (differentiable in ``keep``)."""
    check_tensor("weight", weight, ndim=2, floating=True)
    _check_keep(keep, weight)
    check_gram(weight, gram)
    d = weight * (1 - keep.to(weight.dtype))
    return ((d @ gram) * d).sum() / ((weight @ gram) * weight).sum().clamp_min(1e-30)


def outlier_retention(
    weight: torch.Tensor, keep: torch.Tensor, gram: torch.Tensor, normalize: bool = True
) -> torch.Tensor:
    """The paper's feature-outlier term ``R_out = E_x ||(W o M) Diag(x)||_F^2 = sum_ij (W_ij M_ij)^2 E[x_j^2]``.

    ``E[x_j^2]`` is the Gram diagonal (``gram = X^T X / N``). The value is computed linearly in ``keep``,
    ``sum_ij W_ij^2 keep_ij E[x_j^2]``: for a 0/1 mask that is the closed form above, and for ``keep = E[M]``
    (pattern probabilities @ patterns) it is the exact ``E_M`` of it, because ``M_ij^2 = M_ij``. With
    ``normalize`` it is divided by the dense value ``sum_ij W_ij^2 E[x_j^2]``: the kept share, in [0, 1], of
    the weight energy weighted by each input channel's second moment (outlier channels weigh most).

    Example
    -------
    >>> w, g = torch.tensor([[1.0, 2.0, 0.0, 1.0]]), torch.diag(torch.tensor([1.0, 1.0, 1.0, 4.0]))
    >>> float(outlier_retention(w, torch.tensor([[0.0, 1.0, 0.0, 1.0]]), g, normalize=False))  # 4 + 4
    8.0
    """
    check_tensor("weight", weight, ndim=2, floating=True)
    _check_keep(keep, weight)
    check_gram(weight, gram)
    energy = weight**2 * gram.diagonal().clamp_min(0)[None, :]  # W_ij^2 E[x_j^2]
    kept = (energy * keep.to(weight.dtype)).sum()
    return kept / energy.sum().clamp_min(1e-30) if normalize else kept


class HyperNetwork(nn.Module):
    """Shared MLP: group features + [layer embedding, component embedding] -> pattern logits.

    ``logits = out(gelu(mid(gelu(feat(f) + ctx([e_layer, e_comp]))))) + prior_scale * prior``; ``out`` starts at
    zero, so the untrained network ranks patterns by the Wanda prior.
    """

    def __init__(
        self,
        m: int,
        n_patterns: int,
        n_comps: int,
        hidden: int = 128,
        emb_dim: int = 32,
        prior_scale: float = 3.0,
    ) -> None:
        super().__init__()
        check_int("m", m, low=2)
        for name, v in (
            ("n_patterns", n_patterns),
            ("n_comps", n_comps),
            ("hidden", hidden),
            ("emb_dim", emb_dim),
        ):
            check_int(name, v, low=1)
        check_float("prior_scale", prior_scale)
        self.feat = nn.Linear(3 * m, hidden)
        self.ctx = nn.Linear(2 * emb_dim, hidden, bias=False)
        self.mid = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, n_patterns)
        nn.init.zeros_(self.out.weight)
        nn.init.zeros_(self.out.bias)
        self.comp_emb = nn.Parameter(0.1 * torch.randn(n_comps, emb_dim))
        self.prior_scale = nn.Parameter(torch.tensor(float(prior_scale)))

    def forward(
        self, feats: torch.Tensor, prior: torch.Tensor, e_layer: torch.Tensor, comp: int
    ) -> torch.Tensor:
        """Pattern logits ``(G, P)`` of ``G`` groups of one component ``comp`` in the layer of ``e_layer``.

        ``feats`` (G, 3m) and ``prior`` (G, P) as from :func:`group_features`; ``e_layer`` (emb_dim,).
        """
        check_tensor("feats", feats, ndim=2, floating=True, shape=(None, self.feat.in_features))
        check_tensor("prior", prior, floating=True, shape=(feats.shape[0], self.out.out_features))
        check_tensor("e_layer", e_layer, floating=True, shape=(self.ctx.in_features // 2,))
        check_int("comp", comp, 0, self.comp_emb.shape[0] - 1)
        ctx = self.ctx(torch.cat([e_layer, self.comp_emb[comp]]))
        h = nn.functional.gelu(self.feat(feats) + ctx)
        h = nn.functional.gelu(self.mid(h))
        return self.out(h) + self.prior_scale * prior


@dataclass
class BlockRecord:
    """What HyperPruner measured on one block: losses per step, final errors, outlier retention, wall time."""

    losses: list[float] = field(default_factory=list)
    rec_error: dict[str, float] = field(default_factory=dict)
    outlier_kept: float = float("nan")
    seconds: float = 0.0

    def __post_init__(self) -> None:
        if not (
            isinstance(self.outlier_kept, float) and self.outlier_kept != self.outlier_kept
        ):  # NaN: unmeasured
            check_float("outlier_kept", self.outlier_kept, 0.0, 1.0)
        check_float("seconds", self.seconds, low=0.0)


class HyperPruner:
    """Prune every linear layer of a Hugging Face causal LM's decoder blocks to exact n:m sparsity.

    Parameters
    ----------
    model : transformers.PreTrainedModel
        Llama/Qwen/Mistral (``nn.Linear``) or GPT-2 (``Conv1D``) causal LM; pruned in place.
    n, m : int
        Keep ``n`` of every ``m`` consecutive input-dimension weights (``1 <= n < m``).
    calib_ids : torch.Tensor
        ``(n_seq, seq_len)`` calibration token ids.
    hidden, emb_dim : int
        Hypernetwork width and layer/component embedding size.
    steps_per_block : int
        Adam steps per block (0: take the untrained network's / scorer's argmax).
    beta, gamma : float
        Weights of the continual-learning and outlier regularisers (the paper's lambda_2 and lambda_1).
    lr : float
        Adam learning rate.
    tau : (float, float)
        Gumbel temperature at the first and last step of each block.
    replay : int
        Groups per linear kept for the continual regulariser.
    shared : bool
        False: a fresh hypernetwork per block (the "independent" ablation; no continual term).
    row_fraction : float
        Fraction of each matrix's output rows drawn (without replacement) per step for the loss; 1 = all rows.
    outlier_reg : {"paper", "outlier_channels"}
        ``"paper"``: subtract ``gamma * R_out`` (:func:`outlier_retention`, normalised, on the expected mask);
        ``"outlier_channels"``: the brief's earlier guess, a penalty on the pruned share of the Wanda mass of
        channels above mean + 3 std (kept to rerun the earlier numbers).
    scorer : callable or None
        ``scorer(weight (d_out, d_in), gram (d_in, d_in)) -> logits (d_out, d_in/m, C(m,n))`` used instead of the
        hypernetwork, untrained (requires ``steps_per_block == 0``).
    seed : int
        Seeds the hypernetwork initialisation and the Gumbel noise.

    Example
    -------
    >>> from iclr26.lab.tinylm import SMOKE_CONFIG, train_tiny_lm
    >>> lm = train_tiny_lm(SMOKE_CONFIG)
    >>> ids = torch.randint(3, 300, (4, 16), generator=torch.Generator().manual_seed(0))
    >>> masks = HyperPruner(lm.model, 2, 4, ids, hidden=16, steps_per_block=2).prune()
    >>> all(bool((k.reshape(k.shape[0], -1, 4).sum(-1) == 2).all()) for k in masks.values())
    True
    """

    def __init__(
        self,
        model: nn.Module,
        n: int = 2,
        m: int = 4,
        calib_ids: torch.Tensor | None = None,
        hidden: int = 128,
        emb_dim: int = 32,
        steps_per_block: int = 300,
        beta: float = 1.0,
        gamma: float = 0.1,
        lr: float = 1e-3,
        tau: tuple[float, float] = (4.0, 0.05),
        replay: int = 256,
        shared: bool = True,
        row_fraction: float = 1.0,
        outlier_reg: str = "paper",
        scorer: Scorer | None = None,
        seed: int = 0,
    ) -> None:
        self.named = check_model_nm(model, n, m)
        if calib_ids is None:
            raise ValueError("calib_ids is required: a non-empty (n_seq, seq_len) tensor of token ids")
        self.calib_ids = check_calib_ids_for(model, calib_ids)
        check_int("hidden", hidden, low=1)
        check_int("emb_dim", emb_dim, low=1)
        check_int("steps_per_block", steps_per_block, low=0)
        check_float("beta", beta, low=0.0)
        check_float("gamma", gamma, low=0.0)
        check_float("lr", lr, low=0.0, low_open=True)
        check_float("row_fraction", row_fraction, 0.0, 1.0, low_open=True)
        self.outlier_reg = check_choice("outlier_reg", outlier_reg, OUTLIER_REGS)
        tau = check_tau(tau)
        check_int("replay", replay, low=0)
        check_int("seed", seed, low=0)
        if scorer is not None and not callable(scorer):
            raise TypeError(
                f"scorer must be a callable scorer(weight, gram) -> pattern logits, got {type(scorer).__name__}"
            )
        if scorer is not None and steps_per_block:
            raise ValueError("scorer replaces the trained hypernetwork: it requires steps_per_block == 0")
        self.model, self.n, self.m = model, n, m
        self.hidden, self.emb_dim, self.steps = hidden, emb_dim, steps_per_block
        self.beta, self.gamma, self.lr, self.tau = float(beta), float(gamma), float(lr), tau
        self.replay, self.shared, self.scorer, self.seed = replay, shared, scorer, seed
        self.row_fraction = float(row_fraction)
        self.patterns = nm_patterns(n, m)
        self.records: list[BlockRecord] = []
        self.comps: list[str] = []

    def _new_net(self, salt: int) -> HyperNetwork:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(10_007 * self.seed + salt)
            return HyperNetwork(self.m, self.patterns.shape[0], len(self.comps), self.hidden, self.emb_dim)

    def prune(self) -> dict[str, torch.Tensor]:
        """Prune the model in place; returns ``{qualified linear name: bool keep mask (d_out, d_in)}``."""
        masks: dict[str, torch.Tensor] = {}
        self.records = []
        gen = torch.Generator().manual_seed(self.seed)
        state: dict = {"net": None, "layer_emb": [], "replay": []}

        def fn(idx: int, _block: nn.Module, linears: list, grams: dict) -> None:
            t0 = time.perf_counter()
            if not self.comps:
                self.comps = [name for name, _ in linears]
            rec = BlockRecord()
            weights = {name: get_weight(mod) for name, mod in linears}
            if self.scorer is not None:
                keeps = {}
                for name, _ in linears:
                    lg = self.scorer(weights[name], grams[name])
                    keeps[name] = self.patterns.bool()[lg.argmax(-1)].reshape(weights[name].shape)
            else:
                with torch.enable_grad():
                    keeps = self._train_block(idx, linears, weights, grams, state, gen, rec)
            out_kept, out_total = 0.0, 0.0
            for name, mod in linears:
                keep = keeps[name]
                masks[qualified_name(self.model, idx, name)] = keep
                rec.rec_error[name] = float(reconstruction_error(weights[name], keep, grams[name]))
                out = self._outliers(grams[name])
                out_kept += float(keep[:, out].sum())
                out_total += float(out.sum()) * keep.shape[0]
                set_weight(mod, apply_nm_mask(weights[name], keep))
            rec.outlier_kept = out_kept / out_total if out_total else float("nan")
            rec.seconds = time.perf_counter() - t0
            self.records.append(rec)

        run_sequential(self.model, self.calib_ids, fn)
        return masks

    @staticmethod
    def _outliers(gram: torch.Tensor) -> torch.Tensor:
        xn = gram.diagonal().clamp_min(0).sqrt()
        return xn > xn.mean() + 3 * xn.std()

    def _train_block(
        self,
        idx: int,
        linears: list,
        weights: dict,
        grams: dict,
        state: dict,
        gen: torch.Generator,
        rec: BlockRecord,
    ) -> dict[str, torch.Tensor]:
        n, m = self.n, self.m
        if state["net"] is None or not self.shared:
            state["net"] = self._new_net(idx if not self.shared else 0)
            state["replay"] = []
        net: HyperNetwork = state["net"]
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(10_007 * self.seed + 7919 + idx)
            init = (
                state["layer_emb"][-1].detach().clone()
                if state["layer_emb"]
                else 0.1 * torch.randn(self.emb_dim)
            )
        e_l = nn.Parameter(init)
        state["layer_emb"].append(e_l)
        inputs = {}
        for name, _ in linears:
            feats, prior = group_features(weights[name], grams[name], n, m)
            xn = grams[name].diagonal().clamp_min(0).sqrt()
            out = self._outliers(grams[name])
            sal = weights[name][:, out].abs() * xn[out][None, :]
            inputs[name] = (feats, prior, self.comps.index(name), out, sal, sal.sum().clamp_min(1e-30))
        snapshot = copy.deepcopy(net).requires_grad_(False) if self.beta > 0 and state["replay"] else None
        targets = []
        if snapshot is not None:
            with torch.no_grad():
                targets = [snapshot(f, p, e.detach(), c) for f, p, e, c in state["replay"]]
        opt = torch.optim.Adam([*net.parameters(), e_l], lr=self.lr)
        for t in range(self.steps):
            tau = anneal_tau(t, self.steps, *self.tau)
            loss = torch.zeros(())
            for name, _ in linears:
                feats, prior, comp, out, sal, sal_tot = inputs[name]
                w = weights[name]
                rows = w.shape[0]
                if self.row_fraction < 1.0:  # unbiased minibatch of output rows (the loss is a sum over rows)
                    sel = (
                        torch.randperm(rows, generator=gen)[: max(1, round(self.row_fraction * rows))]
                        .sort()
                        .values
                    )
                    per_row = feats.shape[0] // rows
                    idx = (sel[:, None] * per_row + torch.arange(per_row)[None, :]).reshape(-1)
                    feats, prior, w, sal = feats[idx], prior[idx], w[sel], sal[sel]
                    sal_tot = sal.sum().clamp_min(1e-30)
                logits = net(feats, prior, e_l, comp)
                g = -torch.empty(logits.shape).exponential_(generator=gen).log()
                keep = gumbel_pattern_mask(logits, self.patterns, tau, noise=g).reshape(w.shape)
                loss = loss + reconstruction_error(w, keep, grams[name])
                if self.gamma > 0 and self.outlier_reg == "paper":
                    # E_M of R_out under the hard sample's law softmax(logits), exact since R_out is linear in M
                    expected = (logits.softmax(-1) @ self.patterns).reshape(w.shape)
                    loss = loss - self.gamma * outlier_retention(w, expected, grams[name])
                elif self.gamma > 0 and bool(out.any()):
                    loss = loss + self.gamma * ((1 - keep[:, out]) * sal).sum() / sal_tot
            if snapshot is not None:
                cl = sum(
                    ((net(f, p, e.detach(), c) - y) ** 2).mean()
                    for (f, p, e, c), y in zip(state["replay"], targets)
                )
                loss = loss + self.beta * cl / len(targets)
            opt.zero_grad()
            loss.backward()
            opt.step()
            rec.losses.append(float(loss.detach()))
        keeps = {}
        with torch.no_grad():
            for name, _ in linears:
                feats, prior, comp, *_ = inputs[name]
                logits = net(feats, prior, e_l, comp)
                keeps[name] = self.patterns.bool()[logits.argmax(-1)].reshape(weights[name].shape)
                if self.shared and self.beta > 0:
                    pick = torch.randperm(feats.shape[0], generator=gen)[: self.replay]
                    state["replay"].append((feats[pick], prior[pick], e_l, comp))
        return keeps
