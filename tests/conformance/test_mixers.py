"""Every sequence mixer in the project passes the same battery.

Every ``"mixer"`` of the component registry (:mod:`iclr26.lab.registry`: the papers' ``components.py`` and the
lab's reference attention) is run; its case ``case(d_model) -> nn.Module`` maps (batch, seq, d_model) to the same. The battery checks, in float64 unless said otherwise:

- the output shape, for sequence lengths 1, 7, 37 and the component's ``seq_lens`` (lengths that are not
  a multiple of a chunk or window size);
- causality: changing inputs after position t never changes outputs up to t (skipped for ``causal=False``);
- batch independence: one sequence's output does not depend on the other sequences of the batch;
- gradients reach every parameter (finite, not all zero);
- float32 runs too and agrees with float64;
- bad shapes (2-D input, wrong width) raise ValueError.
"""

import pytest
import torch

from iclr26.lab.registry import components

D_MODEL = 16
CASES = [
    pytest.param(c.case, c.option("causal"), tuple(c.option("seq_lens")), id=c.id)
    for c in components("mixer")
]


def build(factory, dtype=torch.float64, seed=0):
    torch.manual_seed(seed)
    return factory(D_MODEL).to(dtype)


def inputs(batch, seq, dtype=torch.float64, seed=1):
    return torch.randn(batch, seq, D_MODEL, generator=torch.Generator().manual_seed(seed)).to(dtype)


@pytest.mark.parametrize(("factory", "causal", "extra"), CASES)
def test_shape_for_awkward_lengths(factory, causal, extra):
    mixer = build(factory)
    for seq in (1, 7, 37, *extra):
        out = mixer(inputs(2, seq))
        assert out.shape == (2, seq, D_MODEL), f"seq={seq}: got {tuple(out.shape)}"
        assert torch.isfinite(out).all(), f"seq={seq}: non-finite output"


@pytest.mark.parametrize(("factory", "causal", "extra"), CASES)
def test_causality(factory, causal, extra):
    if not causal:
        pytest.skip("bidirectional mixer")
    mixer = build(factory)
    x = inputs(2, 37)
    base = mixer(x)
    for t in (0, 5, 20, 36):
        y = x.clone()
        y[:, t + 1 :] = torch.randn_like(y[:, t + 1 :]) * 3
        y[:, t + 1 :] += 1.0
        out = mixer(y)
        torch.testing.assert_close(out[:, : t + 1], base[:, : t + 1], rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize(("factory", "causal", "extra"), CASES)
def test_batch_independence(factory, causal, extra):
    mixer = build(factory)
    x = inputs(3, 19)
    alone = mixer(x[1:2])
    together = mixer(x)
    torch.testing.assert_close(together[1:2], alone, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize(("factory", "causal", "extra"), CASES)
def test_gradients_reach_every_parameter(factory, causal, extra):
    mixer = build(factory)
    x = inputs(2, 23)
    weight = torch.randn(2, 23, D_MODEL, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    (mixer(x) * weight).sum().backward()
    for name, p in mixer.named_parameters():
        if not p.requires_grad:
            continue
        assert p.grad is not None, f"no gradient reaches {name}"
        assert torch.isfinite(p.grad).all(), f"non-finite gradient for {name}"
        assert p.grad.abs().sum() > 0, f"zero gradient for {name}"


@pytest.mark.parametrize(("factory", "causal", "extra"), CASES)
def test_float32_agrees_with_float64(factory, causal, extra):
    m64 = build(factory, torch.float64)
    m32 = build(factory, torch.float32)
    m32.load_state_dict({k: v.float() if v.is_floating_point() else v for k, v in m64.state_dict().items()})
    x = inputs(2, 29)
    out32 = m32(x.float())
    assert out32.dtype == torch.float32
    torch.testing.assert_close(out32.double(), m64(x), rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize(("factory", "causal", "extra"), CASES)
def test_bad_shapes_raise_value_error(factory, causal, extra):
    mixer = build(factory)
    with pytest.raises(ValueError):
        mixer(torch.randn(5, D_MODEL, dtype=torch.float64))
    with pytest.raises(ValueError):
        mixer(torch.randn(2, 5, D_MODEL + 1, dtype=torch.float64))
