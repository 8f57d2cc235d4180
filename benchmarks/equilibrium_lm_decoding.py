"""ELM vs its dense model: parameters removed, KV-cache bytes per token, decoding tokens/s (not a test).

Loads (or trains and caches) the quick-budget dense model of the reproduction, replaces its block-influence
group of G layers by a fixed-point layer, trains the ELM briefly (so that early exit behaves as after
training), and measures side by side in one run: non-embedding parameters, KV-cache bytes per token after a
prefill, and greedy ``generate()`` throughput (new tokens / s, median over repeats) for the dense model, the
ELM with early exit (One-Step cache) and the ELM always running G iterations.

    python benchmarks/equilibrium_lm_decoding.py [--group-len 4] [--new-tokens 64] [--batch 8] [--repeats 3]
"""

import argparse
import time

import numpy as np
import torch

from iclr26.inference.equilibrium_lm import (
    ELMTrainer,
    block_influence,
    count_parameters,
    find_fixed_point_block,
    kv_bytes_per_token,
    make_elm,
)
from iclr26.inference.equilibrium_lm.experiment import QUICK_LM
from iclr26.lab.tinylm import corpus_splits, load_or_train
from iclr26.lab.tinylm.evaluation import encode_text


def non_embedding(model: torch.nn.Module) -> int:
    return count_parameters(model) - count_parameters(model.get_input_embeddings())


def tokens_per_s(model, prompt: torch.Tensor, new_tokens: int, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        model.generate(
            prompt, max_new_tokens=new_tokens, min_new_tokens=new_tokens, do_sample=False, pad_token_id=2
        )
        times.append(time.perf_counter() - t0)
    return prompt.shape[0] * new_tokens / float(np.median(times))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--group-len", type=int, default=4)
    ap.add_argument("--new-tokens", type=int, default=64)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--train-steps", type=int, default=40)
    args = ap.parse_args()
    torch.set_num_threads(1)
    lm = load_or_train(QUICK_LM)
    dense = lm.model.eval()
    ids = encode_text(lm.tokenizer, corpus_splits(QUICK_LM)["train"])
    gen = torch.Generator().manual_seed(0)
    calib = ids[torch.randint(0, len(ids) - 64, (16, 1), generator=gen) + torch.arange(64)]
    start = int(torch.argmin(block_influence(dense, calib, args.group_len)))
    elm = make_elm(dense, start, args.group_len)
    trainer = ELMTrainer(elm, dense, steps=args.train_steps, lr=2e-3, seed=0)
    trainer.train(ids, 16, 64)
    trainer.close()
    fp = find_fixed_point_block(elm)
    prompt = ids[:16].repeat(args.batch, 1)
    rows = []
    for name, model, eps in (("dense", dense, None), ("elm", elm, fp.eps_exit), ("elm (no exit)", elm, None)):
        if model is elm:
            fp.eps_exit = eps
        iters: list[int] = []
        hook = fp.register_forward_hook(
            lambda m, a, o, log=iters: log.append(m.last_n_iter) if a[0].shape[1] == 1 else None
        )
        with torch.no_grad():
            tps = tokens_per_s(model, prompt, args.new_tokens, args.repeats)
        hook.remove()
        rows.append(
            (name, non_embedding(model), kv_bytes_per_token(model), tps, np.mean(iters) if iters else np.nan)
        )
    base_params = rows[0][1]
    print(
        f"dense: {QUICK_LM.n_layers} layers, d = {QUICK_LM.d_model}; group [{start}, {start + args.group_len})"
    )
    print(f"{'model':<15}{'non-emb params':>15}{'removed':>9}{'KV B/token':>12}{'tokens/s':>10}{'iters':>7}")
    for name, params, kv, tps, it in rows:
        removed = 1 - params / base_params
        print(f"{name:<15}{params:>15,}{removed:>9.1%}{kv:>12.0f}{tps:>10.1f}{it:>7.2f}")


if __name__ == "__main__":
    main()
