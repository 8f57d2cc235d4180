"""Study B of the LLA reproduction: trained in-context regression (arXiv 2510.01450).

A prompt (x_1, y_1, ..., x_P, y_P) comes from :func:`iclr26.lab.tasks.regression_prompts` (family
``"piecewise_linear"``: the linear map is redrawn every P / 4 pairs). Two tokenisations (``StudyBConfig.tokens``):

* ``"pair"``: token i is [x_i, x_{i-1}, y_{i-1}] (zeros before the first pair), P tokens; the model's scalar
  read-out at token i predicts y_i. Each token carries one complete (key, value) example and the current query,
  so a single mixer layer can regress y on x in context.
* ``"interleaved"``: tokens [x_i, 0] and [0, y_i], 2 P tokens; the read-out at the x_i token predicts y_i. A
  mixer layer must first copy x_j into the y_j token (a previous-token circuit) before any regression can start.

Either way one linear map embeds the tokens, a :class:`iclr26.lab.transformer.Transformer` whose only difference
is the mixer reads them, and the loss is the MSE on all y predictions (no prediction sees its own y).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from iclr26.attention.lla.layers import gated_deltanet_mixer, linear_attention_mixer, lla_mixer
from iclr26.checks import check_choice
from iclr26.lab.recall_study import seeded_batches
from iclr26.lab.tasks import regression_prompts
from iclr26.lab.training import LoopResult, train_loop
from iclr26.lab.transformer import Transformer, softmax_attention

__all__ = ["MIXERS", "TOKENISATIONS", "InContextRegressor", "StudyBConfig", "train_in_context"]

TOKENISATIONS = ("pair", "interleaved")

MIXERS = {
    "lla": lla_mixer,
    "softmax": softmax_attention,
    "linear_attention": linear_attention_mixer,
    "gated_deltanet": gated_deltanet_mixer,
}


@dataclass(frozen=True)
class StudyBConfig:
    """Model, data and optimiser sizes of Study B."""

    d_x: int = 8
    n_pairs: int = 40
    d_model: int = 64
    n_heads: int = 4
    n_layers: int = 2
    batch: int = 32
    steps: int = 600
    lr: float = 3e-4
    n_eval: int = 256
    eval_every: int = 100
    noise: float = 0.1
    tokens: str = "pair"

    def __post_init__(self) -> None:
        check_choice("tokens", self.tokens, TOKENISATIONS)


class InContextRegressor(nn.Module):
    """Embeds a prompt's (x, y) pairs as tokens (see the module doc) and predicts each y_i with a Transformer."""

    def __init__(self, cfg: StudyBConfig, mixer: str, init_seed: int) -> None:
        super().__init__()
        if mixer not in MIXERS:
            raise ValueError(f"mixer must be one of {tuple(MIXERS)}, got {mixer!r}")
        self.tokens = cfg.tokens
        gen = torch.Generator().manual_seed(init_seed)
        d_in = 2 * cfg.d_x + 1 if cfg.tokens == "pair" else cfg.d_x + 1
        self.embed = nn.Linear(d_in, cfg.d_model)
        with torch.no_grad():
            self.embed.weight.normal_(0.0, d_in**-0.5, generator=gen)
            self.embed.bias.zero_()
        self.body = Transformer(
            vocab_size=1,
            seq_len=cfg.n_pairs if cfg.tokens == "pair" else 2 * cfg.n_pairs,
            d_model=cfg.d_model,
            n_layers=cfg.n_layers,
            n_heads=cfg.n_heads,
            mixer=MIXERS[mixer],
            tie=False,
            init_seed=init_seed + 1,
        )

    def forward(self, xs: Tensor, ys: Tensor) -> Tensor:
        """xs (B, P, d_x), ys (B, P, 1) -> predictions of y (B, P); y_i is predicted before it is seen."""
        b, p, d = xs.shape
        if self.tokens == "pair":
            previous = torch.cat([xs.new_zeros(b, 1, d + 1), torch.cat([xs, ys], -1)[:, :-1]], 1)
            return self.body.forward_embeds(self.embed(torch.cat([xs, previous], -1)))[..., 0]
        tokens = xs.new_zeros(b, p, 2, d + 1)
        tokens[:, :, 0, :d] = xs
        tokens[:, :, 1, d:] = ys
        out = self.body.forward_embeds(self.embed(tokens.reshape(b, 2 * p, d + 1)))
        return out[:, 0::2, 0]


def _prompts(cfg: StudyBConfig, n: int, seed: int) -> tuple[Tensor, Tensor]:
    return regression_prompts(
        n, cfg.n_pairs, cfg.d_x, family="piecewise_linear", noise=cfg.noise, n_segments=4, seed=seed
    )


def train_in_context(
    cfg: StudyBConfig, mixer: str, seed: int, device: str | torch.device = "cpu"
) -> tuple[LoopResult, dict[str, float]]:
    """Train one model on `device`; returns the loop's curves and the final held-out MSE (all pairs, last
    segment, and the zero predictor's MSE on the same prompts as ``"trivial"``).

    The model is initialised and the prompts drawn on the CPU (the same numbers on every device), then moved.
    """
    torch.manual_seed(seed)
    model = InContextRegressor(cfg, mixer, init_seed=1000 * seed + 7).to(device)
    xe, ye = (t.to(device) for t in _prompts(cfg, cfg.n_eval, seed=10_000 + seed))
    last = slice(3 * cfg.n_pairs // 4, None)
    prompts = seeded_batches(lambda s: _prompts(cfg, cfg.batch, seed=s))

    def loss_fn(m: nn.Module, gen: torch.Generator) -> Tensor:
        xs, ys = (t.to(device) for t in prompts(gen))
        return ((m(xs, ys) - ys[..., 0]) ** 2).mean()

    def eval_fn(m: nn.Module) -> dict[str, float]:
        err = (m(xe, ye) - ye[..., 0]) ** 2
        # the zero predictor's MSE (the targets have mean zero): a model that has not learned sits here
        trivial = ye[..., 0] ** 2
        return {
            "mse": float(err.mean()),
            "mse_last": float(err[:, last].mean()),
            "trivial": float(trivial.mean()),
        }

    res = train_loop(
        model,
        loss_fn,
        steps=cfg.steps,
        lr=cfg.lr,
        seed=seed,
        eval_fn=eval_fn,
        eval_every=cfg.eval_every,
        description=f"lla study B {mixer} seed {seed}",
    )
    return res, res.evals[-1]
