"""Voxel bodies in 2-D: genotype <-> phenotype, repair, canonical forms, the novelty archive, variation operators.

A genotype is a binary grid of shape ``(nx, ny)``: axis 0 is horizontal (x), axis 1 vertical (y, up; gravity fixes
"down"). Each filled cell is a square voxel of side ``side`` with point masses at its corners and springs on its
4 edges and 2 diagonals; neighbouring voxels share masses and springs. The :class:`Workspace` enumerates every
mass and spring the full grid can hold (a ``5 x 5`` grid: 36 masses, 110 springs); a body is the subset its voxels
touch (:meth:`Workspace.phenotype`), so one controller with ``|M|`` inputs and ``|S|`` outputs serves every body.

Validity and novelty follow the official code (``polycube.py``): every new body is reduced to its largest
4-connected component (:func:`largest_component`) and moved to the bottom centre (:func:`shift_to_bottom_center`);
a :class:`NoveltyArchive` of canonical forms (crop to the bounding box, the lexicographic minimum over the body
and its x-mirror: in 2-D there is no rotation) holds every body ever generated, and an offspring is accepted only
if its canonical form is new.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

import numpy as np
from scipy import ndimage

from iclr26.checks import check_float, check_int, check_probability

__all__ = [
    "NoveltyArchive",
    "Workspace",
    "canonical_form",
    "canonical_hash",
    "check_genotype",
    "crossover",
    "diversity",
    "largest_component",
    "mutate",
    "random_bodies",
    "random_body",
    "shift_to_bottom_center",
    "variation",
]

_FOUR = np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]])


def check_genotype(
    name: str, g: object, shape: tuple[int, int] | None = None, *, batch: bool = False
) -> np.ndarray:
    """`g` as a uint8 array of 0/1 of shape ``shape`` (``(B, *shape)`` with ``batch``), with at least one voxel
    in every body; anything else is a ``ValueError`` naming `name`, the value's shape or content, and what is
    accepted."""
    try:
        arr = np.asarray(g.detach().cpu().numpy() if hasattr(g, "detach") else g)
    except Exception as err:  # noqa: BLE001 - anything not array-like
        raise ValueError(f"{name} must be a binary array, got {type(g).__name__}") from err
    want = 3 if batch else 2
    if arr.ndim != want:
        what = "(B, nx, ny)" if batch else "(nx, ny)"
        raise ValueError(f"{name} must be a {want}-D binary grid of shape {what}, got shape {arr.shape}")
    if shape is not None and tuple(arr.shape[-2:]) != tuple(shape):
        raise ValueError(f"{name} must have grid shape {tuple(shape)}, got {tuple(arr.shape[-2:])}")
    if arr.dtype == bool:
        arr = arr.astype(np.uint8)
    if not np.issubdtype(arr.dtype, np.number) or arr.size and not np.isin(arr, (0, 1)).all():
        bad = arr[~np.isin(arr, (0, 1))][:3].tolist() if np.issubdtype(arr.dtype, np.number) else arr.dtype
        raise ValueError(f"{name} must be binary (only 0 and 1), got values {bad}")
    arr = arr.astype(np.uint8)
    counts = arr.reshape(-1, arr.shape[-2] * arr.shape[-1]).sum(axis=1) if arr.size else np.zeros(1)
    if (counts == 0).any():
        which = "" if not batch else f" (body {int(np.argmin(counts))})"
        raise ValueError(f"{name} must have at least one voxel, got an empty genotype{which}")
    return arr


def _binary_grid(name: str, g: object, batch: bool = False) -> np.ndarray:
    """`g` as a uint8 0/1 grid (nx, ny), or (B, nx, ny) with ``batch``; unlike :func:`check_genotype` an empty
    grid is allowed (these helpers map it to itself)."""
    if g is None or isinstance(g, (str, bytes)):
        raise TypeError(f"{name} must be a binary array, got {g!r}")
    arr = np.asarray(g.detach().cpu().numpy() if hasattr(g, "detach") else g)
    want = 3 if batch else 2
    if arr.ndim != want:
        what = "(B, nx, ny)" if batch else "(nx, ny)"
        raise ValueError(f"{name} must be a {want}-D binary grid of shape {what}, got shape {arr.shape}")
    if arr.dtype != bool and (
        not np.issubdtype(arr.dtype, np.number) or arr.size and not np.isin(arr, (0, 1)).all()
    ):
        raise ValueError(f"{name} must be binary (only 0 and 1), got dtype {arr.dtype}")
    return np.asarray(arr, dtype=np.uint8)


def largest_component(g: np.ndarray) -> np.ndarray:
    """The largest 4-connected (face-connected) component of a binary grid (ties: the first in scan order, as
    the official flood fill); an empty grid stays empty."""
    g = _binary_grid("g", g)
    labels, n = ndimage.label(g, structure=_FOUR)
    if n <= 1:
        return g.copy()
    sizes = np.bincount(labels.ravel())[1:]
    return (labels == int(np.argmax(sizes)) + 1).astype(np.uint8)


def shift_to_bottom_center(g: np.ndarray, dims: tuple[int, int] | None = None) -> np.ndarray:
    """`g` placed in a ``dims`` grid (default: its own shape) with its lowest voxel on row 0 and its voxel centre of
    mass as close as the grid allows to the horizontal centre (the first best shift, as in the official code)."""
    g = _binary_grid("g", g)
    dims = tuple(g.shape) if dims is None else tuple(dims)
    xs, ys = np.nonzero(g)
    if xs.size == 0:
        return np.zeros(dims, dtype=np.uint8)
    centre = (dims[0] - 1) / 2
    shifts = np.arange(-xs.min(), dims[0] - xs.max())
    best = int(shifts[np.argmin((xs.mean() + shifts - centre) ** 2)])
    out = np.zeros(dims, dtype=np.uint8)
    out[xs + best, ys - ys.min()] = 1
    return out


def canonical_form(g: np.ndarray) -> np.ndarray:
    """Crop to the bounding box, then the lexicographically smaller (on the flattened cells) of the crop and its
    x-mirror: invariant to translation and to the left-right mirror (gravity rules out rotations in 2-D)."""
    g = _binary_grid("g", g)
    xs, ys = np.nonzero(g)
    if xs.size == 0:
        return g.copy()
    crop = g[xs.min() : xs.max() + 1, ys.min() : ys.max() + 1]
    mirror = crop[::-1]
    a, b = crop.ravel(), mirror.ravel()
    diff = np.nonzero(a != b)[0]
    keep = crop if diff.size == 0 or a[diff[0]] < b[diff[0]] else mirror
    return np.ascontiguousarray(keep)


def canonical_hash(g: np.ndarray) -> str:
    """SHA-256 of the canonical form's shape and cells (the archive key)."""
    c = canonical_form(g)
    return hashlib.sha256(np.array(c.shape, dtype=np.int64).tobytes() + c.tobytes()).hexdigest()


