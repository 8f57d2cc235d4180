"""iclr26.generative: generative models and black-box design (discrete diffusion samplers, tree-structured search distributions, ...).

The common components are importable from here; each paper's package has the full API.
"""

from iclr26.domain_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "AesEvalHarness": "aeseval",
        "ProceduralDesignGenerator": "aeseval",
        "MetadataOracle": "aeseval",
        "ComicGenerator": "c3b",
        "C3BHarness": "c3b",
        "C3BReport": "c3b",
        "chrf": "c3b",
        "answer_from_scene": "c3b",
        "build_multimodal_attention_mask": "creatidesign",
        "MaskRules": "creatidesign",
        "MultiConditionDiT": "creatidesign",
        "ProceduralDesignDataset": "creatidesign",
        "rectified_flow_loss": "creatidesign",
        "sample_euler": "creatidesign",
        "JunctionTreeObjective": "dado",
        "TreeSearchDistribution": "dado",
        "DADO": "dado",
        "EDA": "dado",
        "smc_sample": "smc_discrete_diffusion",
        "AmortisedProposal": "smc_discrete_diffusion",
        "train_log_variance": "smc_discrete_diffusion",
        "RGVFMLoss": "rg_vfm",
        "RFMLoss": "rg_vfm",
        "ManifoldFlowSampler": "rg_vfm",
        "EndpointMLP": "rg_vfm",
        "AndOrTemplate": "and_or_template",
        "CompositionRenderer": "and_or_template",
        "pursue": "and_or_template",
        "sample_scene": "and_or_template",
        "CoDesignDiffusion": "rna_codesign",
        "TinyFrameTransformer": "rna_codesign",
        "rl_finetune": "rna_codesign",
        "build_coarse_3d": "rna_codesign",
        "igso3_sample": "rna_codesign",
        "zuker_lite": "rna_codesign",
        "self_consistency": "rna_codesign",
        "SiTokenizer": "sitok",
        "EMAVectorQuantizer": "sitok",
        "RectifiedFlowDecoder": "sitok",
        "CTCHead": "sitok",
        "bitrate_bps": "sitok",
        "espeak_corpus": "sitok",
    },
)
