import pytest
import torch

from iclr26.lab.sampling import dirichlet, standard_gamma


def test_standard_gamma_equals_torch_distributions_from_the_same_state():
    conc = torch.tensor([0.1, 0.5, 2.0, 7.0], dtype=torch.float64)
    torch.manual_seed(5)
    ref = torch.distributions.Gamma(conc, torch.ones_like(conc)).sample()
    torch.manual_seed(5)
    assert torch.equal(standard_gamma(conc), ref)


def test_generator_draws_are_reproducible_and_leave_the_global_state_alone():
    conc = torch.full((100,), 3.0)
    state = torch.random.get_rng_state()
    a = standard_gamma(conc, torch.Generator().manual_seed(1))
    b = standard_gamma(conc, torch.Generator().manual_seed(1))
    assert torch.equal(a, b) and torch.equal(torch.random.get_rng_state(), state)
    assert abs(float(a.mean()) - 3.0) < 0.6  # mean of Gamma(3, 1)


def test_dirichlet_rows_sum_to_one_and_match_the_mean():
    conc = torch.tensor([1.0, 2.0, 5.0], dtype=torch.float64).expand(20000, 3)
    p = dirichlet(conc, torch.Generator().manual_seed(0))
    assert torch.allclose(p.sum(-1), torch.ones(20000, dtype=torch.float64))
    assert torch.allclose(p.mean(0), torch.tensor([0.125, 0.25, 0.625], dtype=torch.float64), atol=0.01)


@pytest.mark.parametrize(
    "bad", [torch.tensor([1.0, -1.0]), torch.tensor([float("nan")]), torch.tensor([1, 2])]
)
def test_bad_concentration_is_refused(bad):
    with pytest.raises((ValueError, TypeError), match="concentration"):
        standard_gamma(bad)
