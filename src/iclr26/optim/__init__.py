"""iclr26.optim: samplers, optimizers and training-dynamics tools (catalog domain ``optimization``).

The common components are importable from here; each paper's package has the full API.
"""

from iclr26.domain_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "plmc": "poisson_midpoint",
        "lmc": "poisson_midpoint",
        "ulmc": "poisson_midpoint",
        "rlmc": "poisson_midpoint",
        "rlmc_underdamped": "poisson_midpoint",
        "FactRFM": "fact_nfa",
        "RFM": "fact_nfa",
        "fact_matrix": "fact_nfa",
        "agop_matrix": "fact_nfa",
        "SoftLabelLogisticRegression": "distillation_memorization",
        "merge_linear": "lewc",
        "calibrate_temperature": "lewc",
        "lmc_curve": "lewc",
        "weight_matching_permute": "lewc",
        "split_param_groups": "iclr26.lab.param_groups",
        "state_numel": "iclr26.lab.param_groups",
        "SpectralGD": "specgd",
        "NormalizedGD": "specgd",
        "make_imbalanced_gmm": "specgd",
        "balanced_metrics": "specgd",
        "COSMOS": "cosmos",
        "newton_schulz5": "cosmos",
        "RACS": "racs_alice",
        "Alice": "racs_alice",
        "SmoothLeaky": "smooth_leaky",
        "RandomizedSmoothLeaky": "smooth_leaky",
        "get_activation": "smooth_leaky",
        "AtteNTSampler": "attent",
        "StepRatio": "attent",
        "LinearRatio": "attent",
        "ConstantRatio": "attent",
        "RandomSubsetSampler": "attent",
        "classification_score": "attent",
        "HybridZOFO": "hybrid_zo_finetune",
        "MeZO": "hybrid_zo_finetune",
        "LoRALinear": "hybrid_zo_finetune",
        "add_lora": "hybrid_zo_finetune",
    },
)
