"""Bad input to the TOSS scoring, selection and selective SFT."""

import numpy as np
import torch

from iclr26.agents.toss import (
    TOSSPro,
    World,
    check_same_vocab,
    first_k_masks,
    masked_sft,
    risk_scores,
    select,
    token_losses,
)
from iclr26.agents.toss.experiment import TOSSConfig
from iclr26.agents.toss.world import VOCAB_SIZE
from iclr26.lab.tinylm import TinyLMConfig, build_model

_D = World().custom_set(np.random.default_rng(0), 20)
_S = [torch.zeros(len(e.response)) for e in _D]
_M = build_model(TinyLMConfig(arch="gpt2", d_model=16, n_layers=1, n_heads=2, seq_len=48), VOCAB_SIZE)
_M2 = build_model(TinyLMConfig(arch="gpt2", d_model=16, n_layers=1, n_heads=2, seq_len=48), VOCAB_SIZE + 5)

CASES = [
    (lambda: select(_S, 1.0), ValueError, ["ratio", "[0, 1)"]),
    (lambda: select(_S, -0.1), ValueError, ["ratio"]),
    (lambda: select(_S, 0.2, level="batch"), ValueError, ["level", "global"]),
    (lambda: select(_S[:-1], 0.2, dataset=_D), ValueError, ["scores has 19", "dataset has 20"]),
    (lambda: select([], 0.2), ValueError, ["scores", "non-empty"]),
    (lambda: risk_scores(_S, _S[:-1]), ValueError, ["same number of samples", "20", "19"]),
    (lambda: risk_scores(_S[:1], [torch.zeros(99)]), ValueError, ["sample 0", "shape"]),
    (lambda: check_same_vocab(_M, _M2), ValueError, ["different vocabularies", str(VOCAB_SIZE)]),
    (lambda: TOSSPro(1).masks(_M, _M2, _D, 0.2), ValueError, ["different vocabularies"]),
    (lambda: TOSSPro(-1), ValueError, ["refine_rounds"]),
    (lambda: token_losses(_M, []), ValueError, ["dataset", "non-empty"]),
    (lambda: token_losses(_M, _D, batch_size=0), ValueError, ["batch_size"]),
    (lambda: masked_sft(_M, _D, _S[:3], steps=1), ValueError, ["masks has 3", "dataset has 20"]),
    (lambda: masked_sft(_M, _D, None, steps=-1), ValueError, ["steps"]),
    (lambda: first_k_masks(_D, -1), ValueError, ["k"]),
    (lambda: TOSSConfig(n_data=0), ValueError, ["n_data", ">= 1"]),
]
