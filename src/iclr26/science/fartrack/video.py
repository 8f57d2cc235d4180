"""Procedural moving-object videos with exact boxes, for the FARTrack reproduction (ICLR 2026, arXiv 2602.03214).

Each sequence: a smooth-noise RGB background; a target (a textured random star polygon or an ellipse) that moves
with a smooth random velocity (reflected at the borders), rotates and drifts in scale; 2-4 distractors drawn by the
same generator, some with the target's colours, some in front of the target (partial occlusion when they cross)
and some behind; in half of the sequences a brief occluding patch over part of the target.

The ground-truth box is the analytic extent of the target's shape (polygon: its vertices; ellipse: the closed-form
extent of the rotated ellipse), clipped to the frame, as (x, y, w, h) in pixels: exact, not read back from pixels.
Rendering is on demand (:meth:`VideoSequence.frame`), so 400 training sequences cost only their trajectories and
a background each.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iclr26.checks import check_float, check_int, check_probability

__all__ = ["VideoConfig", "VideoSequence", "make_sequences"]


@dataclass(frozen=True)
class VideoConfig:
    """Difficulty knobs of the generator."""

    size: int = 96
    min_distractors: int = 2
    max_distractors: int = 4
    same_colour_prob: float = 0.5
    front_prob: float = 0.35
    occlusion_prob: float = 0.5
    occlusion_frames: int = 6
    radius: tuple[float, float] = (6.0, 12.0)
    speed: float = 1.6
    noise: float = 4.0

    def __post_init__(self) -> None:
        check_int("size", self.size, low=1)
        check_int("min_distractors", self.min_distractors, low=0)
        check_int("max_distractors", self.max_distractors, low=self.min_distractors)
        for name in ("same_colour_prob", "front_prob", "occlusion_prob"):
            check_probability(name, getattr(self, name))
        check_int("occlusion_frames", self.occlusion_frames, low=0)
        check_float("speed", self.speed, low=0.0)
        check_float("noise", self.noise, low=0.0)


@dataclass
class _Object:
    kind: str  # "polygon" or "ellipse"
    shape: np.ndarray  # polygon: (K, 2) unit vertices (angle, radius); ellipse: (2,) axes
    colours: np.ndarray  # (2, 3) in [0, 255]
    freq: float
    phase: float
    centres: np.ndarray  # (T, 2)
    angles: np.ndarray  # (T,)
    scales: np.ndarray  # (T,)


def _trajectory(rng: np.random.Generator, T: int, size: int, r: float, speed: float) -> np.ndarray:
    pos = rng.uniform(r + 2, size - r - 2, size=2)
    vel = rng.normal(0, speed, size=2)
    out = np.empty((T, 2))
    for t in range(T):
        out[t] = pos
        vel = 0.9 * vel + rng.normal(0, 0.35 * speed, size=2)
        pos = pos + vel
        for k in range(2):  # reflect at the borders
            lo, hi = r + 1, size - r - 1
            if pos[k] < lo:
                pos[k], vel[k] = 2 * lo - pos[k], abs(vel[k])
            elif pos[k] > hi:
                pos[k], vel[k] = 2 * hi - pos[k], -abs(vel[k])
    return out


def _object(rng: np.random.Generator, T: int, cfg: VideoConfig, colours: np.ndarray | None = None) -> _Object:
    r = rng.uniform(*cfg.radius)
    if rng.random() < 0.6:
        k = int(rng.integers(5, 9))
        jitter = rng.uniform(-0.4, 0.4, size=k) * (2 * np.pi / k)  # angular gaps stay below pi
        ang = np.sort((np.linspace(0, 2 * np.pi, k, endpoint=False) + jitter) % (2 * np.pi))
        shape, kind = np.stack([ang, rng.uniform(0.55, 1.0, size=k)], 1), "polygon"
    else:
        shape, kind = np.array([1.0, rng.uniform(0.45, 1.0)]), "ellipse"
    if colours is None:
        colours = rng.uniform(20, 235, size=(2, 3))
    drift = np.cumsum(rng.normal(0, 0.012, size=T))
    scales = r * np.exp(drift)
    return _Object(
        kind=kind,
        shape=shape,
        colours=colours,
        freq=float(rng.uniform(0.5, 1.4)),
        phase=float(rng.uniform(0, 2 * np.pi)),
        centres=_trajectory(rng, T, cfg.size, r * 1.2, cfg.speed),
        angles=rng.uniform(0, 2 * np.pi) + np.cumsum(np.full(T, rng.uniform(-0.06, 0.06))),
        scales=scales,
    )


def _vertices(obj: _Object, t: int) -> np.ndarray:
    ang, rad = obj.shape[:, 0] + obj.angles[t], obj.shape[:, 1] * obj.scales[t]
    return obj.centres[t] + np.stack([rad * np.cos(ang), rad * np.sin(ang)], 1)


def _extent(obj: _Object, t: int) -> tuple[float, float, float, float]:
    """Exact (x0, y0, x1, y1) of the shape at frame t."""
    if obj.kind == "polygon":
        v = _vertices(obj, t)
        return float(v[:, 0].min()), float(v[:, 1].min()), float(v[:, 0].max()), float(v[:, 1].max())
    a, b = obj.shape * obj.scales[t]
    th = obj.angles[t]
    hx = np.sqrt((a * np.cos(th)) ** 2 + (b * np.sin(th)) ** 2)
    hy = np.sqrt((a * np.sin(th)) ** 2 + (b * np.cos(th)) ** 2)
    cx, cy = obj.centres[t]
    return float(cx - hx), float(cy - hy), float(cx + hx), float(cy + hy)


def _draw(img: np.ndarray, obj: _Object, t: int) -> None:
    """Paint the textured object into img (H, W, 3) float, in place."""
    S = img.shape[0]
    x0, y0, x1, y1 = _extent(obj, t)
    i0, i1 = max(int(np.floor(y0)), 0), min(int(np.ceil(y1)) + 1, S)
    j0, j1 = max(int(np.floor(x0)), 0), min(int(np.ceil(x1)) + 1, S)
    if i0 >= i1 or j0 >= j1:
        return
    yy, xx = np.mgrid[i0:i1, j0:j1].astype(np.float64) + 0.5
    dx, dy = xx - obj.centres[t, 0], yy - obj.centres[t, 1]
    th = obj.angles[t]
    u = np.cos(th) * dx + np.sin(th) * dy  # object-local coordinates
    v = -np.sin(th) * dx + np.cos(th) * dy
    s = obj.scales[t]
    if obj.kind == "ellipse":
        a, b = obj.shape * s
        inside = (u / a) ** 2 + (v / b) ** 2 <= 1.0
    else:
        ang, rad = obj.shape[:, 0], obj.shape[:, 1] * s
        pa = np.arctan2(v, u) % (2 * np.pi)
        k = len(ang)
        nxt = np.searchsorted(ang, pa) % k  # the edge (prev, nxt) spans the pixel's angle
        prv = (nxt - 1) % k
        ax, ay = rad[prv] * np.cos(ang[prv]), rad[prv] * np.sin(ang[prv])
        bx, by = rad[nxt] * np.cos(ang[nxt]), rad[nxt] * np.sin(ang[nxt])
        # inside when the pixel lies on the centre's side of the edge A -> B
        cross_p = (bx - ax) * (v - ay) - (by - ay) * (u - ax)
        cross_o = (bx - ax) * (0 - ay) - (by - ay) * (0 - ax)
        inside = cross_p * cross_o >= 0
    stripe = 0.5 + 0.5 * np.sin(obj.freq * u + obj.phase)
    tex = obj.colours[0] * stripe[..., None] + obj.colours[1] * (1 - stripe[..., None])
    region = img[i0:i1, j0:j1]
    region[inside] = tex[inside]


class VideoSequence:
    """One generated sequence: ``boxes`` (T, 4) xywh float32 and frames rendered on demand."""

    def __init__(self, seed: int, length: int, cfg: VideoConfig = VideoConfig()) -> None:
        self.length = check_int("length", length, low=2)
        self.cfg = cfg
        rng = np.random.default_rng(seed)
        S = cfg.size
        coarse = rng.uniform(0, 255, size=(4, 4, 3))
        fine = rng.normal(0, 30, size=(12, 12, 3))
        self.background = np.clip(_upsample(coarse, S) + _upsample(fine, S), 0, 255).astype(np.float32)
        self.target = _object(rng, length, cfg)
        n_d = int(rng.integers(cfg.min_distractors, cfg.max_distractors + 1))
        self.distractors = []
        for _ in range(n_d):
            same = rng.random() < cfg.same_colour_prob
            d = _object(rng, length, cfg, colours=self.target.colours.copy() if same else None)
            self.distractors.append((d, bool(rng.random() < cfg.front_prob)))
        self.occlusion = None
        if rng.random() < cfg.occlusion_prob:
            t0 = int(rng.integers(1, max(length - cfg.occlusion_frames, 2)))
            off = rng.uniform(-0.6, 0.6, size=2)
            self.occlusion = (t0, t0 + cfg.occlusion_frames, off, rng.uniform(20, 235, size=3))
        self.noise_seed = int(rng.integers(2**31))
        boxes = []
        for t in range(length):
            x0, y0, x1, y1 = _extent(self.target, t)
            x0, y0, x1, y1 = max(x0, 0.0), max(y0, 0.0), min(x1, float(S)), min(y1, float(S))
            boxes.append([x0, y0, x1 - x0, y1 - y0])
        self.boxes = np.asarray(boxes, dtype=np.float32)

    def frame(self, t: int) -> np.ndarray:
        """Frame t as (H, W, 3) uint8."""
        t = check_int("t", t, low=0, high=self.length - 1)
        img = self.background.copy()
        for d, front in self.distractors:
            if not front:
                _draw(img, d, t)
        _draw(img, self.target, t)
        for d, front in self.distractors:
            if front:
                _draw(img, d, t)
        if self.occlusion is not None and self.occlusion[0] <= t < self.occlusion[1]:
            x, y, w, h = self.boxes[t]
            cx, cy = x + w * (0.5 + self.occlusion[2][0]), y + h * (0.5 + self.occlusion[2][1])
            half = 0.3 * np.sqrt(w * h)
            i0, i1 = int(max(cy - half, 0)), int(min(cy + half, img.shape[0]))
            j0, j1 = int(max(cx - half, 0)), int(min(cx + half, img.shape[1]))
            img[i0:i1, j0:j1] = self.occlusion[3]
        noise = np.random.default_rng(self.noise_seed + t).normal(0, self.cfg.noise, size=img.shape)
        return np.clip(img + noise, 0, 255).astype(np.uint8)

    def frames(self) -> np.ndarray:
        """All frames (T, H, W, 3) uint8."""
        return np.stack([self.frame(t) for t in range(self.length)])


def _upsample(grid: np.ndarray, size: int) -> np.ndarray:
    """Bilinear upsampling of a (g, g, 3) grid to (size, size, 3) (a smooth field)."""
    g = grid.shape[0]
    c = (np.arange(size) + 0.5) / size * (g - 1)
    i = np.clip(np.floor(c).astype(int), 0, g - 2)
    f = c - i
    rows = grid[i] * (1 - f)[:, None, None] + grid[i + 1] * f[:, None, None]
    return rows[:, i] * (1 - f)[None, :, None] + rows[:, i + 1] * f[None, :, None]


def make_sequences(n: int, length: int, seed: int, cfg: VideoConfig = VideoConfig()) -> list[VideoSequence]:
    """``n`` sequences of ``length`` frames; sequence i is seeded by (seed, i)."""
    check_int("n", n, low=1)
    return [VideoSequence(int(seed) * 100_003 + i, length, cfg) for i in range(n)]
