"""The AND-OR template: max-entropy consistency score, penalised EM block pursuit, expansion, prescription.

Paper: the ICLR 2026 compositional AND-OR template for art and design (reconstruction after Si & Zhu, PAMI 2013
and Jin et al., arXiv 2410.06124). A branch (AND node) is a set T of terms; the root OR node holds the branches.

    p(I | T) = q(I) prod_{k in T} exp(lambda_k h_k(I)) / Z_k,      Z_k = E_q[exp(lambda_k h_k)]
    S(I, T)  = log p(I | T) - log q(I) = sum_k e_k(I),            e_k(I) = lambda_k h_k(I) - log Z_k
    S(I)     = max_b S(I, T_b)  (or log sum_b pi_b exp S(I, T_b))

Block pursuit per branch: add the candidate with the largest gain G_k = lambda mu_k - log Z_k(lambda) while
G_k >= penalty, suppressing candidates correlated with a selected one beyond rho (local mutual exclusivity).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.cluster import KMeans

from iclr26.checks import check_choice, check_float, check_int
from iclr26.generative.and_or_template.scenes import Part, as_parts, sample_scene
from iclr26.generative.and_or_template.terms import TERMS, fit_lambdas, geometry, term_features

__all__ = ["AndOrTemplate", "Branch", "ParseTree", "Prescription", "pursue"]

STEPS = np.linspace(0.1, 1.0, 10)


@dataclass
class Branch:
    """An AND node: selected term indices with their lambda and log Z, its paradigm label and weight."""

    label: str
    terms: np.ndarray
    lam: np.ndarray
    log_z: np.ndarray
    gains: np.ndarray
    weight: float = 1.0
    data_mean: np.ndarray | None = None  # mean_data h_k of the members it was fitted on
    clipped: np.ndarray | None = None  # lambda at +-LAMBDA_MAX: moments not matchable on the reference sample

    def evidence(self, h: np.ndarray) -> np.ndarray:
        """(n, |T|) term evidence e_k = lambda_k h_k - log Z_k."""
        return h[:, self.terms] * self.lam - self.log_z


@dataclass
class ParseTree:
    """The hard parse: the root OR's chosen branch and, per selected term, its part(s) and evidence."""

    score: float
    branch: int
    label: str
    terms: list[dict] = field(default_factory=list)

    def __str__(self) -> str:
        lines = [f"OR root -> branch {self.branch} ({self.label}), S = {self.score:.3f}"]
        lines += [f"  AND term {t['term']}: parts {t['parts']}, e = {t['evidence']:+.3f}" for t in self.terms]
        return "\n".join(lines)


@dataclass
class Prescription:
    """Move one part's geometry (a step toward a term's optimum) with the predicted gain in S."""

    term: str
    category: str
    part_index: int
    geometry: dict
    step: float
    predicted_gain: float
    score_before: float

    def apply(self, parts) -> list[Part]:
        parts = as_parts(parts)
        out = list(parts)
        out[self.part_index] = parts[self.part_index].moved(**self.geometry)
        return out


def pursue(h_data, h_ref, corr_ref, penalty=0.1, rho=0.5, max_terms=12):
    """Greedy block pursuit on one branch's data: indices, lambdas, log Z, gains, data means, clipped flags."""
    mu = h_data.mean(axis=0)
    cand = np.flatnonzero(mu > h_ref.mean(axis=0) + 1e-9)  # positive evidence terms only (lambda > 0)
    lam, log_z, gain, clip = fit_lambdas(h_ref[:, cand], mu[cand])
    order = np.argsort(-gain, kind="stable")
    chosen, alive = [], np.ones(cand.size, bool)
    for j in order:
        if len(chosen) >= max_terms or gain[j] < penalty:
            break
        if not alive[j]:
            continue
        chosen.append(j)
        alive &= np.abs(corr_ref[cand[j], cand]) <= rho  # local mutual exclusivity (itself included)
    c = np.array(chosen, dtype=int)
    return cand[c], lam[c], log_z[c], gain[c], mu[cand[c]], clip[c]