@dataclass
class NoveltyArchive:
    """Every body ever generated, by canonical hash; :meth:`add_if_new` accepts a body only once up to symmetry."""

    hashes: set[str] = field(default_factory=set)

    def is_new(self, g: np.ndarray) -> bool:
        return canonical_hash(g) not in self.hashes

    def add_if_new(self, g: np.ndarray) -> bool:
        """Add `g`'s canonical form; True when it was new (the body is accepted), False when already known."""
        h = canonical_hash(g)
        if h in self.hashes:
            return False
        self.hashes.add(h)
        return True

    def extend(self, bodies: Iterable[np.ndarray]) -> None:
        for g in bodies:
            self.hashes.add(canonical_hash(g))

    def copy(self) -> NoveltyArchive:
        return NoveltyArchive(set(self.hashes))

    def __len__(self) -> int:
        return len(self.hashes)


@lru_cache(maxsize=16)
def _volume_table(dims: tuple[int, int]) -> tuple[np.ndarray, dict[int, list[tuple[int, int]]]]:
    table: dict[int, list[tuple[int, int]]] = {}
    for i in range(1, dims[0] + 1):
        for j in range(1, dims[1] + 1):
            table.setdefault(i * j, []).append((i, j))
    return np.array(sorted(table)), table


def random_body(
    rng: np.random.Generator,
    dims: tuple[int, int] = (5, 5),
    p_mu: float = 0.35,
    p_sigma: float = 0.125,
    p_min: float = 0.1,
    p_max: float = 0.6,
) -> np.ndarray:
    """One random body (not checked for novelty): a bounding-box volume uniform among the distinct values ``i*j``,
    a box of that volume uniformly, each cell filled with probability ``p ~ N(p_mu, p_sigma)`` clipped to
    ``[p_min, p_max]`` (redrawn while empty), the largest component, at the bottom centre."""
    volumes, table = _volume_table(tuple(dims))
    vol = int(rng.choice(volumes))
    box = table[vol][int(rng.integers(len(table[vol])))]
    while True:
        p = min(max(p_min, rng.normal(p_mu, p_sigma)), p_max)
        g = (rng.random(box) < p).astype(np.uint8)
        if g.sum() > 0:
            break
    return shift_to_bottom_center(largest_component(g), dims)


