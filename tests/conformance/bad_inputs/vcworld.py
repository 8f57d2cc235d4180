"""Bad input to VCWorld's simulator, knowledge graph, retriever, reasoners and parser."""

from iclr26.agents.vcworld import (
    GraphReasoner,
    KnowledgeGraph,
    LLMReasoner,
    Retriever,
    VirtualCell,
    corrupted_kg,
    label_table,
    parse_prediction,
    steady_state,
)
from iclr26.agents.vcworld.experiment import VCWorldConfig

_VC = VirtualCell(30, 6, 2, seed=0)
_TRAIN, _TEST = _VC.split_drugs(0.5)
_KG = corrupted_kg(_VC)
_R = Retriever(_KG, label_table(_VC, _TRAIN), k_cases=2)

CASES = [
    # the brief's: unknown cell line / drug / gene ids, kappa * rho >= 1, corruption rates outside [0, 1]
    (lambda: _R.retrieve(5, 0, 0), ValueError, ["cell_line", "got 5"]),
    (lambda: _R.retrieve(0, 99, 0), ValueError, ["drug", "got 99"]),
    (lambda: _R.retrieve(0, 0, -1), ValueError, ["gene", "got -1"]),
    (lambda: _VC.label(0, 0, 30), ValueError, ["gene", "got 30"]),
    (lambda: steady_state([[0.0, 1.0], [1.0, 0.0]], [1.0, 0.0], 1.0), ValueError, ["kappa * rho", "< 1"]),
    (lambda: corrupted_kg(_VC, remove=1.5), ValueError, ["remove", "[0, 1]"]),
    (lambda: corrupted_kg(_VC, spurious=-0.1), ValueError, ["spurious", "[0, 1]"]),
    (lambda: corrupted_kg(_VC, flip=2.0), ValueError, ["flip", "[0, 1]"]),
    (lambda: VirtualCell(30, 6, 2, edge_drop=1.2), ValueError, ["edge_drop"]),
    (lambda: VirtualCell(30, 6, 2, network="ring"), ValueError, ["network", "scale_free"]),
    (lambda: VirtualCell(2, 6, 2), ValueError, ["n_genes", ">= 4"]),
    (
        lambda: KnowledgeGraph(3, 1).add_edge(("gene", 0), ("gene", 1), "binds"),
        ValueError,
        ["etype", "regulates"],
    ),
    (lambda: KnowledgeGraph(3, 1).add_edge(("gene", 0), ("gene", 1), "regulates", 0.5), ValueError, ["sign"]),
    (lambda: Retriever(_KG, label_table(_VC, _TRAIN), k_cases=-1), ValueError, ["k_cases"]),
    (lambda: Retriever(_KG, {"drug": [0]}), ValueError, ["train_table", "columns"]),
    (lambda: GraphReasoner(w=0.0), ValueError, ["w", "> 0"]),
    (lambda: GraphReasoner(case_weight=1.5), ValueError, ["case_weight"]),
    (lambda: GraphReasoner().predict(_R.retrieve(0, 0, 0), "up"), ValueError, ["task", "de"]),
    (lambda: parse_prediction("reasoning...\nLABEL: 2"), ValueError, ["label", "0 or 1"]),
    (lambda: parse_prediction("LABEL: yes"), ValueError, ["label", "'yes'"]),
    (lambda: parse_prediction("no label here"), ValueError, ["LABEL"]),
    (lambda: parse_prediction("LABEL: 1\nCONFIDENCE: 1.7"), ValueError, ["confidence", "[0, 1]"]),
    (lambda: LLMReasoner("not a backend"), TypeError, ["backend", "LLMBackend"]),
    (lambda: VCWorldConfig(remove=1.2), ValueError, ["remove"]),
]
