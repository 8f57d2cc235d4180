"""Coconut (chain of continuous thought) around a small LM, its stage curriculum, and the paper's measurements.

Coconut (Hao et al., 2024) as used by Zhu et al. (arXiv 2509.23365): after the prompt, the last-layer hidden
state (after the final norm) at the previous position is fed back directly as the next input embedding, C
times; no token is sampled. Training stage k (k = 0..D) shows k thoughts and then ONE supervised token:

* k < D: a node of R_{k+1} (cross-entropy on one node drawn uniformly; ``coconut``), or
  ``-log sum_{v in R_{k+1}} p(v)`` (``coconut_bfs``, the official ``bfs-paper-loss``);
* k = D: ``[A]`` follows the D thoughts and the target is c+.

Measurements on held-out graphs:

* :func:`track_index_matching_logit`: at thought step c the last-layer pre-softmax attention logits from the
  thought's position to each edge's separator token ``|`` (as the official analysis script), summed over
  heads; mu = mean over frontier edges (source in R_c) minus mean over the other edges (source- and
  target-token keys are returned too).
* :func:`thought_superposition`: the thought decoded against the node embeddings (softmax over node tokens);
  mass on R_c and the normalised entropy inside R_c.
* :func:`answer_logit_decomposition`: logit(c+) - logit(c-) at ``[A]`` split exactly (final LayerNorm scale
  frozen at its value) into embedding, MLP and per-key attention terms; mu_A = attention carried from the
  thought positions, mu_R = attention lift from the candidate tokens of the question.

Example
-------
>>> import torch
>>> from iclr26.mechanisms.continuous_cot.reachability import make_prosqa_like
>>> data = make_prosqa_like(2, 12, 3, seed=0)
>>> wrapper = CoconutWrapper(make_model(data, d_model=16, n_heads=2, init_seed=0))
>>> out = wrapper(data.prompt, 3, suffix=torch.full((2, 1), data.token("[A]")))
>>> out.logits.shape, out.thoughts.shape
(torch.Size([2, 58, 17]), torch.Size([2, 3, 16]))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import torch
from torch import Tensor, nn

from iclr26.checks import check_bool, check_float, check_int, check_tensor, check_token_ids
from iclr26.harness.progress import track
from iclr26.lab.transformer import MultiHeadAttention, Transformer
from iclr26.mechanisms.continuous_cot.reachability import ReachabilityData, reshuffle

__all__ = [
    "METHODS",
    "CoconutOutput",
    "CoconutWrapper",
    "IndexMatching",
    "TrainConfig",
    "answer_logit_decomposition",
    "capture_attention",
    "evaluate_accuracy",
    "make_model",
    "stage_loss",
    "thought_superposition",
    "track_index_matching_logit",
    "train",
]

METHODS = ("coconut", "coconut_bfs", "no_cot", "cot")


def make_model(
    data: ReachabilityData,
    d_model: int = 64,
    n_layers: int = 2,
    n_heads: int = 4,
    init_seed: int = 0,
    init_std: float | None = None,
) -> Transformer:
    """A GPT-2-style decoder (pre-LN, learned positions, tied embeddings) sized for `data` with D thoughts.

    init_std : None keeps the lab initialisation (N(0, 1/fan_in)); a float gives GPT-2's: every weight matrix
        (embeddings, positions, attention and MLP) ~ N(0, init_std^2), the residual output projections (W_O,
        MLP W_out) ~ N(0, init_std^2 / (2 n_layers)), biases zero (the official config: 0.02).
    """
    if not isinstance(data, ReachabilityData):
        raise TypeError(f"data must be a ReachabilityData, got {type(data).__name__}")
    check_int("init_seed", init_seed, low=0)
    seq_len = int(data.prompt.shape[1]) + data.depth + 2
    model = Transformer(
        vocab_size=data.vocab_size,
        seq_len=seq_len,
        d_model=d_model,
        n_layers=n_layers,
        n_heads=n_heads,
        init_seed=init_seed,
    )
    if init_std is not None:
        std = check_float("init_std", init_std, low=0.0, low_open=True)
        gen = torch.Generator().manual_seed(init_seed)
        with torch.no_grad():
            for name, p in model.named_parameters():
                parent, _, leaf = name.rpartition(".")
                if parent.rpartition(".")[2].startswith("ln"):
                    continue  # LayerNorms stay at identity
                if leaf.startswith("b_") or leaf == "bias":
                    p.zero_()
                    continue
                out = name.endswith("attn.W_O") or name.endswith("mlp.W_out.weight")
                p.normal_(0.0, std / (2 * n_layers) ** 0.5 if out else std, generator=gen)
    return model


class CoconutOutput(NamedTuple):
    """Logits over the whole sequence (prefix, thoughts, suffix), the thoughts used, and the final hidden states."""

    logits: Tensor
    thoughts: Tensor
    hidden: Tensor


class CoconutWrapper(nn.Module):
    """Continuous-thought forward around an LM exposing ``embed(tokens)`` and ``forward_embeds(embeds)``.

    The LM must also give its last-layer hidden states: either a method ``forward_hidden(embeds) -> (hidden,
    logits)`` or a ``hook_resid_final`` module (as :class:`iclr26.lab.transformer.Transformer` has).
    """

    def __init__(self, model: nn.Module, use_cache: bool = True) -> None:
        super().__init__()
        for name in ("embed", "forward_embeds"):
            if not callable(getattr(model, name, None)):
                raise TypeError(f"model must expose a callable {name!r}, got {type(model).__name__}")
        if not callable(getattr(model, "forward_hidden", None)) and not isinstance(
            getattr(model, "hook_resid_final", None), nn.Module
        ):
            raise TypeError("model must define forward_hidden(embeds) or a hook_resid_final module")
        self.model = model
        self.use_cache = use_cache

    def hidden_and_logits(self, embeds: Tensor) -> tuple[Tensor, Tensor]:
        """Last-layer hidden states (after the final norm) and logits for input embeddings."""
        if callable(getattr(self.model, "forward_hidden", None)):
            return self.model.forward_hidden(embeds)
        box: list[Tensor] = []
        handle = self.model.hook_resid_final.register_forward_hook(lambda m, a, out: box.append(out))
        try:
            logits = self.model.forward_embeds(embeds)
        finally:
            handle.remove()
        return box[0], logits

    def forward(
        self,
        prefix: Tensor,
        n_thoughts: int,
        suffix: Tensor | None = None,
        thoughts: Tensor | None = None,
    ) -> CoconutOutput:
        """Run `n_thoughts` latent steps after `prefix` (batch, L), then the `suffix` tokens (batch, S).

        Thought c is the final hidden state at the position before it (computed by a pass over everything so
        far, so gradients flow through the whole chain). ``thoughts`` (batch, C, d_model) replaces the generated
        thoughts by given vectors (``thoughts = embed(tokens)`` reproduces the discrete forward on those tokens).
        """
        n_thoughts = check_int("n_thoughts", n_thoughts, low=0)
        if not isinstance(prefix, Tensor) or prefix.ndim != 2 or prefix.shape[1] < 1:
            raise ValueError(
                f"prefix must be a (batch, seq >= 1) tensor of token ids, got {getattr(prefix, 'shape', prefix)}"
            )
        check_tensor("prefix", prefix, floating=False)
        vocab = getattr(self.model, "vocab_size", None)
        if isinstance(vocab, int):
            check_token_ids("prefix", prefix, vocab)
        if suffix is not None:
            check_tensor("suffix", suffix, ndim=2, floating=False)
            if isinstance(vocab, int):
                check_token_ids("suffix", suffix, vocab)
        if thoughts is not None:
            check_tensor("thoughts", thoughts, floating=True)
        x = self.model.embed(prefix)
        if thoughts is not None and (
            thoughts.ndim != 3 or tuple(thoughts.shape[:2]) != (x.shape[0], n_thoughts)
        ):
            raise ValueError(
                f"thoughts must have shape (batch={x.shape[0]}, n_thoughts={n_thoughts}, d_model), "
                f"got {tuple(thoughts.shape)}"
            )
        if suffix is not None and suffix.shape[1] > 0:
            if suffix.ndim != 2 or suffix.shape[0] != prefix.shape[0]:
                raise ValueError(
                    f"suffix must have shape (batch={prefix.shape[0]}, S), got {tuple(suffix.shape)}"
                )
        else:
            suffix = None
        if thoughts is None and n_thoughts > 0 and self.use_cache and self._cacheable():
            return self._cached_forward(x, n_thoughts, suffix)
        made = []
        for c in range(n_thoughts):
            t = (
                self.hidden_and_logits(x)[0][:, -1:]
                if thoughts is None
                else thoughts[:, c : c + 1].to(x.dtype)
            )
            made.append(t)
            x = torch.cat([x, t], dim=1)
        if suffix is not None:
            x = torch.cat([x, self.model.embed(suffix)], dim=1)
        hidden, logits = self.hidden_and_logits(x)
        th = torch.cat(made, dim=1) if made else x.new_zeros(x.shape[0], 0, x.shape[-1])
        return CoconutOutput(logits, th, hidden)

    def _cacheable(self) -> bool:
        m = self.model
        return (
            isinstance(m, Transformer)
            and m.causal
            and m.positions.score_bias(1, torch.device("cpu")) is None
            and all(isinstance(b.attn, MultiHeadAttention) for b in m.blocks)
        )

    def _cached_forward(self, x: Tensor, n_thoughts: int, suffix: Tensor | None) -> CoconutOutput:
        """Same computation as the plain loop, but each thought pass reuses the keys/values of earlier tokens."""
        m = self.model
        total = x.shape[1] + n_thoughts + (0 if suffix is None else suffix.shape[1])
        if total > m.seq_len:
            raise ValueError(f"sequence length {total} exceeds seq_len={m.seq_len}")
        pos = m.positions.embed(total, x.device)
        cache: list[tuple[Tensor, Tensor] | None] = [None] * m.n_layers
        hiddens, made = [], []

        def step(inp: Tensor, offset: int) -> Tensor:
            h = inp if pos is None else inp + pos[offset : offset + inp.shape[1]]
            for i, block in enumerate(m.blocks):
                h, cache[i] = _block_with_cache(block, h, cache[i], offset)
            h = m.ln_final(h) if m.ln_final is not None else h
            hiddens.append(h)
            return h

        offset = 0
        h = step(x, offset)
        offset += x.shape[1]
        for _ in range(n_thoughts):
            t = h[:, -1:]
            made.append(t)
            h = step(t, offset)
            offset += 1
        if suffix is not None:
            step(m.embed(suffix), offset)
        hidden = torch.cat(hiddens, dim=1)
        logits = hidden @ m.unembed
        if m.b_U is not None:
            logits = logits + m.b_U
        return CoconutOutput(logits, torch.cat(made, dim=1), hidden)


def _block_with_cache(
    block: nn.Module, x: Tensor, cache: tuple[Tensor, Tensor] | None, offset: int
) -> tuple[Tensor, tuple[Tensor, Tensor]]:
    """One pre-LN block of the lab transformer on new tokens at positions offset.., keys/values cached."""
    attn = block.attn
    h = block.ln1(x)
    q, k, v = (
        attn._project(h, w, b) for w, b in ((attn.W_Q, attn.b_Q), (attn.W_K, attn.b_K), (attn.W_V, attn.b_V))
    )
    if cache is not None:
        k, v = torch.cat([cache[0], k], dim=1), torch.cat([cache[1], v], dim=1)
    scores = torch.einsum("bqhe,bkhe->bhqk", q, k) * attn.d_head**-0.5
    n_q, n_k = q.shape[1], k.shape[1]
    mask = (
        torch.arange(n_k, device=x.device)[None, :] > (offset + torch.arange(n_q, device=x.device))[:, None]
    )
    scores = scores.masked_fill(mask, float("-inf"))
    z = torch.einsum("bhqk,bkhe->bqhe", torch.softmax(scores, dim=-1), v)
    out = torch.einsum("bqhe,hem->bqm", z, attn.W_O)
    x = x + (out if attn.b_O is None else out + attn.b_O)
    if block.mlp is not None:
        x = x + block.mlp(block.ln2(x))
    return x, (k, v)


@dataclass(frozen=True)
class TrainConfig:
    """Training of one method on the reachability task.

    method : ``coconut``, ``coconut_bfs``, ``no_cot`` (answer right after the prompt) or ``cot`` (discrete
        chain: the path nodes r -> ... -> c+ before ``[A]``, teacher forced).
    epochs_per_stage : epochs of stages 0..D (Coconut curriculum); the baselines train for their sum.
    uniform_prob : probability that a sample's stage is drawn uniformly from 0..current stage.
    warmup_steps : linear learning-rate warm-up after each optimizer (re)start (0: constant, the official).
    shuffle_nodes : redraw node ids, edge order and candidate order of every graph at every epoch
        (:func:`~iclr26.mechanisms.continuous_cot.reachability.reshuffle`; the official ``shuffle_nodes``).
    """

    method: str = "coconut"
    epochs_per_stage: tuple[int, ...] = (8, 4, 4, 4)
    uniform_prob: float = 0.1
    lr: float = 1e-3
    weight_decay: float = 0.01
    batch_size: int = 64
    reset_optimizer: bool = True
    shuffle_nodes: bool = True
    warmup_steps: int = 0

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {self.method!r}")
        if not self.epochs_per_stage:
            raise ValueError(f"epochs_per_stage must be non-negative ints, got {self.epochs_per_stage}")
        for i, e in enumerate(self.epochs_per_stage):
            check_int(f"epochs_per_stage[{i}]", e, low=0)
        check_float("uniform_prob", self.uniform_prob, 0.0, 1.0)
        check_float("lr", self.lr, low=0.0, low_open=True)
        check_float("weight_decay", self.weight_decay, low=0.0)
        check_int("batch_size", self.batch_size, low=1)
        check_bool("reset_optimizer", self.reset_optimizer)
        check_bool("shuffle_nodes", self.shuffle_nodes)
        check_int("warmup_steps", self.warmup_steps, low=0)


def _answer_suffix(data: ReachabilityData, n: int) -> Tensor:
    return torch.full((n, 1), data.token("[A]"), dtype=torch.long, device=data.prompt.device)


def _node_logp(logits: Tensor, n_nodes: int) -> Tensor:
    return torch.log_softmax(logits, dim=-1)[:, :n_nodes]


def stage_loss(
    wrapper: CoconutWrapper, data: ReachabilityData, stage: int, method: str, generator: torch.Generator
) -> Tensor:
    """Per-sample loss (n,) of `data` at curriculum `stage` (ignored by the baselines)."""
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
    d, n = data.depth, len(data)
    if method in ("coconut", "coconut_bfs"):
        stage = check_int("stage", stage, low=0)
        if stage > d:
            raise ValueError(f"stage must be <= depth={d}, got {stage}")
        if stage < d:
            logits = wrapper(data.prompt, stage).logits[:, -1]
            mask = data.reach[:, stage + 1]
            logp = _node_logp(logits, data.n_node_tokens)
            if method == "coconut_bfs":
                return -torch.logsumexp(logp.masked_fill(~mask, float("-inf")), dim=-1)
            target = torch.multinomial(mask.float().cpu(), 1, generator=generator).to(logp.device)
            return -logp.gather(1, target)[:, 0]
        logits = wrapper(data.prompt, d, _answer_suffix(data, n)).logits[:, -1]
        return nn.functional.cross_entropy(logits, data.pos, reduction="none")
    if method == "no_cot":
        logits = wrapper(data.prompt, 0, _answer_suffix(data, n)).logits[:, -1]
        return nn.functional.cross_entropy(logits, data.pos, reduction="none")
    if method == "cot":
        chain = data.path[:, 1:d]
        suffix = torch.cat([chain, _answer_suffix(data, n), data.pos[:, None]], dim=1)
        logits = wrapper(data.prompt, 0, suffix).logits
        length = data.prompt.shape[1]
        # positions L-1 .. L+D-3 predict the chain nodes, the [A] position (L+D-1) predicts the answer
        pred = torch.cat(
            [logits[:, length - 1 : length + d - 2], logits[:, length + d - 1 : length + d]], dim=1
        )
        target = torch.cat([chain, data.pos[:, None]], dim=1)
        ce = nn.functional.cross_entropy(pred.reshape(n * d, -1), target.reshape(-1), reduction="none")
        ce = ce.reshape(n, d)
        return ce.mean(dim=1)
    raise ValueError(f"method must be one of {METHODS}, got {method!r}")


def _make_optimizer(model: nn.Module, cfg: TrainConfig) -> torch.optim.Optimizer:
    return torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)


def _set_lr(opt: torch.optim.Optimizer, cfg: TrainConfig, step: int) -> None:
    """Linear warm-up over the first ``cfg.warmup_steps`` steps after each (re)start of the optimizer."""
    scale = 1.0 if cfg.warmup_steps == 0 else min(1.0, (step + 1) / cfg.warmup_steps)
    for group in opt.param_groups:
        group["lr"] = cfg.lr * scale


def train(
    wrapper: CoconutWrapper,
    data: ReachabilityData,
    cfg: TrainConfig,
    seed: int,
    callback: Callable[[int, int], None] | None = None,
) -> list[dict[str, float]]:
    """Train `wrapper.model` on `data` with the stage curriculum (Coconut) or plainly (baselines).

    Returns per-epoch records ``{"epoch", "stage", "loss"}`` (mean training loss of the epoch).
    ``callback(epoch, stage)`` runs after each epoch (epoch counted from 1).
    """
    if not isinstance(wrapper, CoconutWrapper):
        raise TypeError(f"wrapper must be a CoconutWrapper, got {type(wrapper).__name__}")
    if not isinstance(data, ReachabilityData):
        raise TypeError(f"data must be a ReachabilityData, got {type(data).__name__}")
    if not isinstance(cfg, TrainConfig):
        raise TypeError(f"cfg must be a TrainConfig, got {type(cfg).__name__}")
    check_int("seed", seed, low=0)
    if len(cfg.epochs_per_stage) != data.depth + 1 and cfg.method in ("coconut", "coconut_bfs"):
        raise ValueError(
            f"epochs_per_stage needs depth + 1 = {data.depth + 1} entries, got {len(cfg.epochs_per_stage)}"
        )
    gen = torch.Generator().manual_seed(int(seed))
    latent = cfg.method in ("coconut", "coconut_bfs")
    schedule = (
        [s for s, e in enumerate(cfg.epochs_per_stage) for _ in range(int(e))]
        if latent
        else [0] * int(sum(cfg.epochs_per_stage))
    )
    opt = _make_optimizer(wrapper.model, cfg)
    opt_steps = 0
    history: list[dict[str, float]] = []
    wrapper.train()
    prev_stage = 0
    for epoch, stage in enumerate(track(schedule, description=f"{cfg.method} training"), start=1):
        if latent and stage != prev_stage and cfg.reset_optimizer:
            opt = _make_optimizer(wrapper.model, cfg)
            opt_steps = 0
        prev_stage = stage
        epoch_data = reshuffle(data, gen) if cfg.shuffle_nodes else data
        order = torch.randperm(len(data), generator=gen)
        total, count = 0.0, 0
        for start in range(0, len(data), cfg.batch_size):
            idx = order[start : start + cfg.batch_size]
            batch = epoch_data.subset(idx)
            stages = torch.full((len(idx),), stage, dtype=torch.long)
            if latent and stage > 0:
                mix = torch.rand(len(idx), generator=gen) < cfg.uniform_prob
                stages[mix] = torch.randint(0, stage + 1, (int(mix.sum()),), generator=gen)
            loss = torch.zeros(())
            for s in torch.unique(stages).tolist():
                sel = torch.nonzero(stages == s)[:, 0]
                loss = loss + stage_loss(wrapper, batch.subset(sel), int(s), cfg.method, gen).sum()
            loss = loss / len(idx)
            opt.zero_grad()
            loss.backward()
            _set_lr(opt, cfg, opt_steps)
            opt.step()
            opt_steps += 1
            total += loss.item() * len(idx)
            count += len(idx)
        history.append({"epoch": float(epoch), "stage": float(stage), "loss": total / count})
        if callback is not None:
            wrapper.eval()
            callback(epoch, stage)
            wrapper.train()
    wrapper.eval()
    return history


@torch.no_grad()
def evaluate_accuracy(
    wrapper: CoconutWrapper, data: ReachabilityData, method: str, chunk: int = 256
) -> float:
    """Fraction of instances whose greedy answer after ``[A]`` (argmax over the whole vocabulary) is c+."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    correct = 0
    for start in range(0, len(data), chunk):
        b = data.subset(slice(start, start + chunk))
        n, d = len(b), b.depth
        if method in ("coconut", "coconut_bfs"):
            logits = wrapper(b.prompt, d, _answer_suffix(b, n)).logits[:, -1]
        elif method == "no_cot":
            logits = wrapper(b.prompt, 0, _answer_suffix(b, n)).logits[:, -1]
        else:
            seq = b.prompt
            for _ in range(d - 1):
                nxt = wrapper(seq, 0).logits[:, -1].argmax(-1, keepdim=True)
                seq = torch.cat([seq, nxt], dim=1)
            logits = wrapper(seq, 0, _answer_suffix(b, n)).logits[:, -1]
        correct += int((logits.argmax(-1) == b.pos).sum())
    return correct / len(data)