def random_bodies(
    n: int,
    rng: np.random.Generator,
    archive: NoveltyArchive,
    dims: tuple[int, int] = (5, 5),
    max_tries: int = 1000,
    **sampler: float,
) -> np.ndarray:
    """`n` random bodies (``(n, *dims)`` uint8), each new to `archive` (and added to it). Raises when the sampler
    fails ``max_tries`` times in a row (small bounding boxes hold few distinct bodies, so draws there are
    often known already and are redrawn, as in the official sampler)."""
    n = check_int("n", n, low=0)
    out = []
    fails = 0
    while len(out) < n:
        g = random_body(rng, dims, **sampler)
        if archive.add_if_new(g):
            out.append(g)
            fails = 0
        else:
            fails += 1
            if fails >= max_tries:
                raise RuntimeError(
                    f"random_bodies: {max_tries} draws in a row were already in the archive "
                    f"({len(archive)} bodies); the {dims} grid has no room for {n - len(out)} more"
                )
    return np.stack(out) if out else np.zeros((0, *dims), dtype=np.uint8)


def mutate(
    g: np.ndarray,
    rng: np.random.Generator,
    archive: NoveltyArchive,
    rate: float | None = None,
    growth: float = 1.025,
) -> np.ndarray:
    """A mutant of `g`, new to `archive` (and added): flip each bit with probability ``rate`` (default
    ``1/n_voxels``), keep the largest component, and, while the result is empty or known, flip again on top of it
    with the rate multiplied by `growth` (the official escalating retry)."""
    g = check_genotype("g", g)
    p = 1.0 / g.size if rate is None else check_probability("rate", rate, open_low=True)
    check_float("growth", growth, low=1.0)
    child = g.copy()
    for _ in range(100_000):
        child = largest_component(child ^ (rng.random(g.shape) < p).astype(np.uint8))
        p = min(p * growth, 1.0)
        if child.sum() > 0 and archive.add_if_new(child):
            return shift_to_bottom_center(child, g.shape)
    raise RuntimeError("mutate: no new body after 100,000 attempts")


def crossover(g1: np.ndarray, g2: np.ndarray, archive: NoveltyArchive) -> np.ndarray | None:
    """XOR crossover: the largest component of ``g1 XOR g2`` at the bottom centre if it is non-empty and new to
    `archive` (then added), else None (the caller retries with other parents)."""
    g1, g2 = check_genotype("g1", g1), check_genotype("g2", g2, g1.shape)
    child = largest_component(g1 ^ g2)
    if child.sum() == 0 or not archive.add_if_new(child):
        return None
    return shift_to_bottom_center(child, g1.shape)


def variation(
    population: np.ndarray,
    rng: np.random.Generator,
    archive: NoveltyArchive,
    mutate_frac: float = 0.25,
    max_xover_attempts: int = 100,
) -> tuple[np.ndarray, list[tuple[int, ...]]]:
    """One generation's offspring, as many as parents: a random ``mutate_frac`` of the parents each give one mutant;
    the others are paired at random (two distinct ones each time) for XOR crossover until as many children exist,
    falling back to mutating a random parent after ``max_xover_attempts`` failures in a row. Returns the offspring
    ``(P, nx, ny)`` and, per child, the indices of its parent(s) in `population`."""
    pop = check_genotype("population", population, batch=True)
    check_probability("mutate_frac", mutate_frac)
    n = len(pop)
    n_mut = int(mutate_frac * n)
    mut_idx = rng.choice(n, size=n_mut, replace=False)
    xo_idx = np.setdiff1d(np.arange(n), mut_idx)
    children: list[np.ndarray] = [mutate(pop[i], rng, archive) for i in mut_idx]
    parents: list[tuple[int, ...]] = [(int(i),) for i in mut_idx]
    fails = 0
    while len(children) < n:
        if len(xo_idx) >= 2:
            i, j = rng.choice(xo_idx, 2, replace=False)
            child = crossover(pop[i], pop[j], archive)
        else:
            child = None
            fails = max_xover_attempts
        if child is not None:
            children.append(child)
            parents.append((int(i), int(j)))
            fails = 0
            continue
        fails += 1
        if fails >= max_xover_attempts:
            k = int(rng.integers(n))
            children.append(mutate(pop[k], rng, archive))
            parents.append((k,))
            fails = 0
    return np.stack(children), parents


