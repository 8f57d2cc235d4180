"""BioBO: pool-based batch BO on fused gene embeddings with an enrichment-analysis prior (pi-BO), and baselines."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
import torch
from sklearn.decomposition import PCA

from iclr26.checks import check_array, check_bool, check_choice, check_float, check_int, check_probability
from iclr26.science.biobo.acquisition import (
    PiBO,
    expected_improvement,
    thompson_sample,
    top_b,
    upper_confidence_bound,
)
from iclr26.science.biobo.enrichment import enrichment_prior, ora_hypergeom
from iclr26.science.biobo.gp import ExactGP

__all__ = ["ACQUISITIONS", "BioBO", "EAGreedy", "RandomSelector", "check_observations", "fuse_embeddings"]

ACQUISITIONS = ("ucb", "ei", "ts")


def fuse_embeddings(
    embeddings: Mapping[str, np.ndarray], n_components: int = 16
) -> tuple[np.ndarray, list[int], list[str]]:
    """Standardise each modality, PCA it to <= n_components dims, rescale to unit mean variance, concatenate.

    Returns the fused matrix, the block sizes (one per modality) and the modality names.
    """
    if not isinstance(embeddings, Mapping) or not embeddings:
        raise ValueError("embeddings must be a non-empty dict name -> (n_genes, d) array")
    check_int("n_components", n_components, low=1)
    names, mats = [], []
    for name, e in embeddings.items():
        a = check_array(f"embedding {name!r}", e)
        if a.ndim != 2 or a.shape[0] < 2 or a.shape[1] < 1:
            raise ValueError(
                f"embedding {name!r} must be 2-D (n_genes, d) with n_genes >= 2 and d >= 1, got shape {a.shape}"
            )
        if not np.all(np.isfinite(a)):
            raise ValueError(f"embedding {name!r} contains NaN or inf")
        names.append(str(name))
        mats.append(a)
    rows = {n: m.shape[0] for n, m in zip(names, mats)}
    if len(set(rows.values())) != 1:
        raise ValueError(f"embedding row counts differ across modalities: {rows}")
    blocks, parts = [], []
    for a in mats:
        sd = a.std(0)
        z = (a - a.mean(0)) / np.where(sd > 0, sd, 1.0)
        k = min(n_components, z.shape[1], z.shape[0])
        if k < z.shape[1]:
            z = PCA(n_components=k, svd_solver="full").fit_transform(z)
        z = z / np.sqrt(max(float(z.var(0).mean()), 1e-12))
        parts.append(z)
        blocks.append(k)
    return np.hstack(parts), blocks, names


def check_observations(obs_idx, y_obs, n_genes: int) -> tuple[np.ndarray, np.ndarray]:
    """Validate observed indices (unique, in the pool) and finite observed values; return them as arrays."""
    idx = np.asarray(obs_idx)
    y = check_array("y_obs", y_obs).reshape(-1)
    if idx.ndim != 1 or (idx.size and not np.issubdtype(idx.dtype, np.integer)):
        raise ValueError(f"obs_idx must be a 1-D array of integer gene indices, got dtype {idx.dtype}")
    if idx.size != y.size:
        raise ValueError(f"obs_idx and y_obs must have the same length, got {idx.size} and {y.size}")
    if idx.size and (idx.min() < 0 or idx.max() >= n_genes):
        raise ValueError(f"obs_idx holds indices outside the pool [0, {n_genes})")
    if np.unique(idx).size != idx.size:
        raise ValueError("obs_idx holds repeated genes")
    if not np.all(np.isfinite(y)):
        raise ValueError("y_obs contains NaN or inf")
    return idx.astype(np.int64), y


def _check_batch(batch_size: int, n_free: int) -> int:
    batch_size = check_int("batch_size", batch_size, low=1)
    if batch_size > n_free:
        raise ValueError(f"batch_size {batch_size} is larger than the unlabeled pool ({n_free} genes)")
    return int(batch_size)


def _clean_pathways(
    pathways: Mapping[str, Iterable], n_genes: int, gene_ids: Sequence | None
) -> dict[str, set[int]]:
    if not isinstance(pathways, Mapping):
        raise TypeError(f"pathways must be a dict name -> set of genes, got {type(pathways).__name__}")
    lookup = {g: i for i, g in enumerate(gene_ids)} if gene_ids is not None else None
    out: dict[str, set[int]] = {}
    dropped = 0
    for name, genes in pathways.items():
        keep: set[int] = set()
        for g in genes:
            if lookup is not None:
                i = lookup.get(g)
            elif isinstance(g, (int, np.integer)) and not isinstance(g, bool) and 0 <= g < n_genes:
                i = int(g)
            else:
                i = None
            if i is None:
                dropped += 1
            else:
                keep.add(i)
        out[str(name)] = keep
    if dropped:
        warnings.warn(
            f"dropped {dropped} pathway gene ids that are not in the pool of {n_genes} genes",
            UserWarning,
            stacklevel=3,
        )
    return out


def _check_prior_args(hit_frac: float, q_max: float, eps: float) -> None:
    check_float("hit_frac", hit_frac, 0.0, 1.0, low_open=True, high_open=True)
    check_probability("q_max", q_max, open_low=True)
    check_float("eps", eps, low=0.0, low_open=True)


class _PoolSelector:
    """Common checks of the pool selectors."""

    n_genes: int

    def _prepare(self, obs_idx, y_obs, batch_size) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        idx, y = check_observations(obs_idx, y_obs, self.n_genes)
        free = np.setdiff1d(np.arange(self.n_genes), idx)
        b = _check_batch(batch_size, free.size)
        return idx, y, free, b


class BioBO(_PoolSelector):
    """Biology-informed batch BO over a gene pool.

    Each :meth:`suggest` call is one cycle n = 1, 2, ...: fit an exact GP with an additive Matern-5/2 ARD kernel
    over the modality blocks of the fused embeddings, score the unlabeled pool with the base acquisition, run ORA
    on the observed genes (hits = top `hit_frac` by y), turn it into a gene prior pi and pick the top-b genes of
    alpha'(g) * pi(g)^(beta / n).

    Parameters
    ----------
    embeddings : modality name -> (n_genes, d) array (same row order in all).
    pathways : pathway name -> set of genes (indices into the pool, or ids from `gene_ids`); unknown ids are
        dropped with a warning that counts them.
    acq : "ucb", "ei" or "ts".
    beta : prior strength (>= 0); use_prior=False or beta=0 gives plain multimodal BO.
    kernel : "additive" (one kernel per modality block) or "single" (one ARD kernel on the concatenation).
    """

    def __init__(
        self,
        embeddings: Mapping[str, np.ndarray],
        pathways: Mapping[str, Iterable],
        acq: str = "ucb",
        beta: float = 5.0,
        *,
        use_prior: bool = True,
        gene_ids: Sequence | None = None,
        n_components: int = 16,
        kernel: str = "additive",
        hit_frac: float = 0.1,
        q_max: float = 0.25,
        eps: float = 0.1,
        beta_ucb: float = 2.0,
        fit_iters: int = 50,
        lr: float = 0.1,
        seed: int = 0,
    ) -> None:
        check_choice("acq", acq, ACQUISITIONS)
        check_float("beta (prior strength)", beta, low=0.0)
        check_choice("kernel", kernel, ("additive", "single"))
        _check_prior_args(hit_frac, q_max, eps)
        check_float("beta_ucb", beta_ucb, low=0.0)
        check_int("fit_iters", fit_iters, low=0)
        check_float("lr", lr, low=0.0, low_open=True)
        check_int("seed", seed, low=0)
        use_prior = check_bool("use_prior", use_prior)
        self.x, blocks, self.modalities = fuse_embeddings(embeddings, n_components)
        self.n_genes = self.x.shape[0]
        if gene_ids is not None and len(gene_ids) != self.n_genes:
            raise ValueError(
                f"gene_ids must have one id per embedding row ({self.n_genes}), got {len(gene_ids)}"
            )
        self.blocks = blocks if kernel == "additive" else [sum(blocks)]
        self.pathways = _clean_pathways(pathways, self.n_genes, gene_ids)
        self.acq, self.beta, self.use_prior = acq, float(beta), bool(use_prior)
        self.hit_frac, self.q_max, self.eps, self.beta_ucb = hit_frac, q_max, eps, beta_ucb
        self.fit_iters, self.lr, self.seed = int(fit_iters), float(lr), int(seed)
        self.cycle = 0
        self.gp = ExactGP(self.blocks)
        self._pathway_log: list[pd.DataFrame] = []
        self._gene_log: list[pd.DataFrame] = []

    def prior(
        self, obs_idx: np.ndarray, y_obs: np.ndarray
    ) -> tuple[np.ndarray, list[str | None], pd.DataFrame]:
        """ORA of the top `hit_frac` observed genes against the observed background, and the gene prior pi."""
        obs_idx, y_obs = check_observations(obs_idx, y_obs, self.n_genes)
        if obs_idx.size < 1:
            raise ValueError("obs_idx must hold at least one observed gene")
        n_hits = max(1, int(np.ceil(self.hit_frac * len(obs_idx))))
        hits = obs_idx[np.argsort(-y_obs, kind="stable")[:n_hits]]
        table = ora_hypergeom(hits, obs_idx, self.pathways)
        pi, src = enrichment_prior(
            table, self.pathways, self.n_genes, self.q_max, self.eps, return_source=True
        )
        return pi, src, table

    def acquisition(self, obs_idx: np.ndarray, y_obs: np.ndarray, free: np.ndarray) -> torch.Tensor:
        """Fit the GP on the observations and return the base acquisition on the `free` genes."""
        obs_idx, y_obs = check_observations(obs_idx, y_obs, self.n_genes)
        free = np.asarray(free)
        if free.ndim != 1 or free.size < 1 or not np.issubdtype(free.dtype, np.integer):
            raise ValueError(f"free must be a non-empty 1-D array of integer gene indices, got {free!r}")
        if free.min() < 0 or free.max() >= self.n_genes:
            raise ValueError(f"free holds indices outside the pool [0, {self.n_genes})")
        self.gp.fit(self.x[obs_idx], y_obs, iters=self.fit_iters, lr=self.lr)
        xs = self.x[free]
        if self.acq == "ts":
            mean, cov = self.gp.posterior(xs, full_cov=True)
            gen = torch.Generator().manual_seed(1_000_003 * self.seed + self.cycle)
            return thompson_sample(mean, cov, gen)
        mean, var = self.gp.posterior(xs)
        if self.acq == "ucb":
            return upper_confidence_bound(mean, var, self.beta_ucb)
        return expected_improvement(mean, var, float(np.max(y_obs)))

    def suggest(self, obs_idx, y_obs, batch_size: int) -> np.ndarray:
        """Pick `batch_size` unlabeled genes (no repeats) for the next cycle; returns their pool indices."""
        idx, y, free, b = self._prepare(obs_idx, y_obs, batch_size)
        if idx.size < 2:
            raise ValueError(f"need at least 2 observations to fit the GP, got {idx.size}")
        self.cycle += 1
        alpha = self.acquisition(idx, y, free)
        if self.use_prior and self.beta > 0:
            pi, src, table = self.prior(idx, y)
            pibo = PiBO(lambda c: alpha, torch.as_tensor(pi[free]), self.beta, self.cycle)
            score = pibo(torch.as_tensor(free))
        else:
            pi, src, table = np.ones(self.n_genes), [None] * self.n_genes, None
            score = alpha - alpha.min()
        chosen = free[top_b(score, b)]
        self._log(table, chosen, pi, src)
        return chosen

    def _log(self, table: pd.DataFrame | None, chosen: np.ndarray, pi: np.ndarray, src: list) -> None:
        if table is not None:
            t = table[table["q"] < self.q_max].drop(columns=["genes"]).copy()
            t["n_selected"] = [sum(src[g] == name for g in chosen) for name in t["pathway"]]
            t.insert(0, "cycle", self.cycle)
            self._pathway_log.append(t)
        self._gene_log.append(
            pd.DataFrame(
                {
                    "cycle": self.cycle,
                    "gene": chosen,
                    "prior": pi[chosen],
                    "source_pathway": [src[g] for g in chosen],
                }
            )
        )

    def explain(self) -> pd.DataFrame:
        """Enriched pathways per cycle: cycle, pathway, overlap, size, n_hits, n_background, p, q, n_selected
        (how many of that cycle's picks got their prior from the pathway)."""
        cols = ["cycle", "pathway", "overlap", "size", "n_hits", "n_background", "p", "q", "n_selected"]
        if not self._pathway_log:
            return pd.DataFrame(columns=cols)
        return pd.concat(self._pathway_log, ignore_index=True)[cols]

    def explain_genes(self) -> pd.DataFrame:
        """Per selected gene: cycle, gene, prior pi(g) and the pathway that set it (None if unannotated/unenriched)."""
        if not self._gene_log:
            return pd.DataFrame(columns=["cycle", "gene", "prior", "source_pathway"])
        return pd.concat(self._gene_log, ignore_index=True)


class RandomSelector(_PoolSelector):
    """Random selection baseline (uniform over the unlabeled pool, seeded)."""

    def __init__(self, n_genes: int, seed: int = 0) -> None:
        self.n_genes = check_int("n_genes", n_genes, low=1)
        self.rng = np.random.default_rng(check_int("seed", seed, low=0))

    def suggest(self, obs_idx, y_obs, batch_size: int) -> np.ndarray:
        """Pick `batch_size` unlabeled genes uniformly at random."""
        _, _, free, b = self._prepare(obs_idx, y_obs, batch_size)
        return self.rng.choice(free, size=b, replace=False)


class EAGreedy(_PoolSelector):
    """Rank the unlabeled genes by the enrichment prior pi alone (ties broken at random, seeded)."""

    def __init__(
        self,
        pathways: Mapping[str, Iterable],
        n_genes: int,
        hit_frac: float = 0.1,
        q_max: float = 0.25,
        eps: float = 0.1,
        seed: int = 0,
    ) -> None:
        self.n_genes = check_int("n_genes", n_genes, low=1)
        _check_prior_args(hit_frac, q_max, eps)
        self.pathways = _clean_pathways(pathways, self.n_genes, None)
        self.hit_frac, self.q_max, self.eps = hit_frac, q_max, eps
        self.rng = np.random.default_rng(check_int("seed", seed, low=0))

    def suggest(self, obs_idx, y_obs, batch_size: int) -> np.ndarray:
        """Top-b unlabeled genes by pi."""
        idx, y, free, b = self._prepare(obs_idx, y_obs, batch_size)
        n_hits = max(1, int(np.ceil(self.hit_frac * len(idx))))
        hits = idx[np.argsort(-y, kind="stable")[:n_hits]]
        pi = enrichment_prior(
            ora_hypergeom(hits, idx, self.pathways), self.pathways, self.n_genes, self.q_max, self.eps
        )
        score = pi[free] + 1e-9 * self.rng.random(free.size)
        return free[top_b(score, b)]
