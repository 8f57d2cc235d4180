"""ELM vs its dense model: parameters removed, KV-cache bytes per token, decoding tokens/s (not a test).

Loads (or trains and caches) the quick-budget dense model of the reproduction, replaces its block-influence
group of G layers by a fixed-point layer, trains the ELM briefly (so that early exit behaves as after
training), and measures side by side in one run: non-embedding parameters, KV-cache bytes per token after a
prefill, and greedy ``generate()`` throughput (new tokens / s, median over repeats) for the dense model, the
ELM with early exit (One-Step cache) and the ELM always running G iterations; the repeats of the three are
interleaved. The user's alternative is the dense model itself: with ``--json`` the rows go to
``benchmarks/RESULTS.md`` as dense / ELM (parameters, KV bytes per token, decoding time per token), the parameter
ratio beside the paper's 28% of non-embedding parameters removed. ``--small``: 32 new tokens, 3 repeats, 20 steps.

    python benchmarks/equilibrium_lm_decoding.py [--group-len 4] [--new-tokens 64] [--batch 8] [--repeats 3]
        [--small] [--json PATH]
"""

import argparse

import numpy as np
import torch
from _bench import interleaved, median, row, write_result

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


def decode(model, prompt: torch.Tensor, new_tokens: int) -> None:
    with torch.no_grad():
        model.generate(
            prompt, max_new_tokens=new_tokens, min_new_tokens=new_tokens, do_sample=False, pad_token_id=2
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--group-len", type=int, default=4)
    ap.add_argument("--new-tokens", type=int, default=64)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--train-steps", type=int, default=40)
    ap.add_argument("--small", action="store_true", help="make bench: 32 new tokens, 3 repeats, 20 steps")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    if args.small:
        args.new_tokens, args.repeats, args.train_steps = 32, 3, 20
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
    configs = (("dense", dense, None), ("elm", elm, fp.eps_exit), ("elm (no exit)", elm, None))
    iters: dict[str, list[int]] = {}
    for name, model, eps in configs:  # the mean fixed-point iterations per decoded token, one untimed pass
        fp.eps_exit = eps if model is elm else fp.eps_exit
        log: list[int] = []
        hook = fp.register_forward_hook(
            lambda m, a, o, log=log: log.append(m.last_n_iter) if a[0].shape[1] == 1 else None
        )
        decode(model, prompt, args.new_tokens)
        hook.remove()
        iters[name] = log

    def timed(model, eps):
        def run():
            if model is elm:
                fp.eps_exit = eps
            decode(model, prompt, args.new_tokens)

        return run

    times = interleaved({name: timed(model, eps) for name, model, eps in configs}, args.repeats, warmup=0)
    rows = []
    for name, model, _ in configs:
        tps = prompt.shape[0] * args.new_tokens / median(times[name])
        it = iters[name]
        rows.append(
            (name, non_embedding(model), kv_bytes_per_token(model), tps, np.mean(it) if it else np.nan)
        )
    base_params = rows[0][1]
    print(
        f"dense: {QUICK_LM.n_layers} layers, d = {QUICK_LM.d_model}; group [{start}, {start + args.group_len})"
    )
    print(f"{'model':<15}{'non-emb params':>15}{'removed':>9}{'KV B/token':>12}{'tokens/s':>10}{'iters':>7}")
    for name, params, kv, tps, it in rows:
        removed = 1 - params / base_params
        print(f"{name:<15}{params:>15,}{removed:>9.1%}{kv:>12.0f}{tps:>10.1f}{it:>7.2f}")
    (_, p0, kv0, tps0, _), (_, p1, kv1, tps1, it1), (_, _, _, tps2, _) = rows
    group = f"G = {args.group_len} of {QUICK_LM.n_layers} layers"
    out = [
        row(
            "equilibrium-lm",
            f"claim: non-embedding parameters, {group} ({1 - p1 / p0:.0%} removed)",
            "ELM",
            "dense model",
            p0 / p1,
            paper_value="1.39x (28% removed, G = 8)",
        ),
        row("equilibrium-lm", "KV-cache bytes per token (One-Step cache)", "ELM", "dense model", kv0 / kv1),
        row(
            "equilibrium-lm",
            f"greedy decoding time per token, batch {args.batch} ({it1:.2f} iterations/token)",
            "ELM, early exit",
            "dense model (HF generate)",
            tps1 / tps0,
        ),
        row(
            "equilibrium-lm",
            f"greedy decoding time per token, batch {args.batch}",
            f"ELM, {args.group_len} iterations",
            "dense model (HF generate)",
            tps2 / tps0,
        ),
    ]
    write_result(
        args.json,
        {
            "script": "equilibrium_lm_decoding.py",
            "title": "Equilibrium LM vs its dense model",
            "device": "cpu",
            "settings": {k: v for k, v in vars(args).items() if k != "json"},
            "rows": out,
        },
    )


if __name__ == "__main__":
    main()
