"""iclr26.agents: papers of the agents domain.

The common components are importable from here; each paper's package has the full API.
"""

from iclr26.domain_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "Game": "bayesian_persuasion",
        "solve_lp": "bayesian_persuasion",
        "concavify_binary": "bayesian_persuasion",
        "BayesianReceiver": "bayesian_persuasion",
        "QuantalReceiver": "bayesian_persuasion",
        "PartialUpdater": "bayesian_persuasion",
        "PersuasionEnv": "bayesian_persuasion",
        "LLMPersuasionEnv": "bayesian_persuasion",
        "train_sender": "bayesian_persuasion",
        "MASS": "mass",
        "MIPROLike": "mass",
        "SimulatedLLM": "mass",
        "Workflow": "mass",
        "PromptConfig": "mass",
        "Predictor": "mass",
        "Aggregate": "mass",
        "Reflect": "mass",
        "Debate": "mass",
        "Summarize": "mass",
        "Executor": "mass",
        "AntibodyWorld": "afd_instruction",
        "instruction_tune": "afd_instruction",
        "srr_left": "afd_instruction",
        "srr_right": "afd_instruction",
        "srr_best": "afd_instruction",
        "Record": "afd_instruction",
        "read_jsonl": "afd_instruction",
        "write_jsonl": "afd_instruction",
        "KmerLogisticRegression": "afd_instruction",
        "apply_ssot": "ssot",
        "sum_mod": "ssot",
        "rolling_hash_choice": "ssot",
        "prng_band": "ssot",
        "run_pif": "ssot",
        "task_suite": "ssot",
        "TOSSPro": "toss",
        "risk_scores": "toss",
        "select": "toss",
        "masked_sft": "toss",
        "token_losses": "toss",
        "sample_filter_masks": "toss",
    },
)
