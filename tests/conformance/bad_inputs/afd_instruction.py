"""Bad input to the AFD-Instruction schema, metrics, templates, tuning and baselines."""

from iclr26.agents.afd_instruction import (
    AntibodyWorld,
    CharTokenizer,
    KmerLogisticRegression,
    Record,
    accuracy,
    answer_logprobs,
    design_request,
    exact_match,
    greedy_generate,
    instruction_tune,
    kmer_counts,
    srr_summary,
    understanding_record,
)
from iclr26.agents.afd_instruction.experiment import AFDConfig
from iclr26.lab.tinygpt import TinyGPT, TinyGPTConfig

_TOK = CharTokenizer()
_M = TinyGPT(TinyGPTConfig(n_layers=1, d_model=16, n_heads=2, seq_len=64), _TOK.vocab_size)
_AB = AntibodyWorld(0).sample(2)
_R = [understanding_record(_AB[0], "species")]


def _rec(value, answer="virus", rid="7amr"):
    return {"pdb_id": rid, "messages": [{"from": "human", "value": value}, {"from": "gpt", "value": answer}]}


CASES = [
    (
        lambda: Record.from_dict(_rec("<H>EVQLB1</H> <L>DIQM</L> q")),
        ValueError,
        ["7amr", "non-amino-acid", "clean=True"],
    ),
    (
        lambda: Record.from_dict(_rec("<H>EVQL</H> q"), requires_chains=True),
        ValueError,
        ["7amr", "missing <L>"],
    ),
    (
        lambda: Record.from_dict(_rec("<H>EVQL</H> <L>DIQM</L> q", answer="  ")),
        ValueError,
        ["7amr", "empty answer"],
    ),
    (lambda: Record.from_dict(_rec("<H>EVQL <L>DIQM</L> q")), ValueError, ["7amr", "unbalanced", "<H>"]),
    (lambda: Record.from_dict({"pdb_id": "", "messages": []}), ValueError, ["pdb_id", "non-empty"]),
    (
        lambda: Record.from_dict({**_rec("q"), "messages": [{"from": "bot", "value": "x"}]}),
        ValueError,
        ["7amr", "role"],
    ),
    (lambda: srr_summary(["A"], []), ValueError, ["same length"]),
    (lambda: exact_match(["a"], ["a", "b"]), ValueError, ["same length", "1", "2"]),
    (lambda: accuracy([], []), ValueError, ["labels", "non-empty"]),
    (lambda: understanding_record(_AB[0], "isotype"), ValueError, ["task", "isotype"]),
    (lambda: design_request("fungus", "yes"), ValueError, ["target", "fungus"]),
    (lambda: instruction_tune(_M, _TOK, _R, loss="prompt"), ValueError, ["loss", "'full'", "'answer'"]),
    (lambda: instruction_tune(_M, _TOK, _R, template="alpaca"), ValueError, ["template", "chatml"]),
    (lambda: instruction_tune(_M, _TOK, [], steps=1), ValueError, ["records", "non-empty"]),
    (lambda: instruction_tune(_M, _TOK, _R, steps=1, lr=0.0), ValueError, ["lr", "> 0"]),
    (lambda: instruction_tune(_M, _TOK, _R, batch_size=0), ValueError, ["batch_size", ">= 1"]),
    (lambda: answer_logprobs(_M, _TOK, ["a"], ["b", "c"]), ValueError, ["same length", "1", "2"]),
    (lambda: greedy_generate(_M, _TOK, ["a"], max_new_tokens=0), ValueError, ["max_new_tokens", ">= 1"]),
    (lambda: kmer_counts(["ACD"], k=7), ValueError, ["k", "<= 4"]),
    (lambda: KmerLogisticRegression().fit(_AB, ["human"]), ValueError, ["equally long", "2", "1"]),
    (lambda: AntibodyWorld(-1), ValueError, ["seed", ">= 0"]),
    (lambda: AntibodyWorld(0).sample(0), ValueError, ["n", ">= 1"]),
    (lambda: AFDConfig(steps=0), ValueError, ["steps", ">= 1"]),
]
