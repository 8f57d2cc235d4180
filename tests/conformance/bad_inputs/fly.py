"""Bad input to FLy's verification rule, decoding adapter and prompt-lookup helper (arXiv 2511.22972)."""

import torch
from transformers import BertConfig, BertForMaskedLM, GPT2Config, GPT2LMHeadModel

from iclr26.inference.fly import FlyVerifier, NgramDrafter, generate, ngram_propose, top_k_entropy, verify


def _gpt(vocab: int) -> GPT2LMHeadModel:
    torch.manual_seed(0)
    cfg = GPT2Config(
        vocab_size=vocab, n_embd=8, n_layer=1, n_head=2, n_positions=32, bos_token_id=0, eos_token_id=0
    )
    return GPT2LMHeadModel(cfg).eval()


def _bert() -> BertForMaskedLM:
    cfg = BertConfig(
        vocab_size=12, hidden_size=8, num_hidden_layers=1, num_attention_heads=2, intermediate_size=8
    )
    return BertForMaskedLM(cfg).eval()


Z = torch.zeros(1, 8, 5)
D = torch.zeros(1, 8, dtype=torch.long)
P = torch.tensor([[1, 2, 3]])

CASES = [
    (lambda: verify(Z, D, window=1), ValueError, ["window", ">= 2"]),
    (lambda: verify(Z, D, entropy_threshold=-0.1), ValueError, ["entropy_threshold", ">= 0"]),
    (lambda: verify(Z[0], D), ValueError, ["target_logits", "(B, K, V)"]),
    (lambda: verify(Z, D[:, :5]), ValueError, ["draft_ids", "shape"]),
    (lambda: verify(Z, D.float()), TypeError, ["draft_ids", "integer"]),
    (lambda: generate(_gpt(12), _gpt(13), P, 4), ValueError, ["drafter", "vocab"]),
    (lambda: generate(_gpt(12), _gpt(12), P, 4, k=0), ValueError, ["k", ">= 1"]),
    (lambda: generate(_gpt(12), _gpt(12), P, 4, window=1), ValueError, ["window"]),
    (lambda: generate(_gpt(12), _gpt(12), P, 4, entropy_threshold=-1.0), ValueError, ["entropy_threshold"]),
    (lambda: generate(_gpt(12), _gpt(12), P.repeat(2, 1), 4), ValueError, ["input_ids", "batch size"]),
    (lambda: generate(_gpt(12), _bert(), P, 4), ValueError, ["drafter", "causal"]),
    (lambda: ngram_propose([1, 2], max_ngram=0), ValueError, ["max_ngram"]),
    (lambda: top_k_entropy(Z, 0), ValueError, ["k", ">= 1"]),
    (lambda: top_k_entropy(Z.long(), 2), TypeError, ["logits", "floating-point"]),
    (lambda: top_k_entropy(torch.tensor(1.0), 2), ValueError, ["logits", "V >= 1"]),
    (lambda: verify(Z, D + 9), ValueError, ["draft_ids", "[0, 5)"]),
    (lambda: verify(Z, D - 1), ValueError, ["draft_ids", "[0, 5)"]),
    (lambda: verify(torch.full_like(Z, float("nan")), D), ValueError, ["target_logits", "NaN"]),
    (lambda: verify(Z, D, entropy_threshold=float("nan")), ValueError, ["entropy_threshold", "finite"]),
    (lambda: FlyVerifier(entropy_threshold=float("inf")), ValueError, ["entropy_threshold", "finite"]),
    (lambda: NgramDrafter(None), TypeError, ["model", "causal LM"]),
    (lambda: ngram_propose(torch.tensor([1.0, 2.0, 1.0])), TypeError, ["context_ids", "integer"]),
    (lambda: ngram_propose(["a", "b", "a"]), ValueError, ["context_ids[0]", "int"]),
    (lambda: ngram_propose([1, 2], num_pred=0), ValueError, ["num_pred", ">= 1"]),
]
