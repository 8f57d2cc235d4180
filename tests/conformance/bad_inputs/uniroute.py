"""Bad input to UniRoute's routers, its deferral curve, its synthetic pools and the routing-table loader."""

import tempfile
from pathlib import Path

import numpy as np

from iclr26.inference.uniroute import (
    KNNRouter,
    UniRouter,
    ZeroRouter,
    audc,
    load_routing_table,
    make_irt_pool,
)
from iclr26.inference.uniroute.experiment import UniRouteConfig

RNG = np.random.default_rng(0)
TRAIN, VAL = RNG.normal(size=(40, 3)), RNG.normal(size=(10, 3))
ERRORS = (RNG.random((10, 2)) < 0.4).astype(float)
HEADER = "prompt_id,embedding,llm,correct,cost,split"


def fitted(mode="kmeans"):
    train_errors = (RNG.random((40, 2)) < 0.4).astype(float)
    return UniRouter(n_clusters=3, mode=mode, random_state=0).fit(TRAIN, train_errors, VAL)


def pooled():
    return fitted().add_llm("a", ERRORS[:, 0], 1.0)


def table(*lines, header=HEADER):
    path = Path(tempfile.mkdtemp()) / "routing.csv"
    path.write_text("\n".join([header, *lines]) + "\n")
    return load_routing_table(path)


CASES = [
    (lambda: fitted().add_llm("a", ERRORS[:7, 0], 1.0), ValueError, ["val_errors", "length N = 10"]),
    (lambda: fitted().add_llm("a", 2 * ERRORS[:, 0], 1.0), ValueError, ["val_errors", "0/1", "[0, 1]"]),
    (lambda: fitted().add_llm("a", ERRORS[:, 0], 0.0), ValueError, ["cost", "> 0"]),
    (lambda: fitted().add_llm("a", ERRORS[:, 0], -3.0), ValueError, ["cost", "> 0"]),
    (lambda: fitted().route(VAL, 0.1), ValueError, ["pool is empty"]),
    (lambda: fitted().predict_error(VAL), ValueError, ["pool is empty"]),
    (lambda: pooled().route(VAL, -1.0), ValueError, ["lam", ">= 0"]),
    (lambda: pooled().predict_error(np.zeros((2, 5))), ValueError, ["prompt_emb", "features"]),
    (lambda: pooled().deferral_curve(VAL, ERRORS), ValueError, ["test_errors", "shape"]),
    (lambda: UniRouter(mode="spectral").fit(TRAIN, None, VAL), ValueError, ["mode"]),
    (lambda: UniRouter(n_clusters=0).fit(TRAIN, None, VAL), ValueError, ["n_clusters", ">= 1"]),
    (lambda: UniRouter(n_clusters=50).fit(TRAIN, None, VAL), ValueError, ["n_clusters", "exceeds"]),
    (
        lambda: UniRouter(mode="learned_map").fit(TRAIN, None, VAL),
        ValueError,
        ["train_llm_errors", "required"],
    ),
    (lambda: UniRouter(n_clusters=3).fit(TRAIN, None, None), ValueError, ["val_prompt_emb", "required"]),
    (
        lambda: UniRouter(n_clusters=3).fit(TRAIN, None, VAL[:, :2]),
        ValueError,
        ["val_prompt_emb", "features"],
    ),
    (lambda: UniRouter(n_clusters=3).fit(["some text"], None, VAL), ValueError, ["embedder"]),
    (lambda: KNNRouter(n_neighbors=11).fit(VAL), ValueError, ["n_neighbors", "N = 10"]),
    (lambda: ZeroRouter().fit(np.full((3, 2), np.nan)), ValueError, ["val_prompt_emb", "non-finite"]),
    (lambda: audc(np.array([0.0, 1.5]), np.array([0.5, 0.6])), ValueError, ["cost", "normalised"]),
    (lambda: make_irt_pool(n_llms=0), ValueError, ["n_llms", ">= 1"]),
    (lambda: UniRouteConfig(pool="embedllm"), ValueError, ["pool"]),
    (lambda: UniRouteConfig(pool="table"), ValueError, ["data_path"]),
    (
        lambda: table("p1,0 1,a,1,val", header="prompt_id,embedding,llm,correct,split"),
        ValueError,
        ["lacks column", "cost"],
    ),
    (lambda: table("p1,0 1,a,right,1.0,val"), ValueError, ["'correct'", "numeric", "row 2", "'a'"]),
    (lambda: table("p1,0 1,a,1,free,val"), ValueError, ["'cost'", "numeric", "row 2"]),
    (lambda: table("p1,0 1,a,1,1.0,val", "p1,0 1,b,1,-2.0,val"), ValueError, ["'cost'", "> 0", "'b'"]),
    (
        lambda: table("p1,0 1,a,1,1.0,val", "p2,1 0,a,0,1.0,test", "p2,1 0,b,0,2.0,test"),
        ValueError,
        ["llm 'b'", "no validation rows"],
    ),
]
