"""Our rank-1 chunk form equals flash-linear-attention's pure-torch DPLR reference on the same inputs.

fla-core's ``fla/ops/generalized_delta_rule/dplr/naive.py`` imports only torch and einops; it is loaded by file
path so that ``fla/__init__.py`` (which needs triton) never runs. Skipped when fla-core is not installed.
"""

import importlib.util
from pathlib import Path

import pytest
import torch

from iclr26.lab.linear_attention import rank_generalized_chunk


def _fla_naive():
    spec = importlib.util.find_spec("fla")
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        path = Path(root) / "ops/generalized_delta_rule/dplr/naive.py"
        if path.is_file():
            mod_spec = importlib.util.spec_from_file_location("fla_dplr_naive_test", path)
            module = importlib.util.module_from_spec(mod_spec)
            try:
                mod_spec.loader.exec_module(module)
            except ImportError:
                return None
            return module
    return None


FLA = _fla_naive()
pytestmark = pytest.mark.skipif(FLA is None, reason="fla-core (with einops) is not installed")


def _inputs(t=32, b=2, h=2, d=8, seed=0):
    gen = torch.Generator().manual_seed(seed)
    n = torch.nn.functional.normalize
    return {
        "q": torch.randn(b, t, h, d, generator=gen, dtype=torch.float32),
        "k": n(torch.randn(b, t, h, d, generator=gen, dtype=torch.float32), dim=-1),
        "v": torch.randn(b, t, h, d, generator=gen, dtype=torch.float32),
        "a": -0.5 * n(torch.randn(b, t, h, d, generator=gen, dtype=torch.float32), dim=-1),
        "b": n(torch.randn(b, t, h, d, generator=gen, dtype=torch.float32), dim=-1),
        "log_f": torch.nn.functional.logsigmoid(
            torch.randn(b, t, h, d, generator=gen, dtype=torch.float32) + 2
        ),
    }


def _fla_args(x):
    # fla: (B, H, T, d); S_t = diag(exp(gk)) S + beta (alpha^T S) + k v^T, q scaled by d_k^-0.5
    return [x[name].transpose(1, 2) for name in ("q", "k", "v", "a", "b", "log_f")]


@pytest.mark.parametrize("form", ["dplr_chunkwise", "dplr_recurrence"])
def test_chunk_form_equals_fla_naive_dplr(form):
    x = _inputs()
    d = x["q"].shape[-1]
    o, s = rank_generalized_chunk(**x, r_ab=1, r_kv=1, scale=d**-0.5, chunk_size=8)
    kw = {"chunk_size": 8} if form == "dplr_chunkwise" else {}
    o_ref, s_ref = getattr(FLA, form)(*_fla_args(x), **kw)
    # fla's naive forms compute in float32 (they call .float()): float32 inputs, float32 tolerances
    torch.testing.assert_close(o, o_ref.transpose(1, 2), rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(s, s_ref, rtol=1e-4, atol=1e-5)


def test_gradients_equal_fla_chunkwise():
    x = _inputs(t=16)
    d = x["q"].shape[-1]
    ours = {k: v.clone().requires_grad_(True) for k, v in x.items()}
    o, s = rank_generalized_chunk(**ours, r_ab=1, r_kv=1, scale=d**-0.5, chunk_size=8)
    (o.square().sum() + s.square().sum()).backward()
    theirs = [t.clone().requires_grad_(True) for t in _fla_args(x)]
    o2, s2 = FLA.dplr_chunkwise(*theirs, chunk_size=8)
    (o2.square().sum() + s2.square().sum()).backward()
    for name, leaf in zip(("q", "k", "v", "a", "b", "log_f"), theirs):
        torch.testing.assert_close(ours[name].grad, leaf.grad.transpose(1, 2), rtol=1e-4, atol=1e-4, msg=name)
