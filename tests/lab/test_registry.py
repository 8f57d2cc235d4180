"""The component registry: discovery through the catalog, family options, and clear errors."""

import pytest
import torch

from iclr26.lab import registry
from iclr26.lab.registry import Component, components, register


def test_every_family_is_discovered_from_the_papers_components_modules():
    mixers = {c.paper for c in components("mixer")}
    optimizers = {c.paper for c in components("optimizer")}
    verifiers = {c.paper for c in components("verifier")}
    assert {"lab", "hdla", "lla", "swax", "bam"} <= mixers
    assert {"lab", "cosmos", "racs-alice", "specgd"} <= optimizers
    assert {"lab", "cactus", "fly"} <= verifiers


def test_ids_are_unique_and_sorted():
    for family in registry.FAMILIES:
        found = components(family)
        ids = [c.id for c in found]
        assert len(ids) == len(set(ids))
        assert [(c.paper, c.name) for c in found] == sorted((c.paper, c.name) for c in found)


def test_the_experiment_roster_is_the_registered_one():
    from iclr26.attention.hdla.experiment import MIXERS

    registered = {c.name: c.cls for c in components("mixer", paper="hdla")}
    for name, cls in MIXERS.items():
        assert registered[name.replace("_", "-")] is cls


def test_the_verifier_family_options():
    found = {c.id: (c.option("lossless"), c.option("greedy")) for c in components("verifier")}
    assert found["lab-exact-match"] == (True, True) and found["lab-sampling"] == (True, False)
    assert found["fly-exact-sd"] == (True, True) and found["fly-fly"] == (False, True)
    assert found["cactus-sps"] == (True, False) and found["cactus-cactus"] == (False, False)


def test_options_default_to_the_family_and_cases_build():
    adamw = next(c for c in components("optimizer", paper="lab") if c.name == "AdamW")
    assert adamw.option("accepts_complex") is True and adamw.option("refuses_nonfinite") is False
    causal = next(c for c in components("mixer", paper="lab") if c.name == "softmax-causal")
    assert causal.option("causal") is True and causal.option("seq_lens") == ()
    out = causal.case(8)(torch.randn(1, 3, 8))
    assert out.shape == (1, 3, 8)


def test_re_registering_replaces_and_filters_by_paper():
    c = register("mixer", "tmp", torch.nn.Identity, lambda d: torch.nn.Identity(), paper="test-registry")
    again = register("mixer", "tmp", torch.nn.Identity, lambda d: torch.nn.Identity(), paper="test-registry")
    try:
        assert isinstance(c, Component)
        assert components("mixer", paper="test-registry") == (again,)
    finally:
        registry._REGISTRY.pop(("mixer", "test-registry", "tmp"))


@pytest.mark.parametrize(
    ("kwargs", "exc", "words"),
    [
        ({"family": "layer"}, ValueError, ["family", "'layer'", "mixer"]),
        ({"name": ""}, ValueError, ["name", "non-empty"]),
        ({"paper": 3}, ValueError, ["paper", "3"]),
        ({"case": "x"}, TypeError, ["case", "callable"]),
        ({"window": 3}, ValueError, ["window", "causal"]),
    ],
)
def test_bad_registration_names_the_argument(kwargs, exc, words):
    args = {"family": "mixer", "name": "n", "cls": object, "case": lambda d: None, "paper": "p"}
    extra = {k: v for k, v in kwargs.items() if k not in args}
    args.update({k: v for k, v in kwargs.items() if k in args})
    with pytest.raises(exc) as info:
        register(args.pop("family"), args.pop("name"), args.pop("cls"), args.pop("case"), **args, **extra)
    for word in words:
        assert word in str(info.value)


def test_unknown_family_in_components():
    with pytest.raises(ValueError, match="family must be one of"):
        components("attention")
