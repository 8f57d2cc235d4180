"""An offline synthetic antibody world with exact functional labels (the stand-in for SAbDab + literature).

Paper: "AFD-Instruction" (ICLR 2026, arXiv 2602.04916); the world follows the brief's reproduction section.

A heavy chain is ``FR1(5) H1(3) FR2(4) H2(3) FR3(5) H3(6-10) FR4(4)`` (30-34 residues), a light chain
``FR1(4) L1(3) FR2(4) L2(2) FR3(5) L3(6-9) FR4(4)`` (28-31). Frameworks are per-variant templates (3 heavy
"species", 2 light types) with point mutations; CDRs are random residues from ``FILL`` (14 letters, no
``C F H M W Y``) with planted motifs. The labels are a deterministic function of the sequence, re-derived by
:func:`labels_of` from the chains alone:

* ``target`` (6 classes): the one target motif (``CF FC HM MH CH FM``) found in CDR-H3;
* ``neutralizing`` (yes/no): CDR-H3 contains ``YY`` **and** CDR-L3 contains ``WW`` (a two-motif conjunction);
* ``species`` (3): the heavy template nearest (Hamming) to the heavy framework;
* ``light_type`` (kappa/lambda): the nearest light template.

CDR positions are fixed offsets from the chain ends (only H3 and L3 vary in length), so the checker parses them
from the sequence. A sample whose rule labels are ambiguous (two target motifs, a framework tie) is redrawn.

Example
-------
>>> w = AntibodyWorld(0)
>>> ab = w.sample(3)[0]
>>> labels_of(ab.heavy, ab.light, w) == ab.labels
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from iclr26.checks import check_float, check_int

__all__ = [
    "FILL",
    "LABELS",
    "TARGET_MOTIFS",
    "TASKS",
    "Antibody",
    "AntibodyWorld",
    "cdr_h3",
    "cdr_l3",
    "design_satisfies",
    "labels_of",
    "neutralizing_of",
    "target_of",
]

FILL = "ADEGIKLNPQRSTV"
TARGETS = ("virus", "toxin", "tumor", "cytokine", "bacteria", "receptor")
TARGET_MOTIFS = ("CF", "FC", "HM", "MH", "CH", "FM")
NEUT_H3, NEUT_L3 = "YY", "WW"
SPECIES = ("human", "mouse", "llama")
LIGHT_TYPES = ("kappa", "lambda")
TASKS = ("target", "neutralizing", "species", "light_type")
LABELS: dict[str, tuple[str, ...]] = {
    "target": TARGETS,
    "neutralizing": ("yes", "no"),
    "species": SPECIES,
    "light_type": LIGHT_TYPES,
}
HEAVY_FR = (5, 4, 5, 4)  # FR1, FR2, FR3, FR4 lengths
HEAVY_CDR = (3, 3)  # H1, H2 (H3 varies)
LIGHT_FR = (4, 4, 5, 4)
LIGHT_CDR = (3, 2)
H3_LEN = (6, 10)
L3_LEN = (6, 9)
MUTATION = 0.08


def _h3_start() -> int:
    return HEAVY_FR[0] + HEAVY_CDR[0] + HEAVY_FR[1] + HEAVY_CDR[1] + HEAVY_FR[2]


def _l3_start() -> int:
    return LIGHT_FR[0] + LIGHT_CDR[0] + LIGHT_FR[1] + LIGHT_CDR[1] + LIGHT_FR[2]


def cdr_h3(heavy: str) -> str:
    """CDR-H3 of a world heavy chain: between FR3's end (fixed offset) and FR4 (the last 4 residues)."""
    return heavy[_h3_start() : len(heavy) - HEAVY_FR[3]]


def cdr_l3(light: str) -> str:
    """CDR-L3 of a world light chain."""
    return light[_l3_start() : len(light) - LIGHT_FR[3]]


def _frameworks(chain: str, fr: tuple[int, ...], cdr: tuple[int, int]) -> str:
    a = fr[0]
    b = a + cdr[0]
    c = b + fr[1]
    d = c + cdr[1]
    return chain[:a] + chain[b:c] + chain[d : d + fr[2]] + chain[len(chain) - fr[3] :]


def target_of(h3: str) -> str | None:
    """The target class of a CDR-H3: the class of its one target motif; None when none or several occur."""
    found = {TARGETS[i] for i, m in enumerate(TARGET_MOTIFS) if m in h3}
    hits = sum(h3.count(m) for m in TARGET_MOTIFS)
    return found.pop() if len(found) == 1 and hits == 1 else None


def neutralizing_of(h3: str, l3: str) -> str:
    """``"yes"`` iff CDR-H3 holds ``YY`` and CDR-L3 holds ``WW``."""
    return "yes" if NEUT_H3 in h3 and NEUT_L3 in l3 else "no"


def _nearest(fr: str, templates: Mapping[str, tuple[str, ...]]) -> str | None:
    flat = {k: "".join(t) for k, t in templates.items()}
    d = {k: sum(x != y for x, y in zip(fr, t)) + abs(len(fr) - len(t)) for k, t in flat.items()}
    best = min(d.values())
    winners = [k for k, v in d.items() if v == best]
    return winners[0] if len(winners) == 1 else None


def labels_of(heavy: str, light: str, world: AntibodyWorld) -> dict[str, str] | None:
    """The four rule labels of an antibody, from its sequences alone; None when a rule is ambiguous."""
    h3, l3 = cdr_h3(heavy), cdr_l3(light)
    target = target_of(h3)
    species = _nearest(_frameworks(heavy, HEAVY_FR, HEAVY_CDR), world.heavy_templates)
    light_type = _nearest(_frameworks(light, LIGHT_FR, LIGHT_CDR), world.light_templates)
    if target is None or species is None or light_type is None:
        return None
    return {
        "target": target,
        "neutralizing": neutralizing_of(h3, l3),
        "species": species,
        "light_type": light_type,
    }


