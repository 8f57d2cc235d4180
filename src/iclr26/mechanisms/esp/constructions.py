"""Hand-set weights: one head that solves ESP on DAGs (and meets the MAS bound elsewhere), two heads on all graphs.

"Two (narrow) heads are better than (an arbitrarily wide) one", ICLR 2026, OpenReview RRmPbbZsvl. Both
constructions set the weights of the shared ``AttnOnlyTransformer(n_layers=1, n_heads=H, d_model, tie=True)``
(pre-LN attention, bias-free final LayerNorm, tied unembedding). The query token ``#`` sits at a fixed
position, so each head's scores depend only on the key's token and position; we set ``W_Q = 0`` and let the
query bias carry the fixed query, so that score_h(t) = lambda <w_h, LN(x_t)> for a direction w_h.

All embeddings are built from an orthonormal basis b_1, b_2, ... of the mean-zero subspace of R^d, so that
LayerNorm (gain 1, bias 0) only rescales them: LN(x) = sqrt(d) x / |x|.

Two heads (d >= 5; vertices on the unit circle): E[v] = cos(theta_v) b_1 + sin(theta_v) b_2,
theta_v = 2 pi v / n; positions 1 and 2 are +b_3 and -b_3; E[1] = (b_4 - b_3)/sqrt2, E[2] = (b_4 + b_3)/sqrt2;
E[#] = 0 and position 4 is -b_4. Head 1 (w_1 at 30 degrees in the (b_3, b_4) plane) scores selector 2 highest,
position 1 next and everything else far below; head 2 is its mirror image (b_3 -> -b_3). Both heads copy the
(b_1, b_2) part of the attended key: a selector carries no vertex signal. So with selector 1, head 2 sits on
the selector and head 1 writes u; with selector 2, head 1 sits on the selector and head 2 writes v. The
residual at ``#`` (-b_4) gives the selectors logit -1/sqrt2 and ``#`` logit 0, below the written vertex's.

One head (d >= n + 4), given a linear order rho of V (topological for a DAG, a MAS order otherwise):
one-hot codes E[v] = b_v, E[1] = b_{s1}, E[2] = b_{s2}, E[#] = 0, positions +b_p, -b_p, 0, -b_p. The head
weights position 1 by e^{delta} against position 2 and copies vertex codes (gain K); selector 2's value is the
ramp sum_w rho(w) b_w. Selector 1 thus returns the token at position 1 (u); selector 2 returns the later
vertex in rho, which is v exactly on forward arcs. Accuracy = (m + #forward arcs) / (2m) = 1/2 + |MAS|/(2m)
for a MAS order: 100% on a DAG, the single-head optimum on any graph.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import networkx as nx
import torch
from torch import Tensor

from iclr26.checks import check_int
from iclr26.lab.transformer import AttnOnlyTransformer
from iclr26.mechanisms.esp.mas import mas_exact
from iclr26.mechanisms.esp.task import SEQ_LEN, check_graph

__all__ = ["construct_1head_dag", "construct_2head", "mean_zero_basis"]

SCORE_GAP = 30.0  # smallest gap, in logits of the attention softmax, between the attended key and the others


def mean_zero_basis(d: int, k: int) -> Tensor:
    """k orthonormal vectors of R^d orthogonal to the all-ones vector (Helmert rows), shape (k, d)."""
    if k > d - 1:
        raise ValueError(f"only d - 1 = {d - 1} mean-zero directions exist in R^{d}, asked for k={k}")
    basis = torch.zeros(k, d, dtype=torch.float64)
    for j in range(1, k + 1):
        # b_j = (1, ..., 1, -j, 0, ..., 0) / sqrt(j (j + 1)) with j ones
        basis[j - 1, :j] = 1.0
        basis[j - 1, j] = -float(j)
        basis[j - 1] /= math.sqrt(j * (j + 1))
    return basis


def _blank_model(n: int, heads: int, d: int, d_head: int) -> AttnOnlyTransformer:
    model = AttnOnlyTransformer(
        n_layers=1, n_heads=heads, d_model=d, vocab_size=n + 3, seq_len=SEQ_LEN, tie=True, d_head=d_head
    )
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
        model.blocks[0].ln1.weight.fill_(1.0)
        model.ln_final.weight.fill_(1.0)
    return model


def construct_2head(G: nx.DiGraph, d: int = 5) -> AttnOnlyTransformer:
    """A 1-layer, 2-head attention-only model that solves ESP on any directed graph `G` (100% accuracy).

    Parameters
    ----------
    G : directed graph without self-loops, with at least one arc; vertex ids in ``list(G.nodes)`` order.
    d : model width (>= 5; extra dimensions stay unused).

    Examples
    --------
    >>> from iclr26.lab.tasks import complete_digraph
    >>> from iclr26.mechanisms.esp import accuracy
    >>> accuracy(construct_2head(complete_digraph(6)), complete_digraph(6))
    1.0
    """
    check_graph(G)
    check_int("d (width of the two-head construction)", d, low=5)
    n = G.number_of_nodes()
    b1, b2, b3, b4 = mean_zero_basis(d, 4)
    model = _blank_model(n, heads=2, d=d, d_head=2)
    theta = 2 * math.pi * torch.arange(n, dtype=torch.float64) / n
    embed = torch.zeros(n + 3, d, dtype=torch.float64)
    embed[:n] = torch.cos(theta)[:, None] * b1 + torch.sin(theta)[:, None] * b2  # unit-circle vertex codes
    embed[n] = (b4 - b3) / math.sqrt(2)  # selector 1
    embed[n + 1] = (b4 + b3) / math.sqrt(2)  # selector 2; the query `#` (id n+2) stays 0
    pos = torch.stack([b3, -b3, torch.zeros(d, dtype=torch.float64), -b4])
    # (b_3, b_4)-coordinates of LN(x_t), times 1/sqrt(d): vertices at positions 1 and 2 -> (+-1/sqrt2, 0),
    # selectors -> (-+1, 1)/sqrt2, `#` -> (0, -1). Head 1 looks along 30 degrees; its smallest score gap
    # (selector 2 over position 1) is sqrt(d) (cos 15 - cos 30 / sqrt2) in units of lambda.
    phi = math.radians(30.0)
    gap = math.sqrt(d) * (math.cos(math.radians(15.0)) - math.cos(phi) / math.sqrt(2))
    lam = SCORE_GAP / gap
    directions = [math.cos(phi) * b3 + math.sin(phi) * b4, -math.cos(phi) * b3 + math.sin(phi) * b4]
    attn = model.blocks[0].attn
    with torch.no_grad():
        model.W_E.copy_(embed)
        model.positions.W_pos.copy_(pos)
        for h, w in enumerate(directions):
            attn.b_Q[h, 0] = math.sqrt(attn.d_head)  # fixed query; score = q.k / sqrt(d_head) = lambda <w, y>
            attn.W_K[h, :, 0] = (lam * w).float()
            attn.W_V[h, :, 0], attn.W_V[h, :, 1] = b1.float(), b2.float()  # value keeps the circle code
            attn.W_O[h, 0], attn.W_O[h, 1] = b1.float(), b2.float()
    return model


def construct_1head_dag(
    G: nx.DiGraph, d: int | None = None, order: Sequence | None = None
) -> AttnOnlyTransformer:
    """A 1-layer, 1-head model: 100% ESP accuracy on a DAG, and exactly 1/2 + |MAS|/(2m) on any graph.

    Parameters
    ----------
    G : directed graph without self-loops, with at least one arc.
    d : model width (default and minimum n + 4).
    order : a linear order of ``G.nodes``; default a topological order when `G` is a DAG, otherwise the
        order of a maximum acyclic subgraph from :func:`mas_exact`. The accuracy is (m + f) / (2m) where f is
        the number of arcs forward in `order`.

    Examples
    --------
    >>> from iclr26.lab.tasks import transitive_tournament
    >>> from iclr26.mechanisms.esp import accuracy
    >>> accuracy(construct_1head_dag(transitive_tournament(5)), transitive_tournament(5))
    1.0
    """
    check_graph(G)
    nodes = list(G.nodes)
    n = len(nodes)
    d = n + 4 if d is None else d
    check_int(f"d (width of the one-head construction on n={n} vertices)", d, low=n + 4)
    if order is None:
        order = list(nx.topological_sort(G)) if nx.is_directed_acyclic_graph(G) else list(mas_exact(G).order)
    elif sorted(map(str, order)) != sorted(map(str, nodes)) or len(set(order)) != n:
        raise ValueError(f"order must list every vertex of G exactly once, got {list(order)}")
    rank = {v: i for i, v in enumerate(order)}
    basis = mean_zero_basis(d, n + 3)
    codes, b_s1, b_s2, b_p = basis[:n], basis[n], basis[n + 1], basis[n + 2]
    model = _blank_model(n, heads=1, d=d, d_head=d)
    embed = torch.zeros(n + 3, d, dtype=torch.float64)
    embed[:n], embed[n], embed[n + 1] = codes, b_s1, b_s2  # one-hot codes; `#` stays 0
    pos = torch.stack([b_p, -b_p, torch.zeros(d, dtype=torch.float64), -b_p])
    s = math.sqrt(d / 2)  # LN scale of a vertex token at position 1 or 2 (|b_v +- b_p| = sqrt2)
    delta = 1.0 / (4 * n)  # position 1 gets weight e^delta relative to position 2
    gain = 2 * n / s  # vertex value K s = 2n
    ramp = sum(rank[v] * codes[i] for i, v in enumerate(nodes))  # R = sum_w rho(w) b_w
    # out = K sum_w <y, b_w> b_w + gamma <y, b_s2> R with gamma sqrt(d) = 1
    w_o = gain * codes.T @ codes + torch.outer(b_s2, ramp) / math.sqrt(d)
    attn = model.blocks[0].attn
    with torch.no_grad():
        model.W_E.copy_(embed)
        model.positions.W_pos.copy_(pos)
        attn.b_Q[0, 0] = math.sqrt(attn.d_head)
        attn.W_K[0, :, 0] = (
            delta / (2 * s) * b_p
        ).float()  # score = lambda <b_p, y>: +-delta/2 at positions 1, 2
        attn.W_V[0] = torch.eye(d)
        attn.W_O[0] = w_o.float()
    return model
