"""Synthetic pooled-screen benchmark for BioBO: genes, overlapping pathways, a phenotype and three modalities.

y_g = sum_{P causal} a_P 1[g in P] z_g + f(u_g) + eps, with z_g log-normal, u_g a latent gene state and f a random
smooth MLP. The modalities mimic Achilles (a noisy linear view of u), Gene2Vec (a noisy projection of the true
pathway memberships) and GenePT (a weak mixture of both). The annotations handed to the optimiser are corrupted:
a fraction of the true memberships is dropped and spurious ones are added.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from iclr26.checks import check_choice, check_float, check_int

__all__ = ["PerturbationLandscape", "make_perturbation_landscape"]


@dataclass
class PerturbationLandscape:
    """A generated screen: phenotype `y`, modality `embeddings`, corrupted `pathways` and the hidden truth."""

    y: np.ndarray
    embeddings: dict[str, np.ndarray]
    pathways: dict[str, set[int]]
    true_pathways: dict[str, set[int]]
    causal: list[str]
    signal: str
    annotation_noise: float
    info: dict = field(default_factory=dict)

    @property
    def n_genes(self) -> int:
        """Number of genes in the pool."""
        return int(self.y.shape[0])

    def top_genes(self, frac: float = 0.01) -> np.ndarray:
        """Indices of the top `frac` genes by y (at least one)."""
        check_float("frac", frac, 0.0, 1.0, low_open=True)
        k = max(1, int(round(frac * self.n_genes)))
        return np.argsort(-self.y, kind="stable")[:k]


def _random_mlp(rng: np.random.Generator, x: np.ndarray, hidden: int = 32) -> np.ndarray:
    w1 = rng.normal(size=(x.shape[1], hidden)) / np.sqrt(x.shape[1])
    b1 = rng.normal(size=hidden) * 0.5
    w2 = rng.normal(size=hidden) / np.sqrt(hidden)
    out = np.tanh(x @ w1 + b1) @ w2
    return (out - out.mean()) / out.std()


def make_perturbation_landscape(
    seed: int,
    n_genes: int = 3000,
    n_pathways: int = 80,
    annotation_noise: float = 0.3,
    signal: str = "pathway",
    *,
    n_causal: int = 4,
    latent_dim: int = 16,
    size_range: tuple[int, int] = (10, 150),
    smooth_scale: float = 0.5,
    noise_sd: float = 0.3,
) -> PerturbationLandscape:
    """Generate the BioBO benchmark.

    Parameters
    ----------
    seed : all randomness derives from it.
    n_genes, n_pathways : pool size and number of (overlapping) pathways; sizes are log-normal clipped to
        `size_range` (and to the pool).
    annotation_noise : fraction d of the true memberships dropped from the annotations; 2d/3 of the true count is
        added as spurious memberships (d = 0.3 gives the brief's 30% dropped, 20% added).
    signal : "pathway" (causal pathways carry the effects) or "none" (control: the same pathway-effect values are
        shuffled across genes, so y has the same marginal law but no pathway structure).
    """
    seed = check_int("seed", seed, low=0)
    n_genes = check_int("n_genes", n_genes, low=20)
    n_pathways = check_int("n_pathways", n_pathways, low=1)
    n_causal = check_int("n_causal", n_causal, low=1)
    if n_causal > n_pathways:
        raise ValueError(f"n_causal must be <= n_pathways, got {n_causal} > {n_pathways}")
    check_float("annotation_noise", annotation_noise, 0.0, 1.0, high_open=True)
    check_choice("signal", signal, ("pathway", "none"))
    check_int("latent_dim", latent_dim, low=1)
    check_float("smooth_scale", smooth_scale, low=0.0)
    check_float("noise_sd", noise_sd, low=0.0)
    if isinstance(size_range, (str, bytes)) or not hasattr(size_range, "__len__") or len(size_range) != 2:
        raise ValueError(f"size_range must be a pair (low, high), got {size_range!r}")
    lo = check_int("size_range low", size_range[0], low=1)
    hi = check_int("size_range high", size_range[1], low=lo)
    rng = np.random.default_rng(seed)
    hi = min(hi, n_genes // 2)
    lo = min(lo, hi)
    sizes = np.clip(np.round(rng.lognormal(np.log(35.0), 0.6, size=n_pathways)), lo, hi).astype(int)
    names = [f"P{j:03d}" for j in range(n_pathways)]
    member = np.zeros((n_genes, n_pathways))
    true_pw: dict[str, set[int]] = {}
    for j, (name, s) in enumerate(zip(names, sizes)):
        genes = rng.choice(n_genes, size=int(s), replace=False)
        member[genes, j] = 1.0
        true_pw[name] = {int(g) for g in genes}
    causal_idx = rng.choice(n_pathways, size=n_causal, replace=False)
    causal = [names[j] for j in sorted(causal_idx)]
    # hidden effects
    u = rng.normal(size=(n_genes, latent_dim))
    f = _random_mlp(rng, u)
    z = rng.lognormal(0.0, 0.75, size=n_genes)
    a = rng.uniform(1.0, 2.0, size=n_causal)
    path_effect = (member[:, causal_idx] * a).sum(1) * z
    if signal == "none":
        path_effect = rng.permutation(path_effect)
    else:
        rng.permutation(n_genes)  # keep the stream aligned between signal settings
    y = path_effect + smooth_scale * f + noise_sd * rng.normal(size=n_genes)
    # modalities
    m1 = u @ rng.normal(size=(latent_dim, 32)) / np.sqrt(latent_dim) + 0.5 * rng.normal(size=(n_genes, 32))
    m2 = member @ rng.normal(size=(n_pathways, 32)) + 0.5 * rng.normal(size=(n_genes, 32))
    mix = np.hstack([m1, m2]) @ rng.normal(size=(64, 48)) / 8.0
    m3 = 0.3 * (mix - mix.mean(0)) / mix.std(0) + rng.normal(size=(n_genes, 48))
    # corrupted annotations
    pairs = np.argwhere(member > 0)
    n_true = len(pairs)
    keep = rng.random(n_true) >= annotation_noise
    ann = np.zeros_like(member)
    ann[pairs[keep, 0], pairs[keep, 1]] = 1.0
    n_spur = int(round(2.0 / 3.0 * annotation_noise * n_true))
    empty = np.argwhere(member == 0)
    if n_spur:
        add = empty[rng.choice(len(empty), size=n_spur, replace=False)]
        ann[add[:, 0], add[:, 1]] = 1.0
    pathways = {name: {int(g) for g in np.flatnonzero(ann[:, j])} for j, name in enumerate(names)}
    info = {"n_true_memberships": n_true, "n_dropped": int((~keep).sum()), "n_spurious": n_spur}
    return PerturbationLandscape(
        y=y,
        embeddings={"achilles": m1, "gene2vec": m2, "genept": m3},
        pathways=pathways,
        true_pathways=true_pw,
        causal=causal,
        signal=signal,
        annotation_noise=float(annotation_noise),
        info=info,
    )
