"""Bad input to the SWAX components (arXiv 2509.24552)."""

import torch

from iclr26.attention.swax import (
    MLSTMLayer,
    SlidingWindowAttention,
    StochasticWindowSampler,
    SWAXModel,
    apply_rope,
    mlstm_parallel,
    mlstm_recurrent,
    swax_mixer_factory,
)

_G = torch.zeros(1, 1, 4)
_CACHE = {"k": None, "v": None, "pos": -1}

_Q = torch.zeros(1, 1, 4, 2)

CASES = [
    (lambda: SlidingWindowAttention(8, 2, window=0), ValueError, ["window", ">= 1"]),
    (lambda: SlidingWindowAttention(8, 2, window=2.5), ValueError, ["window", "int"]),
    (lambda: SlidingWindowAttention(8, 2, window=True), ValueError, ["window", "int >= 1"]),
    (lambda: StochasticWindowSampler((16, 128), (float("nan"), 1.0)), ValueError, ["probs[0]", "finite"]),
    (lambda: StochasticWindowSampler((16, 128), (-0.5, 1.5)), ValueError, ["probs[0]", ">= 0"]),
    (lambda: SlidingWindowAttention(8, 2, window=4)(torch.zeros(1, 3, 8), window=-1), ValueError, ["window"]),
    (lambda: StochasticWindowSampler((16, 12.5)), ValueError, ["choices[1]", "int"]),
    (lambda: StochasticWindowSampler((16, 128), (0.5, 0.6)), ValueError, ["probs", "sum to 1"]),
    (lambda: StochasticWindowSampler((16, 128), anneal_last_frac=0.1), ValueError, ["total_steps"]),
    (lambda: SWAXModel(4, 16, 2, pattern="SMX", vocab_size=8), ValueError, ["pattern", "'S'", "'M'"]),
    (lambda: SWAXModel(4, 18, 4, vocab_size=8), ValueError, ["d_model", "divisible", "heads"]),
    (lambda: MLSTMLayer(10, 3), ValueError, ["d_model", "divisible"]),
    (lambda: SlidingWindowAttention(6, 2, window=4), ValueError, ["RoPE", "even", "d_head"]),
    (lambda: apply_rope(torch.zeros(2, 3), torch.arange(2)), ValueError, ["RoPE", "even"]),
    (lambda: mlstm_parallel(_Q, _Q, _Q, torch.zeros(1, 1, 3), torch.zeros(1, 1, 4)), ValueError, ["i_pre"]),
    (
        lambda: SWAXModel(2, 8, 2, vocab_size=5).step(torch.zeros(1, 2, dtype=torch.long), []),
        ValueError,
        ["tokens"],
    ),
    (
        lambda: StochasticWindowSampler((16, 128), anneal_last_frac=float("nan")),
        ValueError,
        ["anneal_last_frac"],
    ),
    (lambda: StochasticWindowSampler((16, 128))(1.0), ValueError, ["step", "int"]),
    (lambda: SlidingWindowAttention(8, 2, 4, rope_theta=float("inf")), ValueError, ["rope_theta", "finite"]),
    (
        lambda: SlidingWindowAttention(8, 2, 4)(torch.ones(1, 3, 8), torch.full((2, 3, 3), float("nan"))),
        ValueError,
        ["score_bias", "NaN"],
    ),
    (
        lambda: SlidingWindowAttention(8, 2, 4)(torch.ones(1, 3, 8), torch.zeros(5, 5)),
        ValueError,
        ["score_bias", "broadcast"],
    ),
    (lambda: SlidingWindowAttention(8, 2, 4).step(torch.ones(1, 8), {}), ValueError, ["cache", "init_cache"]),
    (lambda: SlidingWindowAttention(8, 2, 4).step(torch.ones(1, 8), _CACHE), ValueError, ["pos", ">= 0"]),
    (
        lambda: SlidingWindowAttention(8, 2, 4).step(torch.ones(1, 8).long(), _CACHE),
        TypeError,
        ["x", "floating"],
    ),
    (lambda: apply_rope(torch.randn(3, 4), torch.arange(3), 0.0), ValueError, ["theta", "> 0"]),
    (lambda: apply_rope(torch.randn(3, 4), torch.arange(5)), ValueError, ["positions", "shape (3)"]),
    (lambda: apply_rope(torch.ones(3, 4).long(), torch.arange(3)), TypeError, ["x", "floating-point"]),
    (
        lambda: mlstm_parallel(_Q.long(), _Q.long(), _Q.long(), _G.long(), _G.long()),
        TypeError,
        ["q", "floating"],
    ),
    (
        lambda: mlstm_parallel(_Q[:, :, :0], _Q[:, :, :0], _Q[:, :, :0], _G[..., :0], _G[..., :0]),
        ValueError,
        ["seq >= 1"],
    ),
    (lambda: mlstm_recurrent(_Q, _Q, _Q, _G, _G, state=(1, 2)), ValueError, ["state", "(C, n, m)"]),
    (
        lambda: mlstm_recurrent(
            _Q, _Q, _Q, _G, _G, state=(torch.zeros(1, 1, 3, 3), torch.zeros(1, 1, 2), torch.zeros(1, 1))
        ),
        ValueError,
        ["state C", "shape"],
    ),
    (lambda: MLSTMLayer(8, 2).step(torch.ones(1, 8), (1, 2, 3)), TypeError, ["state C", "torch.Tensor"]),
    (lambda: MLSTMLayer(8, 2, backend="chunked"), ValueError, ["backend"]),
    (
        lambda: SWAXModel(2, 8, 2, vocab_size=5).step(torch.zeros(1, dtype=torch.long), []),
        ValueError,
        ["state", "init_state"],
    ),
    (
        lambda: SWAXModel(2, 8, 2, vocab_size=5).decode(torch.zeros(3).long()),
        ValueError,
        ["tokens", "(batch, seq)"],
    ),
    (
        lambda: SWAXModel(2, 8, 2, window_sampler=lambda s: 2.7, vocab_size=5).sample_window(0),
        ValueError,
        ["window_sampler(0)", "int"],
    ),
    (lambda: swax_mixer_factory(rope_theta=float("nan")), ValueError, ["rope_theta", "finite"]),
    (lambda: swax_mixer_factory(backend="triton"), ValueError, ["backend"]),
]
