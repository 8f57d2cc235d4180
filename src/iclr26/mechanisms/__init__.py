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
        "bma_predict": "icl_causal_structure",
        "DisentangledRPETransformer": "icl_causal_structure",
        "construct_bma_transformer": "icl_causal_structure",
        "ICSSLTransformer": "ic_ssl",
        "RBFAttention": "ic_ssl",
        "PowerIterLayer": "ic_ssl",
        "CoconutWrapper": "continuous_cot",
        "make_prosqa_like": "continuous_cot",
        "track_index_matching_logit": "continuous_cot",
        "LowRankFilter": "icl_info_removal",
        "head_scan": "icl_info_removal",
        "icl_prompts": "icl_info_removal",
        "make_task_family": "icl_info_removal",
        "soft_decode": "soft_thinking",
        "gumbel_weights": "soft_thinking",
        "top1_dominance": "soft_thinking",
        "decompose": "moe_routing_attribution",
        "influence_matrix": "moe_routing_attribution",
        "aarv": "moe_routing_attribution",
        "dale_index": "dale_signed_weights",
        "sign_split_logits": "dale_signed_weights",
        "feature_viz": "dale_signed_weights",
        "make_texture_digits": "dale_signed_weights",
        "MixCausalModel": "entity_binding",
        "make_prompts": "entity_binding",
        "make_counterfactual": "entity_binding",
        "interchange": "entity_binding",
        "LinearAttentionTransformer": "task_vectors",
        "path_patch_scan": "function_induction",
        "naive_logit_effect": "function_induction",
        "ablate_heads": "function_induction",
        "TransformerLensAdapter": "function_induction",
        "contrast_pairs": "function_induction",
        "task_pairs": "function_induction",
        "extract": "task_vectors",
        "inject": "task_vectors",
        "linear_risks": "task_vectors",
    },
)
