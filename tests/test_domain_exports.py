import importlib

import pytest

from iclr26.catalog import DOMAINS


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_domain_export_is_the_paper_packages_object(domain):
    package = importlib.import_module(f"iclr26.{domain}")
    for name in getattr(package, "__all__", []):
        obj = getattr(package, name)
        home = obj.__module__.split(".")[:3]
        paper = importlib.import_module(".".join(home))
        assert getattr(paper, name) is obj and name in paper.__all__


def test_unknown_name_raises_attribute_error():
    import iclr26.optim

    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        iclr26.optim.Nope  # noqa: B018
