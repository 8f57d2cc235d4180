"""Reproduction of the AND-OR composition template (ICLR 2026, reconstruction) on generated scenes.

One seed: 2,000 labelled scenes (5 paradigms x 300 + 500 amateur), 2,000 unlabeled high-quality scenes (the 5
paradigms and the never-labelled golden spiral, 1/6 each), 1,000 test scenes (5 x 150 + 250 amateur); parts are
given. (1) paradigm recovery (ARI of predicted branch labels vs the planted paradigms on the test paradigm
scenes; k-means as the unsupervised baseline); (2) rating alignment: Spearman(S, synthetic rating) on the test
set at n_labelled in {50, 200, 2000}, against a small pixel CNN and ridge on hand features trained on the
ratings of the same labelled scenes; (3) structural expansion from the unlabeled scenes; (4) prescription
validity on the amateur test scenes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import spearmanr
from sklearn.metrics import adjusted_rand_score

from iclr26.generative.and_or_template.baselines import kmeans_paradigms, ridge_ratings, train_cnn
from iclr26.generative.and_or_template.figures import anchors, before_after, parse_tree, rating_scatter
from iclr26.generative.and_or_template.scenes import (
    LABELLED_PARADIGMS,
    CompositionRenderer,
    rating,
    sample_scene,
)
from iclr26.generative.and_or_template.template import AndOrTemplate
from iclr26.generative.and_or_template.terms import TERMS
from iclr26.harness.claims import Claim, Precondition, all_of, difference_at_least, mean_at_least
from iclr26.harness.experiment import Experiment, Metrics
from iclr26.harness.progress import task

__all__ = ["EXPERIMENT", "AOTConfig", "run"]

SALT = 2026_0301


@dataclass(frozen=True)
class AOTConfig:
    """One budget of the AND-OR template reproduction."""

    n_per_paradigm: int = 300
    n_amateur: int = 500
    n_unlabeled: int = 2000
    n_test_per_paradigm: int = 150
    n_test_amateur: int = 250
    n_labelled: tuple[int, ...] = (50, 200, 2000)
    n_branches: int = 4
    n_ref: int = 4000
    penalty: float = 0.1
    rating_noise: float = 0.15
    image_size: int = 32
    cnn_steps: int = 300

    def __post_init__(self) -> None:
        if self.n_per_paradigm < 5 or self.n_test_per_paradigm < 2:
            raise ValueError(
                f"n_per_paradigm must be >= 5 and n_test_per_paradigm >= 2, got "
                f"{self.n_per_paradigm}, {self.n_test_per_paradigm}"
            )


def _draw(names, rng, noise):
    scenes = [sample_scene(p, rng) for p in names]
    return scenes, np.array([rating(s, rng.normal(0, noise)) for s in scenes])


def run(cfg: AOTConfig, seed: int, device: str) -> Metrics:
    rng = np.random.default_rng([seed, SALT])
    lab_names = [p for p in LABELLED_PARADIGMS for _ in range(cfg.n_per_paradigm)] + [
        "amateur"
    ] * cfg.n_amateur
    lab_names = [lab_names[i] for i in rng.permutation(len(lab_names))]
    unl_names = [("golden", *LABELLED_PARADIGMS)[i % 6] for i in range(cfg.n_unlabeled)]
    test_names = [p for p in LABELLED_PARADIGMS for _ in range(cfg.n_test_per_paradigm)]
    test_names += ["amateur"] * cfg.n_test_amateur
    X, r_x = _draw(lab_names, rng, cfg.rating_noise)
    U, _ = _draw(unl_names, rng, cfg.rating_noise)
    T, r_t = _draw(test_names, rng, cfg.rating_noise)
    y, yt = np.array(lab_names), np.array(test_names)
    renderer = CompositionRenderer(cfg.image_size)
    px_x, px_t = renderer.pixels(X), renderer.pixels(T)
    kw = {"n_branches": cfg.n_branches, "n_ref": cfg.n_ref, "penalty": cfg.penalty, "random_state": seed}
    values: dict[str, float] = {}
    full = None
    with task("and-or-template fits", total=len(cfg.n_labelled)) as bar:
        for n in cfg.n_labelled:
            n = min(n, len(X))
            keep = np.arange(n)
            hq = keep[y[keep] != "amateur"]
            model = AndOrTemplate(**kw).fit([X[i] for i in hq], y[hq], unlabeled=U if n == len(X) else None)
            values[f"spearman_template_{n}"] = float(spearmanr(model.score_many(T), r_t)[0])
            pred = train_cnn(px_x[keep], r_x[keep], px_t, steps=cfg.cnn_steps, seed=seed)
            values[f"spearman_cnn_{n}"] = float(np.nan_to_num(spearmanr(pred, r_t)[0]))
            values[f"spearman_ridge_{n}"] = float(
                spearmanr(ridge_ratings([X[i] for i in keep], r_x[keep], T), r_t)[0]
            )
            full = model
            bar.advance()
    # the brief's n = 200 keys, whatever the budget's sizes
    mid = min(cfg.n_labelled[len(cfg.n_labelled) // 2], len(X))
    values["spearman_template_200"] = values[f"spearman_template_{mid}"]
    values["spearman_cnn_200"] = values[f"spearman_cnn_{mid}"]
    # (1) paradigm recovery, with the expanded branches excluded from the labelled comparison
    hq_t = np.flatnonzero(yt != "amateur")
    Th = [T[i] for i in hq_t]
    scores = full._branch_scores(full._features(Th))[:, : full.n_labelled_branches_]
    pred = [full.branches_[b].label for b in scores.argmax(1)]
    values["ari"] = float(adjusted_rand_score(yt[hq_t], pred))
    values["paradigm_acc"] = float(np.mean(np.array(pred) == yt[hq_t]))
    values["ari_kmeans"] = float(
        adjusted_rand_score(yt[hq_t], kmeans_paradigms(Th, len(LABELLED_PARADIGMS), seed))
    )
    # (3) expansion
    lab_u = np.array(full.predict(U))
    new = np.char.startswith(lab_u.astype(str), "expanded")
    gold = np.array(unl_names) == "golden"
    values["n_expanded_branches"] = float(len(full.branches_) - full.n_labelled_branches_)
    values["expansion_purity"] = float((new & gold).sum() / new.sum()) if new.any() else 0.0
    values["expansion_recall"] = float((new & gold).sum() / gold.sum())
    # (4) prescriptions on amateur test scenes (same noise draw before and after: the noise-free change)
    raised, given, examples = [], 0, []
    for i in np.flatnonzero(yt == "amateur"):
        pr = full.prescribe(T[i])
        after = pr[0].apply(T[i]) if pr else T[i]
        raised.append(rating(after) > rating(T[i]))
        given += bool(pr)
        if pr and len(examples) < 3:
            examples.append(
                {
                    "before": [p.__dict__ for p in T[i]],
                    "after": [p.__dict__ for p in after],
                    "term": pr[0].term,
                    "gain": pr[0].predicted_gain,
                    "rating_before": rating(T[i]),
                    "rating_after": rating(after),
                }
            )
    values["prescription_raise_frac"] = float(np.mean(raised))
    values["prescription_rate"] = given / max(len(raised), 1)
    s_t = full.score_many(T)
    sub = rng.permutation(len(T))[:300]
    artifacts = {
        "anchors": [
            {
                "label": b.label,
                "xy": [
                    list(TERMS[k].anchor)
                    for k in b.terms
                    if TERMS[k].kind == "pos" and TERMS[k].category == "subject"
                ],
                "lam": [
                    float(lam)
                    for k, lam in zip(b.terms, b.lam)
                    if TERMS[k].kind == "pos" and TERMS[k].category == "subject"
                ],
            }
            for b in full.branches_
        ],
        "parse": {"tree": str(full.parse(Th[0])), "parts": [p.__dict__ for p in Th[0]]},
        "scatter": {
            "S": np.round(s_t[sub], 4).tolist(),
            "rating": np.round(r_t[sub], 4).tolist(),
            "kind": yt[sub].tolist(),
        },
        "prescriptions": examples,
    }
    return Metrics(values=values, artifacts=artifacts)


LEARNED = Precondition(
    "paradigm_acc", ">", 0.3, "the template classifies test paradigms above chance (1/5) + 0.1"
)
A = mean_at_least("ari", 0.8, method="bootstrap")
B = difference_at_least("spearman_template_200", "spearman_cnn_200", margin=0.05, method="bootstrap")
C = all_of(
    mean_at_least("expansion_purity", 0.7, method="bootstrap"),
    mean_at_least("expansion_recall", 0.5, method="bootstrap"),
)
D = mean_at_least("prescription_raise_frac", 0.7, method="bootstrap")

EXPERIMENT = Experiment(
    slug="and-or-template",
    configs={
        "smoke": AOTConfig(
            n_per_paradigm=30,
            n_amateur=50,
            n_unlabeled=120,
            n_test_per_paradigm=10,
            n_test_amateur=20,
            n_labelled=(50, 200),
            n_branches=2,
            n_ref=1000,
            cnn_steps=20,
            image_size=16,
        ),
        "quick": AOTConfig(),
        "full": AOTConfig(n_ref=20000, cnn_steps=2000, image_size=64),
    },
    seeds={"smoke": 1, "quick": 3, "full": 10},
    run=run,
    claims=[
        Claim(
            id="template-composition",
            statement=(
                "The AND-OR template gives a consistency score more aligned with (synthetic) ratings than a "
                "pixel CNN at n_labelled = 200 (Spearman +0.05, (b)) and prescriptions that raise the rating "
                "of >= 70% of amateur scenes ((d)); paradigm recovery ARI >= 0.8 ((a)) is required"
            ),
            paper_value="agreement with expert paradigms, higher alignment with human ratings (no numbers)",
            decide=all_of(B, D, sanity=[A]),
            scale_gap="generated part lists with a heuristic rating rule, not AVA/AADB photographs and people",
            preconditions=(LEARNED,),
        ),
        Claim(
            id="expansion-discovers-golden-spiral",
            statement=(
                "Structural expansion opens branches whose unlabeled members are >= 70% golden-spiral "
                "scenes and recall >= 50% of them (reported)"
            ),
            paper_value="semi-supervised structural expansion from unlabeled high-quality images (qualitative)",
            decide=C,
            scale_gap="one planted unseen paradigm in generated scenes",
            preconditions=(LEARNED,),
        ),
    ],
    figures=[anchors, parse_tree, rating_scatter, before_after],
    scale_gap="Toy generated scenes with given parts, a uniform-placement reference model and a rule-based rating.",
)