def diversity(genotypes: np.ndarray) -> float:
    """Mean pairwise Hamming distance between flattened genotypes, normalised by the genotype length (the
    official ``diversity.py``); 0 for fewer than two bodies."""
    g = _binary_grid("genotypes", genotypes, batch=True)
    g = g.reshape(len(g), -1).astype(np.float64)
    n, d = g.shape
    if n < 2:
        return 0.0
    ones = g.sum(axis=0)  # sum over pairs of |a - b| per bit = ones * (n - ones)
    return float((ones * (n - ones)).sum() / (n * (n - 1) / 2) / d)


@dataclass(frozen=True)
class Workspace:
    """The full ``nx x ny`` voxel grid: every mass and spring a body can use, and which voxel uses which.

    masses : ``(|M|, 2)`` rest positions, the grid centred on x = 0 with its bottom row at y = 0.
    springs : ``(|S|, 2)`` mass indices; rest_lengths : ``(|S|,)``.
    voxel_masses : ``(nx, ny, 4)`` mass indices per voxel; voxel_springs : ``(nx, ny, 6)`` spring indices.
    """

    nx: int = 5
    ny: int = 5
    side: float = 0.1

    def __post_init__(self) -> None:
        check_int("nx", self.nx, low=1)
        check_int("ny", self.ny, low=1)
        check_float("side", self.side, low=0.0, low_open=True)

    @property
    def dims(self) -> tuple[int, int]:
        return (self.nx, self.ny)

    @cached_property
    def _tables(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        index: dict[tuple[int, int], int] = {}
        springs: dict[tuple[int, int], int] = {}
        vm = np.zeros((self.nx, self.ny, 4), dtype=np.int64)
        vs = np.zeros((self.nx, self.ny, 6), dtype=np.int64)
        for i in range(self.nx):
            for j in range(self.ny):
                corners = [(i, j), (i + 1, j), (i, j + 1), (i + 1, j + 1)]
                ids = []
                for c in corners:
                    if c not in index:
                        index[c] = len(index)
                    ids.append(index[c])
                vm[i, j] = ids
                a, b, c, d = ids  # bottom-left, bottom-right, top-left, top-right
                pairs = [(a, b), (c, d), (a, c), (b, d), (a, d), (b, c)]
                for k, (p, q) in enumerate(pairs):
                    key = (min(p, q), max(p, q))
                    if key not in springs:
                        springs[key] = len(springs)
                    vs[i, j, k] = springs[key]
        pos = np.zeros((len(index), 2))
        for (ci, cj), m in index.items():
            pos[m] = ((ci - self.nx / 2) * self.side, cj * self.side)
        spr = np.array(list(springs), dtype=np.int64)
        return pos, spr, vm, vs

    @property
    def masses(self) -> np.ndarray:
        return self._tables[0]

    @property
    def springs(self) -> np.ndarray:
        return self._tables[1]

    @property
    def rest_lengths(self) -> np.ndarray:
        p = self.masses
        return np.linalg.norm(p[self.springs[:, 0]] - p[self.springs[:, 1]], axis=1)

    @property
    def voxel_masses(self) -> np.ndarray:
        return self._tables[2]

    @property
    def voxel_springs(self) -> np.ndarray:
        return self._tables[3]

    @property
    def n_masses(self) -> int:
        return len(self.masses)

    @property
    def n_springs(self) -> int:
        return len(self.springs)

    def phenotype(self, genotypes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Boolean mass and spring masks ``(B, |M|)``, ``(B, |S|)`` of a batch of genotypes ``(B, nx, ny)`` (a
        single ``(nx, ny)`` genotype gives ``(|M|,)``, ``(|S|,)``)."""
        single = np.asarray(genotypes).ndim == 2
        g = check_genotype("genotypes", genotypes[None] if single else genotypes, self.dims, batch=True)
        b = len(g)
        mm = np.zeros((b, self.n_masses), dtype=bool)
        sm = np.zeros((b, self.n_springs), dtype=bool)
        bi, xi, yi = np.nonzero(g)
        mm[np.repeat(bi, 4), self.voxel_masses[xi, yi].ravel()] = True
        sm[np.repeat(bi, 6), self.voxel_springs[xi, yi].ravel()] = True
        return (mm[0], sm[0]) if single else (mm, sm)