class AndOrTemplate(BaseEstimator):
    """An AND-OR composition template in a maximum-entropy log-linear model (scikit-learn estimator).

    Parameters
    ----------
    n_branches : OR alternatives per paradigm (k-means initialised; with ``y_paradigm=None``, in total).
    penalty : block-pursuit penalty on a term's gain (nats), >= 0.
    rho : local mutual exclusivity: candidates with |corr| > rho to a selected term are suppressed.
    max_terms : at most this many terms per branch.
    n_em : EM iterations (hard E-step by S).
    n_ref : size of the fixed reference sample from q (uniform placement).
    or_rule : ``"max"`` (hard parse) or ``"soft"`` (log sum_b pi_b exp S_b).
    tau_match, tau_struct, min_attach : expansion thresholds (tau_match None: the 5% quantile of the labelled
        scenes' S); min_members : smallest branch kept.

    Example
    -------
    >>> import numpy as np
    >>> from iclr26.generative.and_or_template import AndOrTemplate, sample_scene
    >>> rng = np.random.default_rng(0)
    >>> X = [sample_scene(p, rng) for p in ["centred", "frame"] * 30]
    >>> y = ["centred", "frame"] * 30
    >>> t = AndOrTemplate(n_branches=1, n_ref=2000).fit(X, y)
    >>> t.predict(X[:2])
    ['centred', 'frame']
    """

    def __init__(
        self,
        n_branches=4,
        penalty=0.1,
        rho=0.5,
        max_terms=12,
        n_em=2,
        n_ref=20000,
        or_rule="max",
        tau_match=None,
        tau_struct=0.25,
        min_attach=20,
        min_members=5,
        random_state=0,
    ):
        self.n_branches = n_branches
        self.penalty = penalty
        self.rho = rho
        self.max_terms = max_terms
        self.n_em = n_em
        self.n_ref = n_ref
        self.or_rule = or_rule
        self.tau_match = tau_match
        self.tau_struct = tau_struct
        self.min_attach = min_attach
        self.min_members = min_members
        self.random_state = random_state
        self._validate()

    # ------------------------------------------------------------------ fitting
    def _validate(self) -> None:
        check_int("n_branches", self.n_branches, 1)
        check_float("penalty", self.penalty, 0.0)
        check_float("rho", self.rho, 0.0, 1.0)
        check_int("max_terms", self.max_terms, 1)
        check_int("n_em", self.n_em, 0)
        check_int("n_ref", self.n_ref, 100)
        check_choice("or_rule", self.or_rule, ("max", "soft"))
        check_float("tau_struct", self.tau_struct, 0.0, 1.0)
        check_int("min_attach", self.min_attach, 1)
        check_int("min_members", self.min_members, 1)
        if self.tau_match is not None:
            check_float("tau_match", self.tau_match)
        if self.random_state is not None and not isinstance(self.random_state, np.random.Generator):
            check_int("random_state", self.random_state, 0)

    def _reference(self) -> None:
        rng = np.random.default_rng(self.random_state)
        ref = [sample_scene("amateur", rng) for _ in range(self.n_ref)]
        self.h_ref_ = term_features(geometry(ref))
        with np.errstate(invalid="ignore", divide="ignore"):
            corr = np.corrcoef(self.h_ref_, rowvar=False)
        self.corr_ref_ = np.nan_to_num(corr, nan=0.0)

    def _fit_branch(self, h: np.ndarray, label: str) -> Branch:
        idx, lam, log_z, gain, mu, clip = pursue(
            h, self.h_ref_, self.corr_ref_, self.penalty, self.rho, self.max_terms
        )
        return Branch(label, idx, lam, log_z, gain, float(len(h)), mu, clip)

    def _em(self, h: np.ndarray, geo: np.ndarray, label: str, n_branches: int) -> list[Branch]:
        k = max(1, min(n_branches, len(h) // self.min_members))
        if k == 1:
            assign = np.zeros(len(h), int)
        else:
            km = KMeans(k, n_init=3, random_state=self.random_state).fit(geo.reshape(len(geo), -1))
            assign = km.labels_
        branches: list[Branch] = []
        for it in range(self.n_em + 1):
            branches = [
                self._fit_branch(h[assign == b], label)
                for b in np.unique(assign)
                if (assign == b).sum() >= min(self.min_members, len(h))
            ]
            if it == self.n_em or len(branches) == 1:
                break
            assign = np.argmax(np.stack([b.evidence(h).sum(1) for b in branches], 1), 1)  # hard E-step
        return branches

    def fit(self, parts_list, y_paradigm=None, unlabeled=None):
        """Learn the branches (per paradigm when labelled), then expand from `unlabeled` scenes if given."""
        self._validate()
        if isinstance(parts_list, (str, bytes)) or len(parts_list) == 0:
            raise ValueError("parts_list must be a non-empty list of scenes (part lists)")
        geo = geometry(parts_list)
        h = term_features(geo)
        self._reference()
        if y_paradigm is None:
            labels = np.zeros(len(h), int).astype(str)
        else:
            labels = np.asarray(y_paradigm, dtype=str)
            if labels.shape != (len(h),):
                raise ValueError(f"y_paradigm must have one label per scene ({len(h)}), got {labels.shape}")
        self.branches_: list[Branch] = []
        for lab in sorted(set(labels.tolist())):
            m = labels == lab
            self.branches_ += self._em(h[m], geo[m], lab, self.n_branches)
        s_best = self._branch_scores(h).max(1)
        self.tau_match_ = (
            float(np.quantile(s_best, 0.05)) if self.tau_match is None else float(self.tau_match)
        )
        self.n_labelled_branches_ = len(self.branches_)
        if unlabeled is not None:
            self.expand(unlabeled)
        return self

    # ------------------------------------------------------------------ scoring
    def _check(self) -> None:
        if not hasattr(self, "branches_"):
            raise RuntimeError("AndOrTemplate is not fitted: call fit(parts_list, ...) first")

    def _branch_scores(self, h: np.ndarray) -> np.ndarray:
        return np.stack([b.evidence(h).sum(1) for b in self.branches_], 1)

    def _features(self, scenes) -> np.ndarray:
        return term_features(geometry(scenes))

    def score_many(self, scenes) -> np.ndarray:
        self._check()
        s = self._branch_scores(self._features(scenes))
        if self.or_rule == "max":
            return s.max(1)
        w = np.array([b.weight for b in self.branches_])
        a = s + np.log(w / w.sum())
        m = a.max(1, keepdims=True)
        return (m + np.log(np.exp(a - m).sum(1, keepdims=True)))[:, 0]

    def score(self, parts) -> float:
        """Consistency score S(I) = log p(I | template) - log q(I)."""
        return float(self.score_many([as_parts(parts)])[0])

    def predict_branch(self, scenes) -> np.ndarray:
        self._check()
        return np.argmax(self._branch_scores(self._features(scenes)), 1)

    def predict(self, scenes) -> list[str]:
        """The paradigm label of each scene's best branch (scenes: a list of part lists)."""
        return [self.branches_[b].label for b in self.predict_branch(scenes)]

    def evidence(self, parts, branch: int | None = None) -> dict[str, float]:
        """Term-level evidence e_k of the parsed (or given) branch; sums to that branch's S."""
        self._check()
        h = self._features([as_parts(parts)])
        b = (
            int(np.argmax(self._branch_scores(h)[0]))
            if branch is None
            else check_int("branch", branch, 0, len(self.branches_) - 1)
        )
        br = self.branches_[b]
        return {TERMS[k].name: float(e) for k, e in zip(br.terms, br.evidence(h)[0])}

    def parse(self, parts) -> ParseTree:
        parts = as_parts(parts)
        h = self._features([parts])
        s = self._branch_scores(h)[0]
        b = int(np.argmax(s))
        br = self.branches_[b]
        ev = br.evidence(h)[0]
        rows = []
        for k, e in zip(br.terms, ev):
            t = TERMS[k]
            cats = [t.category] + ([t.other] if t.other else [])
            rows.append(
                {
                    "term": t.name,
                    "parts": [i for i, p in enumerate(parts) if p.category in cats],
                    "evidence": float(e),
                    "lambda": float(br.lam[list(br.terms).index(k)]),
                }
            )
        return ParseTree(float(s[b]), b, br.label, rows)

    # ------------------------------------------------------------------ prescription
    def _moves(self, parts: list[Part], k: int):
        """Candidate (part index, geometry dict) along the path toward term k's optimum, one per step size."""
        t = TERMS[k]
        cat = t.other if t.kind in ("offset", "ratio", "align_x", "align_y") else t.category
        idx = [i for i, p in enumerate(parts) if p.category == cat]
        subj = [p for p in parts if p.category == "subject"]
        if not idx or t.kind == "presence" or (t.other and not subj):
            return []
        i = max(idx, key=lambda j: (parts[j].scale, parts[j].cx, parts[j].cy, parts[j].angle))
        p, out = parts[i], []
        for a in STEPS:
            if t.kind == "pos":
                g = {"cx": p.cx + a * (t.anchor[0] - p.cx), "cy": p.cy + a * (t.anchor[1] - p.cy)}
            elif t.kind == "scale":
                g = {"scale": float(np.exp(np.log(p.scale) + a * (t.anchor[0] - np.log(p.scale))))}
            elif t.kind == "angle":
                g = {"angle": p.angle + a * (t.anchor[0] - p.angle)}
            elif t.kind == "offset":
                s0 = max(subj, key=lambda q: (q.scale, q.cx, q.cy, q.angle))
                tx, ty = s0.cx + t.anchor[0], s0.cy + t.anchor[1]
                g = {"cx": p.cx + a * (tx - p.cx), "cy": p.cy + a * (ty - p.cy)}
            elif t.kind == "ratio":
                s0 = max(subj, key=lambda q: (q.scale, q.cx, q.cy, q.angle))
                tl = np.log(s0.scale) + t.anchor[0]
                g = {"scale": float(np.exp(np.log(p.scale) + a * (tl - np.log(p.scale))))}
            elif t.kind in ("align_x", "align_y"):
                s0 = max(subj, key=lambda q: (q.scale, q.cx, q.cy, q.angle))
                key = "cx" if t.kind == "align_x" else "cy"
                g = {key: getattr(p, key) + a * (getattr(s0, key) - getattr(p, key))}
            else:  # inside: the subject toward the frame's centre
                f = max((q for q in parts if q.category == "frame"), key=lambda q: q.scale)
                g = {"cx": p.cx + a * (f.cx - p.cx), "cy": p.cy + a * (f.cy - p.cy)}
            g = {
                key: float(np.clip(v, 0.0, 1.0))
                if key in ("cx", "cy")
                else float(np.clip(v, 1e-3, 1.0))
                if key == "scale"
                else float(v)
                for key, v in g.items()
            }
            out.append((a, i, g))
        return out

    def prescribe(self, parts, k: int = 1) -> list[Prescription]:
        """Up to k prescriptions for the parsed branch's terms in order of evidence deficit d = max e - e.

        For each term (worst first) the step along its path that maximises the total S(I) is taken; a term
        whose best step does not raise S gives nothing. Empty when no term can be improved.
        """
        parts = as_parts(parts)
        k = check_int("k", k, 1)
        h = self._features([parts])
        b = int(np.argmax(self._branch_scores(h)[0]))
        br = self.branches_[b]
        ev = br.evidence(h)[0]
        best_e = np.maximum(br.lam, 0.0) - br.log_z
        s0 = self.score(parts)
        out = []
        for j in np.argsort(-(best_e - ev), kind="stable"):
            if best_e[j] - ev[j] <= 1e-12:
                break
            moves = self._moves(parts, int(br.terms[j]))
            if not moves:
                continue
            cands = [[*parts[:i], parts[i].moved(**g), *parts[i + 1 :]] for _, i, g in moves]
            scores = self.score_many(cands)
            m = int(np.argmax(scores))
            if scores[m] > s0 + 1e-12:
                a, i, g = moves[m]
                out.append(
                    Prescription(
                        TERMS[br.terms[j]].name, parts[i].category, i, g, float(a), float(scores[m] - s0), s0
                    )
                )
            if len(out) >= k:
                break
        return out

    # ------------------------------------------------------------------ structural expansion
    def structural_consistency(self, h: np.ndarray) -> np.ndarray:
        """Per scene, the largest fraction over branches of presence/relation terms with h >= 0.5."""
        rel = {"presence", "offset", "ratio", "align_x", "align_y", "inside"}
        fr = []
        for br in self.branches_:
            ks = [k for k in br.terms if TERMS[k].kind in rel]
            fr.append((h[:, ks] >= 0.5).mean(1) if ks else np.zeros(len(h)))
        return np.max(np.stack(fr, 1), 1)

    def expand(self, unlabeled) -> list[int]:
        """Open candidate branches from poorly matched but structurally consistent unlabeled scenes; keep one
        when >= min_attach unlabeled scenes attach to it (best branch, S above tau_match) after a refit."""
        self._check()
        if len(unlabeled) == 0:
            raise ValueError("unlabeled must be a non-empty list of scenes")
        geo = geometry(unlabeled)
        h = term_features(geo)
        s = self._branch_scores(h).max(1)
        pool = np.flatnonzero((s < self.tau_match_) & (self.structural_consistency(h) >= self.tau_struct))
        self.expansion_pool_ = pool
        kept: list[int] = []
        if pool.size < self.min_attach:
            return kept
        n_c = max(1, min(self.n_branches, pool.size // self.min_attach))
        km = KMeans(n_c, n_init=3, random_state=self.random_state).fit(geo[pool].reshape(pool.size, -1))
        for c in range(n_c):
            seed = pool[km.labels_ == c]
            if seed.size < self.min_members:
                continue
            cand = self._fit_branch(h[seed], f"expanded-{len(kept)}")
            for _ in range(2):  # refit on the scenes it attracts
                base = self._branch_scores(h).max(1)
                sc = cand.evidence(h).sum(1)
                att = np.flatnonzero((sc > self.tau_match_) & (sc > base))
                if att.size < self.min_members:
                    break
                cand = self._fit_branch(h[att], cand.label)
            sc = cand.evidence(h).sum(1)
            att = np.flatnonzero((sc > self.tau_match_) & (sc > self._branch_scores(h).max(1)))
            if att.size >= self.min_attach:
                self.branches_.append(cand)
                kept.append(len(self.branches_) - 1)
        return kept
