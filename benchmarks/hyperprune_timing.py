"""HyperPrune: pruning wall time per decoder block vs SparseGPT (and the other baselines), and held-out
perplexity of every method, side by side, same machine, same run, one thread.

The model is the quick budget's cached tiny GPT-2 (4 blocks, d = 128); calibration is 32 windows of 64 tokens of
the training split; perplexity is scored on 48 windows of 128 tokens of the test split. Each method prunes a fresh
copy of the dense model to n:m; HyperPrune and MaskLLM-lite use the quick budget's settings (25% of rows per step,
minibatches of 4 sequences).

    python benchmarks/hyperprune_timing.py [--n 2] [--m 4] [--steps 50] [--hidden 64] [--seed 0]
"""

import argparse
import copy
import math
import time

import torch

from iclr26.inference.hyperprune import (
    HyperPruner,
    magnitude_prune,
    maskllm_lite_prune,
    sparsegpt_prune,
    wanda_prune,
)
from iclr26.inference.hyperprune.experiment import QUICK_LM, _calibration
from iclr26.lab.threads import limited_threads
from iclr26.lab.tinylm import corpus_splits, evaluate_loss, load_or_train


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2)
    parser.add_argument("--m", type=int, default=4)
    parser.add_argument("--steps", type=int, default=50, help="HyperPrune steps per block")
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    n, m = args.n, args.m
    with limited_threads(1):
        lm = load_or_train(QUICK_LM)
        splits = corpus_splits(QUICK_LM)
        calib = _calibration(lm.tokenizer, splits["train"], 32, 64, args.seed)
        blocks = QUICK_LM.n_layers

        def ppl(model: torch.nn.Module) -> float:
            return math.exp(evaluate_loss(model, lm.tokenizer, splits["test"], 128, 48))

        methods = {
            "magnitude": lambda mm: magnitude_prune(mm, n, m),
            "wanda": lambda mm: wanda_prune(mm, calib, n, m),
            "sparsegpt": lambda mm: sparsegpt_prune(mm, calib, n, m),
            "maskllm_lite": lambda mm: maskllm_lite_prune(
                mm, calib, n, m, steps=args.steps * blocks, batch_size=4
            ),
            "hyperprune": lambda mm: HyperPruner(
                mm,
                n,
                m,
                calib,
                hidden=args.hidden,
                steps_per_block=args.steps,
                row_fraction=0.25,
                seed=args.seed,
            ).prune(),
        }
        print(f"tiny GPT-2 ({blocks} blocks, d={QUICK_LM.d_model}), {n}:{m}, one thread")
        print(f"dense perplexity {ppl(lm.model):.2f}")
        print("| method | wall s / block | x SparseGPT | perplexity |")
        print("|---|---:|---:|---:|")
        rows = {}
        for name, fn in methods.items():
            model = copy.deepcopy(lm.model)
            t0 = time.perf_counter()
            fn(model)
            rows[name] = ((time.perf_counter() - t0) / blocks, ppl(model))
        for name, (sec, p) in rows.items():
            print(f"| {name} | {sec:.3f} | {sec / rows['sparsegpt'][0]:.2f} | {p:.2f} |")


if __name__ == "__main__":
    main()