def _modules(model: nn.Module, suffix: str) -> list[nn.Module]:
    return [m for name, m in model.named_modules() if name.endswith(suffix)]


def capture_attention(wrapper: CoconutWrapper, embeds: Tensor) -> dict[str, list[Tensor]]:
    """Per layer: pre-softmax ``scores`` and ``pattern`` (batch, heads, q, k) and ``q``/``k`` (batch, seq, heads,
    d_head) read from the LM's hook points during one forward pass on `embeds`."""
    if not isinstance(embeds, Tensor) or not embeds.is_floating_point() or embeds.ndim != 3:
        raise TypeError(
            f"embeds must be a floating-point (batch, seq, d_model) tensor, got {getattr(embeds, 'dtype', type(embeds).__name__)}"
        )
    names = ("scores", "pattern", "q", "k")
    out: dict[str, list[Tensor]] = {n: [] for n in names}
    handles = []
    for n in names:
        mods = _modules(wrapper.model, f"attn.hook_{n}")
        if not mods:
            raise TypeError(f"the model has no attention hook points 'attn.hook_{n}'")
        for m in mods:
            handles.append(m.register_forward_hook(lambda mod, a, o, n=n: out[n].append(o.detach())))
    try:
        wrapper.model.forward_embeds(embeds)
    finally:
        for h in handles:
            h.remove()
    return out