def design_satisfies(h3: str, light: str, target: str, neutralizing: str) -> bool:
    """Whether a designed CDR-H3, placed in an antibody with this light chain, has the requested function:
    only amino-acid letters, a length in the world's H3 range, target rule = `target` and the neutralization
    rule (with the given chain's CDR-L3) = `neutralizing`."""
    if not h3 or any(c not in FILL + "CFHMWY" for c in h3) or not H3_LEN[0] <= len(h3) <= H3_LEN[1]:
        return False
    return target_of(h3) == target and neutralizing_of(h3, cdr_l3(light)) == neutralizing


@dataclass(frozen=True)
class Antibody:
    """One synthetic antibody: id, chains and its rule labels."""

    id: str
    heavy: str
    light: str
    labels: dict[str, str] = field(hash=False)

    @property
    def h3(self) -> str:
        return cdr_h3(self.heavy)

    @property
    def l3(self) -> str:
        return cdr_l3(self.light)


class AntibodyWorld:
    """Framework templates fixed by `seed`; :meth:`sample` draws antibodies with balanced labels.

    Parameters
    ----------
    seed : fixes the templates and the default sampling stream.
    mutation : per-residue framework point-mutation rate.
    """

    def __init__(self, seed: int = 0, mutation: float = MUTATION) -> None:
        self.seed = check_int("seed", seed, low=0)
        self.mutation = check_float("mutation", mutation, 0.0, 0.3)
        rng = np.random.default_rng([self.seed, 2602_04916])
        self.heavy_templates = {s: self._template(rng, HEAVY_FR) for s in SPECIES}
        self.light_templates = {t: self._template(rng, LIGHT_FR) for t in LIGHT_TYPES}
        self._rng = np.random.default_rng([self.seed, 1])
        self._count = 0

    @staticmethod
    def _template(rng: np.random.Generator, fr: tuple[int, ...]) -> tuple[str, ...]:
        segs = ["".join(rng.choice(list(FILL), size=n)) for n in fr]
        segs[2] = segs[2][:-1] + "C"  # the conserved Cys before CDR3 and Trp after it
        segs[3] = "W" + segs[3][1:]
        return tuple(segs)

    def _mutate(self, rng: np.random.Generator, seg: str) -> str:
        hit = rng.random(len(seg)) < self.mutation
        return "".join(str(rng.choice(list(FILL))) if h else c for c, h in zip(seg, hit))

    def _fill(self, rng: np.random.Generator, n: int) -> str:
        return "".join(rng.choice(list(FILL), size=n))

    @staticmethod
    def _plant(rng: np.random.Generator, base: str, motifs: list[str]) -> str:
        """Insert the motifs (replacing residues) at random non-overlapping positions."""
        s = list(base)
        taken: set[int] = set()
        for m in motifs:
            for _ in range(50):
                p = int(rng.integers(0, len(s) - len(m) + 1))
                span = set(range(p - 1, p + len(m) + 1))
                if not span & taken:
                    s[p : p + len(m)] = m
                    taken |= set(range(p, p + len(m)))
                    break
        return "".join(s)

    @property
    def templates_flat(self) -> dict[str, str]:
        return {k: "".join(v) for k, v in {**self.heavy_templates, **self.light_templates}.items()}

    def _chain(self, rng, tmpl, cdrs: list[str]) -> str:
        fr = [self._mutate(rng, seg) for seg in tmpl]
        return fr[0] + cdrs[0] + fr[1] + cdrs[1] + fr[2] + cdrs[2] + fr[3]

    def draw_one(self, rng: np.random.Generator, aid: str) -> Antibody:
        """One antibody with uniformly drawn intended labels (redrawn until the rule labels are unambiguous)."""
        while True:
            target = int(rng.integers(len(TARGETS)))
            species = SPECIES[int(rng.integers(len(SPECIES)))]
            light_type = LIGHT_TYPES[int(rng.integers(len(LIGHT_TYPES)))]
            neut = rng.random() < 0.5
            # neutralizing: both motifs; else none, the H3 motif only or the L3 motif only
            a, b = (
                (True, True) if neut else [(False, False), (True, False), (False, True)][int(rng.integers(3))]
            )
            h3 = self._plant(
                rng,
                self._fill(rng, int(rng.integers(H3_LEN[0], H3_LEN[1] + 1))),
                [TARGET_MOTIFS[target]] + ([NEUT_H3] if a else []),
            )
            l3 = self._plant(
                rng, self._fill(rng, int(rng.integers(L3_LEN[0], L3_LEN[1] + 1))), [NEUT_L3] if b else []
            )
            heavy = self._chain(
                rng,
                self.heavy_templates[species],
                [self._fill(rng, HEAVY_CDR[0]), self._fill(rng, HEAVY_CDR[1]), h3],
            )
            light = self._chain(
                rng,
                self.light_templates[light_type],
                [self._fill(rng, LIGHT_CDR[0]), self._fill(rng, LIGHT_CDR[1]), l3],
            )
            labels = labels_of(heavy, light, self)
            if labels is not None:
                return Antibody(aid, heavy, light, labels)

    def sample(self, n: int, rng: np.random.Generator | None = None, prefix: str = "ab") -> list[Antibody]:
        """`n` antibodies (ids ``<prefix><k>``), from `rng` or the world's own stream."""
        check_int("n", n, low=1)
        rng = self._rng if rng is None else rng
        out = [self.draw_one(rng, f"{prefix}{self._count + i:05d}") for i in range(n)]
        self._count += n
        return out
