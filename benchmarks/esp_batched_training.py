"""ESP: one batched training step of P parameter sets vs P separate AttnOnlyTransformer steps, same run.

The quick budget trains 25 (seed x restart) models per configuration; this measures why they are batched.
Reports ms per step for both, the ratio, and the largest logit difference between the two paths.

    python benchmarks/esp_batched_training.py [--P 25] [--d 16] [--heads 2] [--n 8] [--steps 20]
"""

import argparse
import time

import torch

from iclr26.lab.tasks import complete_digraph
from iclr26.lab.transformer import AttnOnlyTransformer
from iclr26.mechanisms.esp import batched_esp_logits, make_dataset, stack_models
from iclr26.mechanisms.esp.task import QUERY_POS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--P", type=int, default=25)
    parser.add_argument("--d", type=int, default=16)
    parser.add_argument("--heads", type=int, default=2)
    parser.add_argument("--n", type=int, default=8)
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    torch.set_num_threads(1)
    tokens, targets = make_dataset(complete_digraph(args.n))
    vocab = int(tokens.max()) + 1
    models = [
        AttnOnlyTransformer(1, args.heads, args.d, vocab, tokens.shape[1], init_seed=s) for s in range(args.P)
    ]

    opts = [torch.optim.Adam(m.parameters(), lr=1e-2) for m in models]
    t0 = time.perf_counter()
    for _ in range(args.steps):
        for m, opt in zip(models, opts):
            loss = torch.nn.functional.cross_entropy(m(tokens)[:, QUERY_POS], targets)
            opt.zero_grad()
            loss.backward()
            opt.step()
    separate = 1e3 * (time.perf_counter() - t0) / args.steps

    params = {k: v.detach().requires_grad_() for k, v in stack_models(models).items()}
    batch_tokens = tokens.expand(args.P, *tokens.shape)
    batch_targets = targets.expand(args.P, *targets.shape)
    with torch.no_grad():
        ref = torch.stack([m(tokens)[:, QUERY_POS] for m in models])
        diff = float((batched_esp_logits(params, batch_tokens) - ref).abs().max())
    opt = torch.optim.Adam(params.values(), lr=1e-2, foreach=True)
    t0 = time.perf_counter()
    for _ in range(args.steps):
        logits = batched_esp_logits(params, batch_tokens)
        loss = torch.nn.functional.cross_entropy(logits.transpose(1, 2), batch_targets, reduction="none")
        opt.zero_grad()
        loss.mean(dim=1).sum().backward()
        opt.step()
    batched = 1e3 * (time.perf_counter() - t0) / args.steps

    print(
        f"ESP K_{args.n}: {args.P} models, {args.heads} heads, d={args.d}, {tokens.shape[0]} instances, 1 thread"
    )
    print(f"separate models: {separate:8.2f} ms/step")
    print(f"batched:         {batched:8.2f} ms/step   ({separate / batched:.1f}x faster)")
    print(f"max |logit difference| between the paths: {diff:.2e}")


if __name__ == "__main__":
    main()
