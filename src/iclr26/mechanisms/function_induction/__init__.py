"""Function induction (Ye, Jia, Ren; ICLR 2026, arXiv 2507.09875): off-by-one addition in context.

Contrast prompt pairs and a synthetic corpus of in-context function tasks (:mod:`.tasks`), a GPT trained on it with
off-by-one addition held out (:mod:`.model`), and the paper's circuit tools on the shared hookable transformer
(:mod:`.circuits`): path patching and its all-heads scan, head ablation from the base-task prompt, the naive-prompt
read-out of the parallel pieces, induction scores, and an adapter for TransformerLens models.
"""

from iclr26.mechanisms.function_induction.circuits import (
    TransformerLensAdapter,
    ablate_heads,
    activation_patch,
    bootstrap_relative_effect,
    induction_scores,
    logit_diff,
    naive_logit_effect,
    offset_profile,
    path_patch,
    path_patch_scan,
    random_heads,
    relative_effect,
)
from iclr26.mechanisms.function_induction.model import FIModelConfig, accuracy, build_model, train_model
from iclr26.mechanisms.function_induction.tasks import (
    TASKS,
    Vocab,
    addition_prompts,
    contrast_pairs,
    induction_prompts,
    naive_prompts,
    octal_token,
    sample_training_batch,
    shift_prompts,
    task_pairs,
)

__all__ = [
    "TASKS",
    "FIModelConfig",
    "TransformerLensAdapter",
    "Vocab",
    "ablate_heads",
    "accuracy",
    "activation_patch",
    "addition_prompts",
    "bootstrap_relative_effect",
    "build_model",
    "contrast_pairs",
    "induction_prompts",
    "induction_scores",
    "logit_diff",
    "naive_logit_effect",
    "naive_prompts",
    "octal_token",
    "offset_profile",
    "path_patch",
    "path_patch_scan",
    "random_heads",
    "relative_effect",
    "sample_training_batch",
    "shift_prompts",
    "task_pairs",
    "train_model",
]