@dataclass
class IndexMatching:
    """Index-matching logits at one thought step.

    mu : the tracked scalar, as the official analysis script computes it: last layer, pre-softmax logits summed
        over heads, keys at each edge's separator token ``|`` (the edge token that follows ``s t``), frontier
        edges minus the other edges.
    gap_sep, gap_src, gap_tgt : (layers, heads) mean gaps with keys at the edges' separator / source / target
        tokens.
    edge_scores : (n, layers, heads, E) logits from the thought's position to the edges' separator tokens.
    frontier : (n, E) whether each edge's source lies in R_c.
    """

    mu: float
    gap_sep: Tensor
    gap_src: Tensor
    gap_tgt: Tensor
    edge_scores: Tensor
    frontier: Tensor

    def __post_init__(self) -> None:
        check_tensor("gap_sep", self.gap_sep, ndim=2, floating=True)
        for name in ("gap_src", "gap_tgt"):
            check_tensor(name, getattr(self, name), floating=True, shape=tuple(self.gap_sep.shape))
        check_tensor("edge_scores", self.edge_scores, floating=True, shape=(None, *self.gap_sep.shape, None))
        n, *_, n_e = self.edge_scores.shape
        check_tensor("frontier", self.frontier, shape=(n, n_e))
        if self.frontier.dtype != torch.bool:
            raise TypeError(f"frontier must be a bool tensor, got {self.frontier.dtype}")


