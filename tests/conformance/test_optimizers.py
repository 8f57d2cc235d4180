"""Every optimizer in the project passes the same battery (in the spirit of pytorch-optimizer's test suite).

Every ``"optimizer"`` of the component registry (:mod:`iclr26.lab.registry`: the papers' ``components.py`` and
torch's AdamW as the reference) is run; its case ``case(model)`` builds the optimizer over all of ``model``'s parameters (its own routing of non-matrix parameters included). The battery:

- fp32 and bf16: 30 full-batch steps lower a small MLP regression loss;
- ``step(closure)`` evaluates the closure and returns its loss;
- all-zero gradients leave every parameter finite;
- ``state_dict`` saved mid-run and loaded into a fresh optimizer resumes bit-identically;
- parameters whose ``grad`` is None are left untouched;
- sparse gradients and complex parameters raise an error that says so;
- a NaN or infinite gradient is refused before any parameter moves (the project's optimizers; a component
  registered with ``refuses_nonfinite=False`` is a library baseline that steps on regardless).
"""

import copy
import io

import pytest
import torch
from torch import nn

from iclr26.lab.registry import components

CASES = [pytest.param(c.case, c.option("accepts_complex"), id=c.id) for c in components("optimizer")]
STRICT = [pytest.param(c.case, id=c.id) for c in components("optimizer") if c.option("refuses_nonfinite")]


def mlp(dtype: torch.dtype = torch.float32, seed: int = 0) -> nn.Module:
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 4)).to(
        dtype
    )


def problem(dtype: torch.dtype = torch.float32) -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(64, 8, generator=gen)
    y = torch.tanh(x @ torch.randn(8, 4, generator=gen)) + 0.05 * torch.randn(64, 4, generator=gen)
    return x.to(dtype), y.to(dtype)


def as_list(opt):
    return list(opt) if isinstance(opt, (list, tuple)) else [opt]


def loss_of(model, x, y):
    return nn.functional.mse_loss(model(x), y)


def run_steps(model, opts, x, y, n):
    losses = []
    for _ in range(n):
        for o in opts:
            o.zero_grad(set_to_none=True)
        loss = loss_of(model, x, y)
        loss.backward()
        for o in opts:
            o.step()
        losses.append(float(loss.detach()))
    return losses


@pytest.mark.parametrize(("factory", "accepts_complex"), CASES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["fp32", "bf16"])
def test_loss_decreases(factory, accepts_complex, dtype):
    model = mlp(dtype)
    x, y = problem(dtype)
    losses = run_steps(model, as_list(factory(model)), x, y, 30)
    final = float(loss_of(model, x, y).detach())
    assert all(torch.isfinite(p).all() for p in model.parameters())
    assert final < (0.7 if dtype == torch.float32 else 0.9) * losses[0], (losses[0], final)


@pytest.mark.parametrize(("factory", "accepts_complex"), CASES)
def test_closure_is_evaluated_and_its_loss_returned(factory, accepts_complex):
    model = mlp()
    x, y = problem()
    calls = []

    def closure():
        calls.append(1)
        model.zero_grad(set_to_none=True)
        loss = loss_of(model, x, y)
        loss.backward()
        return loss

    opts = as_list(factory(model))
    returned = opts[0].step(closure)
    assert calls, "step(closure) never called the closure"
    assert returned is not None and torch.isfinite(torch.as_tensor(returned)).all()


@pytest.mark.parametrize(("factory", "accepts_complex"), CASES)
def test_zero_gradients_keep_parameters_finite(factory, accepts_complex):
    model = mlp()
    opts = as_list(factory(model))
    for _ in range(3):
        for p in model.parameters():
            p.grad = torch.zeros_like(p)
        for o in opts:
            o.step()
    assert all(torch.isfinite(p).all() for p in model.parameters())


def _snapshot(opts):
    buffers = []
    for o in opts:
        buf = io.BytesIO()
        torch.save(o.state_dict(), buf)
        buffers.append(buf.getvalue())
    return buffers


@pytest.mark.parametrize(("factory", "accepts_complex"), CASES)
def test_state_dict_resume_is_bit_identical(factory, accepts_complex):
    x, y = problem()
    model = mlp()
    opts = as_list(factory(model))
    run_steps(model, opts, x, y, 5)
    weights = copy.deepcopy(model.state_dict())
    saved = _snapshot(opts)
    run_steps(model, opts, x, y, 5)

    resumed = mlp(seed=123)  # different init, overwritten below
    resumed.load_state_dict(weights)
    new_opts = as_list(factory(resumed))
    for o, blob in zip(new_opts, saved):
        o.load_state_dict(torch.load(io.BytesIO(blob), weights_only=False))
    run_steps(resumed, new_opts, x, y, 5)
    for (name, a), b in zip(model.named_parameters(), resumed.parameters()):
        assert torch.equal(a, b), f"parameter {name} differs after resuming from state_dict"


@pytest.mark.parametrize(("factory", "accepts_complex"), CASES)
def test_parameters_without_gradient_are_skipped(factory, accepts_complex):
    model = mlp()
    x, y = problem()
    opts = as_list(factory(model))
    before = [p.detach().clone() for p in model.parameters()]
    loss_of(model, x, y).backward()
    frozen = list(model[0].parameters())
    for p in frozen:
        p.grad = None
    for o in opts:
        o.step()
    for p, b in zip(model[0].parameters(), before):
        assert torch.equal(p, b), "a parameter with grad=None was changed"
    assert any(not torch.equal(p, b) for p, b in zip(model.parameters(), before)), "nothing was updated"


@pytest.mark.parametrize(("factory", "accepts_complex"), CASES)
def test_sparse_gradients_are_rejected(factory, accepts_complex):
    model = mlp()
    x, y = problem()
    opts = as_list(factory(model))
    loss_of(model, x, y).backward()
    for p in model.parameters():
        p.grad = p.grad.to_sparse()
    with pytest.raises((RuntimeError, ValueError, TypeError), match="(?i)sparse"):
        for o in opts:
            o.step()


@pytest.mark.parametrize(("factory", "accepts_complex"), CASES)
def test_complex_parameters_are_rejected(factory, accepts_complex):
    if accepts_complex:
        pytest.skip("this library baseline handles complex parameters by design")
    model = mlp(torch.complex64)
    x = torch.randn(16, 8, dtype=torch.complex64)
    with pytest.raises((RuntimeError, ValueError, TypeError), match="(?i)complex"):
        opts = as_list(factory(model))
        model(x).abs().pow(2).mean().backward()
        for o in opts:
            o.step()


@pytest.mark.parametrize("factory", STRICT)
@pytest.mark.parametrize("bad", [float("nan"), float("inf")], ids=["nan", "inf"])
def test_nonfinite_gradients_are_refused_before_any_update(factory, bad):
    model = mlp()
    x, y = problem()
    opts = as_list(factory(model))
    run_steps(model, opts, x, y, 2)  # optimizer state exists, so a refused step must not corrupt it either
    before = [p.detach().clone() for p in model.parameters()]
    loss_of(model, x, y).backward()
    list(model.parameters())[-1].grad[0] = bad  # the last parameter: earlier ones would already have moved
    with pytest.raises(ValueError, match="NaN or infinite"):
        for o in opts:
            o.step()
    for p, b in zip(model.parameters(), before):
        assert torch.equal(p, b), "a refused step changed a parameter"
    run_steps(model, opts, x, y, 1)  # the optimizer is still usable after the refusal
    assert all(torch.isfinite(p).all() for p in model.parameters())
