"""One evaluation of every method on a virtual-cell world: DE macro-F1, DE accuracy, DE AUROC, DIR accuracy.

Methods: ``graph_retrieval`` (GraphReasoner + retrieval: the VCWorld stand-in), ``graph_only`` (paths, case vote
off), ``retrieval_only`` (case vote only), ``knn_drug`` (labels of the most similar training drug), the black
boxes ``hgb`` and ``mlp``, and ``majority`` (the training split's majority class). DE is scored on every test
triplet, DIR on the truly DE test triplets; the test drugs are never seen in training.
"""

from __future__ import annotations

import numpy as np
from sklearn.metrics import accuracy_score, f1_score, roc_auc_score

from iclr26.agents.vcworld.baselines import fit_black_box, kg_embeddings, triplet_features
from iclr26.agents.vcworld.paths import enumerate_walks
from iclr26.agents.vcworld.reason import GraphReasoner
from iclr26.agents.vcworld.retrieve import Retriever, label_table

__all__ = ["METHODS", "evaluate", "mechanistic_consistency"]

METHODS = ("graph_retrieval", "graph_only", "retrieval_only", "knn_drug", "hgb", "mlp", "majority")
REASONERS = {
    "graph_retrieval": GraphReasoner(),
    "graph_only": GraphReasoner(case_weight=0.0),
    "retrieval_only": GraphReasoner(use_paths=False),
}


def _scores(y, conf, pred) -> dict[str, float]:
    out = {"f1": f1_score(y, pred, average="macro", zero_division=0.0), "acc": accuracy_score(y, pred)}
    out["auroc"] = roc_auc_score(y, conf) if 0 < y.mean() < 1 else float("nan")
    return {k: float(v) for k, v in out.items()}


def evaluate(
    vc, kg, train, test, methods=METHODS, seed: int = 0, max_rows: int = 30_000, hgb_iter: int = 200
) -> dict:
    """Per-method metrics on the test drugs, plus the arrays needed for the mechanistic check."""
    retriever = Retriever(kg, label_table(vc, train), k_paths=3, k_cases=10)
    C, G = vc.n_cell_lines, vc.n_genes
    y_de, y_dir = vc.de[:, test], vc.dir[:, test]  # (C, T, G)
    mask = y_de == 1
    S = np.broadcast_to(retriever.scores[test], y_de.shape)
    votes = [retriever.case_votes(c, test) for c in range(C)]
    v_de, v_dir = np.stack([v[0] for v in votes]), np.stack([v[1] for v in votes])
    conf_de, conf_dir = {}, {}
    for m in methods:
        if m in REASONERS:
            r = REASONERS[m]
            conf_de[m], conf_dir[m] = r.de_confidence(S, v_de), r.dir_confidence(S, v_dir)
        elif m == "knn_drug":
            nb = np.array([retriever.neighbours(int(p))[0][0] for p in test])
            sgn = np.sign([retriever.neighbours(int(p))[1][0] for p in test])
            conf_de[m] = vc.de[:, nb].astype(float)
            up = vc.dir[:, nb].astype(float)
            conf_dir[m] = np.where(sgn[None, :, None] < 0, 1.0 - up, up)
        elif m == "majority":
            tr_de, tr_dir = vc.de[:, train], vc.dir[:, train]
            conf_de[m] = np.full(y_de.shape, float(tr_de.mean() >= 0.5))
            conf_dir[m] = np.full(y_de.shape, float(tr_dir[tr_de == 1].mean() >= 0.5))
        else:
            genes, drugs = kg_embeddings(kg, seed=seed)
            c, p, g = np.meshgrid(np.arange(C), train, np.arange(G), indexing="ij")
            X = triplet_features(genes, drugs, C, c.ravel(), p.ravel(), g.ravel())
            de_tr, dir_tr = vc.de[:, train].ravel(), vc.dir[:, train].ravel()
            ct, pt, gt = np.meshgrid(np.arange(C), test, np.arange(G), indexing="ij")
            Xt = triplet_features(genes, drugs, C, ct.ravel(), pt.ravel(), gt.ravel())
            de_model = fit_black_box(m, X, de_tr, seed, max_rows, hgb_iter)
            dir_model = fit_black_box(m, X[de_tr == 1], dir_tr[de_tr == 1], seed, max_rows, hgb_iter)
            conf_de[m] = de_model.predict_proba(Xt)[:, 1].reshape(y_de.shape)
            conf_dir[m] = dir_model.predict_proba(Xt)[:, 1].reshape(y_de.shape)
    out = {}
    for m in methods:
        de = _scores(y_de.ravel(), conf_de[m].ravel(), (conf_de[m] >= 0.5).ravel().astype(int))
        dr = _scores(y_dir[mask], conf_dir[m][mask], (conf_dir[m][mask] >= 0.5).astype(int))
        out.update({f"de_f1_{m}": de["f1"], f"de_acc_{m}": de["acc"], f"de_auroc_{m}": de["auroc"],
                    f"dir_acc_{m}": dr["acc"], f"dir_auroc_{m}": dr["auroc"]})  # fmt: skip
    return {"metrics": out, "retriever": retriever, "conf_dir": conf_dir, "test": test}


def mechanistic_consistency(vc, ev: dict, n_samples: int = 200, seed: int = 0) -> tuple[float, int]:
    """Among correct DIR predictions of ``graph_retrieval`` that cite a KG path, the fraction whose top path
    exists in the true network with the right signs (checked on up to `n_samples` sampled predictions)."""
    r, test = ev["retriever"], ev["test"]
    conf = ev["conf_dir"]["graph_retrieval"]
    y_de, y_dir = vc.de[:, test], vc.dir[:, test]
    ok = (y_de == 1) & ((conf >= 0.5) == (y_dir == 1)) & (r.scores[test][None] != 0)
    idx = np.argwhere(ok)
    rng = np.random.default_rng(seed)
    if len(idx) > n_samples:
        idx = idx[rng.choice(len(idx), n_samples, replace=False)]
    true_true = 0
    for _, t, g in idx:
        walks = enumerate_walks(r.kg, int(test[t]), int(g), r.w, r.k_paths)
        top = walks[0]
        edges = zip(top.genes[:-1], top.genes[1:], top.signs[1:])
        true_true += all(vc.graph.has_edge(u, v) and vc.graph.edges[u, v]["sign"] == s for u, v, s in edges)
    return (true_true / len(idx) if len(idx) else float("nan")), len(idx)
