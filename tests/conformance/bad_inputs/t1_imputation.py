"""Bad input to the T1 imputer, its fit/impute wrapper and the masking schemes (arXiv 2602.21043)."""

import numpy as np
import torch

from iclr26.architectures.t1_imputation import T1, CHeadAttention, T1Config, T1Imputer, block_missing, mcar

_CFG = T1Config(n_heads=4, n_blocks=(1, 1), kernel_large=(5, 3), kernel_small=3)
_NET = T1Imputer(3, 8, _CFG)
_X = torch.randn(2, 8, 3)
_K = torch.ones(2, 8, 3)

CASES = [
    (lambda: _NET(_X, torch.full((2, 8, 3), 0.5)), ValueError, ["mask", "binary"]),
    (lambda: _NET(_X, torch.ones(2, 8, 4)), ValueError, ["mask shape", "does not match"]),
    (lambda: _NET(torch.randn(2, 8, 4), torch.ones(2, 8, 4)), ValueError, ["variables"]),
    (lambda: _NET(torch.randn(2, 9, 3), torch.ones(2, 9, 3)), ValueError, ["seq_len"]),
    (lambda: _NET(torch.randn(8, 3), torch.ones(8, 3)), ValueError, ["shape", "(B, T, M)"]),
    (lambda: T1Imputer(3, 1, _CFG), ValueError, ["seq_len", "downsampling"]),
    (lambda: T1Config(n_blocks=(2, 2), kernel_large=(71,)), ValueError, ["kernel_large", "per stage"]),
    (lambda: T1Config(drop_attn=1.5), ValueError, ["drop_attn"]),
    (lambda: CHeadAttention(4, 4, 3), ValueError, ["kernel_large", "odd"]),
    (lambda: CHeadAttention(4, 5, 3)(torch.randn(2, 3, 5, 8)), ValueError, ["channels"]),
    (lambda: T1(_CFG, steps=1).fit(np.full((2, 8, 3), np.nan)), ValueError, ["all-missing"]),
    (lambda: T1(_CFG, rate=1.0), ValueError, ["rate"]),
    (lambda: mcar((2, 8, 3), 1.2, np.random.default_rng(0)), ValueError, ["rate"]),
    (lambda: block_missing((2, 8, 3), 0.3, 4, 5, np.random.default_rng(0)), ValueError, ["block_width"]),
]