def _gap(scores: Tensor, mask: Tensor) -> Tensor:
    """Mean over instances of mean(scores | mask) - mean(scores | ~mask); scores (n, L, H, E), mask (n, E)."""
    m = mask[:, None, None, :].to(scores.dtype)
    on = (scores * m).sum(-1) / m.sum(-1).clamp_min(1)
    off = (scores * (1 - m)).sum(-1) / (1 - m).sum(-1).clamp_min(1)
    ok = (mask.any(-1) & (~mask).any(-1)).to(scores.dtype)[:, None, None]
    return ((on - off) * ok).sum(0) / ok.sum().clamp_min(1)


@torch.no_grad()
def track_index_matching_logit(wrapper: CoconutWrapper, batch: ReachabilityData, step: int) -> IndexMatching:
    """Attention logits from the position holding thought `step` (1..D) to the edge tokens, frontier R_step.

    The separator ``|`` follows every edge's ``s t`` in the prompt (``tgt_pos + 1``)."""
    step = check_int("step", step, low=1)
    if step > batch.depth:
        raise ValueError(f"step must be <= depth={batch.depth}, got {step}")
    out = wrapper(batch.prompt, step)
    x = torch.cat([wrapper.model.embed(batch.prompt), out.thoughts], dim=1)
    scores = torch.stack(capture_attention(wrapper, x)["scores"], dim=1)  # (n, L, H, q, k)
    q = batch.prompt.shape[1] + step - 1
    row = scores[:, :, :, q, :]
    n, n_l, n_h, _ = row.shape

    def at(pos: Tensor) -> Tensor:
        return row.gather(3, pos[:, None, None, :].expand(n, n_l, n_h, pos.shape[1]))

    src, tgt, sep = at(batch.src_pos), at(batch.tgt_pos), at(batch.tgt_pos + 1)
    frontier = batch.reach[:, step].gather(1, batch.edges[:, :, 0])
    gap_sep, gap_src, gap_tgt = _gap(sep, frontier), _gap(src, frontier), _gap(tgt, frontier)
    return IndexMatching(float(gap_sep[-1].sum()), gap_sep, gap_src, gap_tgt, sep, frontier)


