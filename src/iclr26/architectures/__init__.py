"""iclr26.architectures: whole-model designs and what they can learn (selective SSMs, energy-based set transformers, ...).

The common components are importable from here; each paper's package has the full API.
"""

from iclr26.domain_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "SelectiveSSMClassifier": "mamba_theory",
        "make_majority_data": "mamba_theory",
        "make_locality_data": "mamba_theory",
        "train_gd": "mamba_theory",
        "HyperSET": "hyper_set",
        "HyperSETBlock": "hyper_set",
        "FACT": "fact_forecast",
        "FACTAttn": "fact_forecast",
        "DConvBlock2d": "fact_forecast",
        "make_grid_diffusion": "fact_forecast",
        "T1Imputer": "t1_imputation",
        "T1Config": "t1_imputation",
        "CHeadAttention": "t1_imputation",
        "IsoclinicRotation": "aside",
        "isoclinic_rotation_matrix": "aside",
        "ASIDEEmbedding": "aside",
        "ISEEmbedding": "aside",
        "wrap_hf_causal_lm": "aside",
        "sep_score": "aside",
        "PHAT": "phat",
        "PNAttention": "phat",
        "detect_periods": "phat",
    },
)
