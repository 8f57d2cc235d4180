"""iclr26.attention: attention and sequence-mixer layers (linear attention, local attention, positional priors, MoE).

The common components are importable from here; each paper's package has the full API.
"""

from iclr26.domain_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "LocalLinearAttention": "lla",
        "local_linear_attention": "lla",
        "GGDPrior": "bam",
        "bias_attention": "bam",
        "PEAttention": "bam",
        "get_scheme": "bam",
        "HDLAAttention": "hdla",
        "hdla_decay_terms": "hdla",
        "DirichletRouter": "dirmoe",
        "MoEFFN": "dirmoe",
        "moe_ffn": "dirmoe",
        "TopKSoftmaxRouter": "dirmoe",
        "HilbertWindowAttention": "hilbert_attention",
        "HilbertSlideAttention": "hilbert_attention",
        "gilbert_order": "hilbert_attention",
        "local_mask": "hilbert_attention",
        "BlockSparseAttention": "hilbert_attention",
        "SWAXModel": "swax",
        "SlidingWindowAttention": "swax",
        "MLSTMLayer": "swax",
        "StochasticWindowSampler": "swax",
    },
)
