"""iclr26.inference: faster or cheaper inference (routing, stitching, caching, speculative decoding, pruning).

The common components are importable from here; each paper's package has the full API.
"""

from iclr26.domain_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "UniRouter": "uniroute",
        "ZeroRouter": "uniroute",
        "KNNRouter": "uniroute",
        "load_routing_table": "uniroute",
        "audc": "uniroute",
        "StitchedNet": "klas",
        "kl_similarity_matrix": "klas",
        "select_stitches": "klas",
        "MeanCacheSampler": "meancache",
        "pssp_schedule": "meancache",
        "ENSLogitsProcessor": "ens_watermark",
        "ENSDetector": "ens_watermark",
        "DiPmarkReweight": "ens_watermark",
        "GammaReweight": "ens_watermark",
        "KGWLogitsProcessor": "ens_watermark",
        "FixedPointBlock": "equilibrium_lm",
        "make_elm": "equilibrium_lm",
        "ELMTrainer": "equilibrium_lm",
        "GPPOSearch": "equilibrium_lm",
        "HyperPruner": "hyperprune",
        "sparsegpt_prune": "hyperprune",
        "wanda_prune": "hyperprune",
        "CactusVerifier": "cactus",
        "cactus_h": "cactus",
        "one_step_output_distribution": "cactus",
        "speculative_generate": "cactus",
        "NgramDrafter": "fly",
        "FlyVerifier": "fly",
        "ngram_propose": "fly",
        "CertaintyForcingTrainer": "dparallel",
        "certainty_forcing_loss": "dparallel",
        "semi_ar_masks": "dparallel",
        "HFMaskedDiffusionAdapter": "dparallel",
    },
)
