"""ENS watermark: tokens needed for detection at 1% FPR against the number of keys n, and detector throughput.

For each n, the reproduction's tiny Llama (cached by config hash; trained on first use, about a minute) samples
`--texts` continuations of `--new-tokens` tokens with ENS_n (DiPmark, alpha 0.45, h = 1), temperature 1, and the
same number without a watermark. Per text we find the first T at which z > 2.326 (the 1% FPR threshold) and at
which z > 4; the table gives their medians (texts never crossing count as new_tokens + 1), the TPR at 1% FPR at
T = 25 / 50 and the FPR measured on the plain texts. Throughput: tokens scored per second by ``ENSDetector``
with a cold permutation cache (every (key, context) seen for the first time) and a warm one, and the cost of
the logits processor inside ``generate``. Single thread.

    python benchmarks/ens_watermark_detection.py [--texts 60] [--new-tokens 100] [--keys 1 2 3 4 6]
"""

import argparse
import hashlib
import time

import numpy as np
import torch

from iclr26.inference.ens_watermark import ENSDetector, ENSLogitsProcessor
from iclr26.inference.ens_watermark.experiment import (
    _QUICK_LM,
    FPR_Z,
    ENSConfig,
    _generate,
    _prompts,
    _z_paths,
)
from iclr26.lab.tinylm import load_or_train


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=60)
    parser.add_argument("--new-tokens", type=int, default=100)
    parser.add_argument("--keys", type=int, nargs="+", default=[1, 2, 3, 4, 6])
    args = parser.parse_args()
    torch.set_num_threads(1)
    lm = load_or_train(_QUICK_LM)
    cfg = ENSConfig(lm=_QUICK_LM, n_prompts=args.texts, new_tokens=args.new_tokens, batch_size=args.texts)
    vocab = int(lm.model.config.vocab_size)
    prompts = _prompts(cfg, lm, vocab, np.random.default_rng(0))
    start, length = cfg.prompt_len, cfg.new_tokens
    secrets = [hashlib.sha256(f"benchmark-key-{j}".encode()).digest() for j in range(max(args.keys))]
    t0 = time.perf_counter()
    plain = _generate(lm.model, prompts, cfg, [], 1)
    plain_s = time.perf_counter() - t0
    print(
        f"model: {_QUICK_LM.d_model}-wide {_QUICK_LM.n_layers}-layer Llama, V = {vocab}; {args.texts} texts x "
        f"{length} tokens; plain generation {args.texts * length / plain_s:.0f} tok/s"
    )
    print(
        "n | median T (z>2.326) | median T (z>4) | TPR@1%FPR T=25 | T=50 | FPR (plain) | gen tok/s | "
        "detect tok/s cold | warm"
    )
    for n in args.keys:
        proc = ENSLogitsProcessor(secrets[:n], vocab_size=vocab)
        t0 = time.perf_counter()
        wm = _generate(lm.model, prompts, cfg, [proc], 2)
        gen_rate = args.texts * length / (time.perf_counter() - t0)
        det = ENSDetector(secrets[:n], vocab, cache_size=0)
        t0 = time.perf_counter()
        z = _z_paths(det, wm, start, length)
        cold = args.texts * length / (time.perf_counter() - t0)
        warm_det = ENSDetector(secrets[:n], vocab, cache_size=1_000_000)
        _z_paths(warm_det, wm, start, length)
        t0 = time.perf_counter()
        _z_paths(warm_det, wm, start, length)
        warm = args.texts * length / (time.perf_counter() - t0)
        z0 = _z_paths(det, plain, start, length)
        first = [np.where(h.any(1), h.argmax(1) + 1, length + 1) for h in (z > FPR_Z, z > 4.0)]
        print(
            f"{n} | {np.median(first[0]):.1f} | {np.median(first[1]):.1f} | {(z[:, 24] > FPR_Z).mean():.2f} | "
            f"{(z[:, 49] > FPR_Z).mean():.2f} | {(z0[:, -1] > FPR_Z).mean():.3f} | {gen_rate:.0f} | "
            f"{cold:.0f} | {warm:.0f}"
        )


if __name__ == "__main__":
    main()
