"""ESP: one training step of P attention-only transformers, batched, against PyTorch's ensembling recipe (not a test).

The quick budget trains 25 (seed x restart) models per configuration; this measures what its batched step
(:func:`iclr26.mechanisms.esp.batched_esp_logits` over parameters stacked to (P, ...), one foreach Adam) saves
against what a user would write instead:

* PyTorch's own model-ensembling recipe: ``torch.func.stack_module_state`` + ``torch.func.functional_call`` +
  ``torch.vmap`` over the P models (the tutorial "Model ensembling"), trained with one foreach Adam on the
  stacked leaves;
* the loop of P separate models, each with its own ``torch.optim.Adam``.

One step = forward, cross-entropy at the query position, backward, Adam step. Wall time, one thread,
interleaved (each repeat runs the three in turn), median; the ratios are the alternative's time / ours (> 1: ours
is faster). Agreement: the largest logit difference of our batched logits and of the vmap recipe's against the
separate models, at the same parameters.

    python benchmarks/esp_batched_training.py [--P 25] [--d 16] [--heads 2] [--n 8] [--steps 20] [--small]
        [--json PATH]
"""

import argparse
import copy

import torch
from _bench import interleaved, median, row, write_result
from torch.func import functional_call, stack_module_state

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
    parser.add_argument("--steps", type=int, default=20, help="timed steps (repeats) per contender")
    parser.add_argument("--small", action="store_true", help="make bench setting: 10 steps")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    if args.small:
        args.steps = 10
    torch.set_num_threads(1)
    tokens, targets = make_dataset(complete_digraph(args.n))
    vocab = int(tokens.max()) + 1

    def fresh() -> list[AttnOnlyTransformer]:
        return [
            AttnOnlyTransformer(1, args.heads, args.d, vocab, tokens.shape[1], init_seed=s)
            for s in range(args.P)
        ]

    # the loop of separate models
    models = fresh()
    opts = [torch.optim.Adam(m.parameters(), lr=1e-2) for m in models]

    def separate() -> None:
        for m, opt in zip(models, opts):
            loss = torch.nn.functional.cross_entropy(m(tokens)[:, QUERY_POS], targets)
            opt.zero_grad()
            loss.backward()
            opt.step()

    # PyTorch's ensembling recipe: stacked state, functional_call, vmap
    ens_models = fresh()
    ens_params, ens_buffers = stack_module_state(ens_models)
    base = copy.deepcopy(ens_models[0]).to("meta")

    def one(p, b, x):
        return functional_call(base, (p, b), (x,))[:, QUERY_POS]

    vmapped = torch.vmap(one, in_dims=(0, 0, None))
    ens_opt = torch.optim.Adam(ens_params.values(), lr=1e-2, foreach=True)
    batch_targets = targets.expand(args.P, *targets.shape)

    def recipe() -> None:
        logits = vmapped(ens_params, ens_buffers, tokens)  # (P, N, vocab)
        loss = torch.nn.functional.cross_entropy(logits.transpose(1, 2), batch_targets, reduction="none")
        ens_opt.zero_grad()
        loss.mean(dim=1).sum().backward()
        ens_opt.step()

    # ours: the batched ESP forward over stacked parameters
    params = {k: v.detach().requires_grad_() for k, v in stack_models(fresh()).items()}
    batch_tokens = tokens.expand(args.P, *tokens.shape)
    opt = torch.optim.Adam(params.values(), lr=1e-2, foreach=True)

    def batched() -> None:
        logits = batched_esp_logits(params, batch_tokens)
        loss = torch.nn.functional.cross_entropy(logits.transpose(1, 2), batch_targets, reduction="none")
        opt.zero_grad()
        loss.mean(dim=1).sum().backward()
        opt.step()

    with torch.no_grad():  # agreement at the initial parameters (all three start from the same seeds)
        ref = torch.stack([m(tokens)[:, QUERY_POS] for m in models])
        diff_ours = float((batched_esp_logits(params, batch_tokens) - ref).abs().max())
        diff_vmap = float((vmapped(ens_params, ens_buffers, tokens) - ref).abs().max())

    t = interleaved({"ours": batched, "vmap": recipe, "loop": separate}, args.steps)
    ours, vmap_s, loop_s = median(t["ours"]), median(t["vmap"]), median(t["loop"])
    print(
        f"ESP K_{args.n}: {args.P} models, {args.heads} heads, d={args.d}, {tokens.shape[0]} instances, 1 thread"
    )
    print(f"ours (batched_esp_logits):        {1e3 * ours:8.2f} ms/step")
    print(f"torch.func vmap ensemble:         {1e3 * vmap_s:8.2f} ms/step   ratio {vmap_s / ours:.2f}")
    print(f"{args.P} separate models (loop):     {1e3 * loop_s:8.2f} ms/step   ratio {loop_s / ours:.2f}")
    print(f"max |logit difference| vs the separate models: ours {diff_ours:.1e}, vmap recipe {diff_vmap:.1e}")
    what = f"training step of {args.P} 1-layer attention-only models (K_{args.n}, d {args.d})"
    rows = [
        row(
            "esp",
            what,
            "batched_esp_logits, stacked parameters",
            "torch.func stack_module_state + functional_call + vmap (PyTorch's ensembling recipe)",
            vmap_s / ours,
        ),
        row(
            "esp",
            what,
            "batched_esp_logits, stacked parameters",
            f"{args.P} separate models in a loop",
            loop_s / ours,
        ),
    ]
    write_result(
        args.json,
        {
            "script": "esp_batched_training.py",
            "title": "ESP batched training step against torch.func ensembling and separate models",
            "device": "cpu",
            "settings": {k: v for k, v in vars(args).items() if k != "json"},
            "rows": rows,
            "notes": [
                f"ESP logits vs {args.P} separate models at the same parameters: ours max |diff| {diff_ours:.1e}, "
                f"the torch.func vmap recipe {diff_vmap:.1e}."
            ],
        },
    )


if __name__ == "__main__":
    main()
