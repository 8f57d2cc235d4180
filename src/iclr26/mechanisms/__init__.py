"""iclr26.mechanisms: what trained models compute and how (circuits, in-context learning, interpretability).

The common components are importable from here; each paper's package has the full API.
"""

from iclr26.domain_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "mas_exact": "esp",
        "construct_1head_dag": "esp",
        "construct_2head": "esp",
    },
)