@torch.no_grad()
def thought_superposition(wrapper: CoconutWrapper, batch: ReachabilityData) -> dict[str, np.ndarray]:
    """Per thought step c = 1..D: mean mass of the decoded thought on R_c and normalised entropy inside R_c.

    The decoded distribution is softmax over node tokens of ``thought . E[node]``.
    """
    d = batch.depth
    out = wrapper(batch.prompt, d)
    nodes = wrapper.model.embed(torch.arange(batch.n_node_tokens, device=batch.prompt.device)[None])[0]
    p = torch.softmax(out.thoughts @ nodes.T, dim=-1)  # (n, D, V_nodes)
    mask = batch.reach[:, 1:].to(p.dtype)
    mass = (p * mask).sum(-1)
    q = p * mask / mass.clamp_min(1e-30)[..., None]
    ent = -(q * torch.log(q.clamp_min(1e-30))).sum(-1)
    size = mask.sum(-1)
    norm = torch.where(size > 1, ent / torch.log(size.clamp_min(2)), torch.full_like(ent, float("nan")))
    return {"mass": mass.mean(0).numpy(), "entropy": np.nanmean(norm.numpy(), axis=0)}


@torch.no_grad()
def answer_logit_decomposition(wrapper: CoconutWrapper, batch: ReachabilityData) -> dict[str, float]:
    """Exact split of logit(c+) - logit(c-) at ``[A]`` (after D thoughts), final-LN scale frozen.

    Keys: ``embed`` (token + position), ``mlp{l}``, ``attn{l}_{group}`` with group in ``thoughts``,
    ``candidates``, ``root`` (the ``[R] r`` tokens), ``answer`` (``[A]`` itself), ``edges`` (the rest of the
    prompt), ``bias`` (attention output biases and the final-LN bias); ``mu_A`` and ``mu_R`` sum the thought and
    candidate attention terms over layers; ``total`` is the logit difference itself. Means over instances.
    """
    model = wrapper.model
    if not isinstance(model, Transformer):
        raise TypeError("answer_logit_decomposition needs an iclr26.lab.transformer.Transformer")
    n, d, length = len(batch), batch.depth, batch.prompt.shape[1]
    out = wrapper(batch.prompt, d)
    x = torch.cat([model.embed(batch.prompt), out.thoughts, model.embed(_answer_suffix(batch, n))], dim=1)
    cache: dict[str, Tensor] = {}
    names = ["hook_embed", "hook_pos_embed", "hook_resid_final"]
    for i in range(model.n_layers):
        names += [f"blocks.{i}.attn.hook_pattern", f"blocks.{i}.attn.hook_v", f"blocks.{i}.hook_resid_post"]
        if model.blocks[i].mlp is not None:
            names.append(f"blocks.{i}.hook_mlp_out")
    fns = {nm: (lambda act, hp, nm=nm: cache.__setitem__(nm, act)) for nm in names}
    with model.hooks(fns):
        logits = model.forward_embeds(x)
    q = x.shape[1] - 1
    direction = (model.W_E[batch.pos] - model.W_E[batch.neg]).detach()  # (n, d_model), tied unembedding
    resid = cache[f"blocks.{model.n_layers - 1}.hook_resid_post"][:, q]
    ln = model.ln_final
    scale = torch.sqrt(resid.var(-1, unbiased=False) + ln.eps)

    def proj(y: Tensor) -> Tensor:  # y (n, d_model) -> (n,)
        y = y - y.mean(-1, keepdim=True)
        return ((y / scale[:, None]) * ln.weight * direction).sum(-1)

    groups = {
        "edges": torch.arange(0, length - 5),
        "candidates": torch.arange(length - 5, length - 2),  # [Q] c_1 c_2
        "root": torch.arange(length - 2, length),
        "thoughts": torch.arange(length, length + d),
        "answer": torch.tensor([q]),
    }
    res: dict[str, Tensor] = {"embed": proj(cache["hook_embed"][:, q] + cache["hook_pos_embed"][q])}
    bias = (ln.bias * direction).sum(-1) if ln.bias is not None else torch.zeros(n)
    for i, block in enumerate(model.blocks):
        pat = cache[f"blocks.{i}.attn.hook_pattern"][:, :, q]  # (n, H, k)
        v = cache[f"blocks.{i}.attn.hook_v"]  # (n, k, H, e)
        per_key = torch.einsum("nhk,nkhe,hem->nkm", pat, v, block.attn.W_O)
        for g, ks in groups.items():
            res[f"attn{i}_{g}"] = proj(per_key[:, ks].sum(1))
        if block.attn.b_O is not None:
            bias = bias + proj(block.attn.b_O.expand(n, -1))
        if block.mlp is not None:
            res[f"mlp{i}"] = proj(cache[f"blocks.{i}.hook_mlp_out"][:, q])
    res["bias"] = bias
    total = (
        logits[:, q].gather(1, batch.pos[:, None])[:, 0] - logits[:, q].gather(1, batch.neg[:, None])[:, 0]
    )
    summary = {k: float(v.mean()) for k, v in res.items()}
    summary["mu_A"] = sum(summary[f"attn{i}_thoughts"] for i in range(model.n_layers))
    summary["mu_R"] = sum(summary[f"attn{i}_candidates"] for i in range(model.n_layers))
    summary["total"] = float(total.mean())
    summary["sum_of_terms"] = float(sum(v for v in res.values()).mean())
    return summary
