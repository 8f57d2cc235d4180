"""FlyThinker: a parallel Reasoner whose per-token latent is fused into the Generator's input embeddings.

Paper: "Think-While-Generating: On-the-Fly Reasoning for Personalized Long-Form Generation" (Wang et al.,
ICLR 2026, arXiv 2512.06690). Official code: wcb0219-sketch/FlyThinker (``Train/flythinker.py``).

For a sequence z_1..z_T the Reasoner R (teacher-forced, one parallel pass) gives last-layer states h_t; each is
norm-matched to the Generator's embedding scale, h^_t = h_t * m / sg(||h_t||), m = sg(mean_v ||E_G[v]||), and
added to the *next* input embedding of the Generator G: e'_1 = E_G[z_1], e'_{t+1} = E_G[z_{t+1}] + lam * h^_t
(on the first d_R coordinates when d_R < d_G). G reads e' and is trained with next-token cross-entropy on the
response tokens (labels -100 elsewhere); both models receive gradients. R never reads its own latents, so at
decoding time R's step for token z_t and G's step for z_t (which needs only h^_{t-1}) run concurrently.

Any model works that exposes ``get_input_embeddings()``, accepts ``input_ids`` or ``inputs_embeds`` with
``past_key_values``/``use_cache``/``output_hidden_states`` and returns ``logits``, ``hidden_states`` (last entry =
last layer) and ``past_key_values``: Hugging Face causal LMs and :class:`iclr26.agents.flythinker.tinygpt.GPT`.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from iclr26.checks import check_bool, check_float, check_int, check_logits, check_tensor, check_token_ids

__all__ = [
    "FlyThinker",
    "FlyThinkerOutput",
    "GenerationOutput",
    "TopP",
    "fuse",
    "generate",
    "greedy",
    "max_len_of",
    "norm_match",
    "response_labels",
    "shifted_loss",
    "vocab_of",
]


def vocab_of(model: nn.Module) -> int:
    """Number of rows of the model's input embedding table (the tokenizer size it was built for)."""
    return int(model.get_input_embeddings().weight.shape[0])


def hidden_of(model: nn.Module) -> int:
    return int(model.get_input_embeddings().weight.shape[1])


def max_len_of(model: nn.Module) -> int | None:
    """The longest sequence the model's positions allow (``config.max_position_embeddings``), None if unknown."""
    value = getattr(getattr(model, "config", None), "max_position_embeddings", None)
    return int(value) if value is not None else None


def norm_match(h: torch.Tensor, embedding_weight: torch.Tensor) -> torch.Tensor:
    """``h * m / ||h||`` per position, m = mean row norm of `embedding_weight`; both norms are detached.

    The result has norm m exactly; its gradient with respect to ``h`` is the upstream gradient times
    ``m / ||h||`` (no term through the normaliser), as in the official ``Train/flythinker.py``.
    """
    check_tensor("h", h, floating=True)
    check_tensor("embedding_weight", embedding_weight, ndim=2, floating=True)
    m = embedding_weight.norm(dim=-1).mean().detach()
    return h * (m.to(h.dtype) / h.norm(dim=-1, keepdim=True).detach())


def fuse(embeds: torch.Tensor, latents: torch.Tensor, lam: float) -> torch.Tensor:
    """``e'_1 = e_1``, ``e'_{t+1} = e_{t+1} + lam * latents_t`` on the first ``latents.shape[-1]`` coordinates.

    `embeds` is (B, T, d_G); `latents` is (B, T-1, d_R) or (B, T, d_R) (the last latent is then unused), d_R <= d_G.
    """
    check_tensor("embeds", embeds, ndim=3, floating=True)
    check_tensor("latents", latents, ndim=3, floating=True)
    b, t, d_g = embeds.shape
    d_r = latents.shape[-1]
    if d_r > d_g:
        raise ValueError(f"latents' width d_R = {d_r} must be <= the Generator's width d_G = {d_g}")
    if latents.shape[0] != b or latents.shape[1] not in (t - 1, t):
        raise ValueError(f"latents must have shape ({b}, {t - 1} or {t}, d_R), got {tuple(latents.shape)}")
    add = latents[:, : t - 1] * lam
    if d_r < d_g:
        add = F.pad(add, (0, d_g - d_r))
    return torch.cat([embeds[:, :1], embeds[:, 1:] + add], dim=1)


def response_labels(input_ids: torch.Tensor, prompt_len: int, ignore_index: int = -100) -> torch.Tensor:
    """Labels aligned with `input_ids` (Hugging Face convention, shifted inside the loss): -100 on the prompt."""
    check_tensor("input_ids", input_ids, ndim=2, floating=False)
    check_int("prompt_len", prompt_len, low=0, high=input_ids.shape[1])
    labels = input_ids.clone()
    labels[:, :prompt_len] = ignore_index
    return labels


def shifted_loss(logits: torch.Tensor, labels: torch.Tensor, reduction: str = "mean") -> torch.Tensor:
    """Next-token cross-entropy: position t's logits predict ``labels[:, t+1]``; -100 labels are skipped.

    ``reduction="none"`` gives the (B, T-1) per-position losses (0 where ignored).
    """
    check_tensor("logits", logits, ndim=3, floating=True)
    check_tensor("labels", labels, ndim=2, floating=False, shape=tuple(logits.shape[:2]))
    V = logits.shape[-1]
    bad = (labels != -100) & ((labels < 0) | (labels >= V))
    if bool(bad.any()):
        raise ValueError(
            f"labels must be token ids in [0, {V}) or -100 (ignored), got {labels[bad][0].item()}"
        )
    lg = logits[:, :-1].float() if logits.dtype not in (torch.float32, torch.float64) else logits[:, :-1]
    tgt = labels[:, 1:]
    per = F.cross_entropy(lg.reshape(-1, lg.shape[-1]), tgt.reshape(-1), ignore_index=-100, reduction="none")
    per = per.view(tgt.shape)
    if reduction == "none":
        return per
    n = (tgt != -100).sum()
    return per.sum() / n.clamp(min=1)


@dataclass
class FlyThinkerOutput:
    """``loss`` (None without labels), ``logits`` (B, T, V) and the fused latents h^ (B, T, d_R)."""

    loss: torch.Tensor | None
    logits: torch.Tensor
    latents: torch.Tensor


def check_pair(generator: nn.Module, reasoner: nn.Module) -> None:
    for name, m in (("generator", generator), ("reasoner", reasoner)):
        if not isinstance(m, nn.Module) or not hasattr(m, "get_input_embeddings"):
            raise TypeError(
                f"{name} must be an nn.Module with get_input_embeddings(), got {type(m).__name__}"
            )
    vg, vr = vocab_of(generator), vocab_of(reasoner)
    if vg != vr:
        raise ValueError(
            f"generator and reasoner must share one tokenizer: vocabularies differ (generator {vg}, reasoner {vr})"
        )
    dg, dr = hidden_of(generator), hidden_of(reasoner)
    if dr > dg:
        raise ValueError(
            f"reasoner hidden size d_R = {dr} must be <= generator hidden size d_G = {dg} "
            "(the latent is added to the first d_R coordinates)"
        )


def check_ids(input_ids, attention_mask, vocab: int, max_len: int | None, extra: int = 0):
    check_tensor("input_ids", input_ids, ndim=2, floating=False)
    check_token_ids("input_ids", input_ids, vocab)
    if input_ids.shape[1] < 1:
        raise ValueError(f"input_ids must hold at least one position, got shape {tuple(input_ids.shape)}")
    if max_len is not None and input_ids.shape[1] + extra > max_len:
        raise ValueError(
            f"sequence length T = {input_ids.shape[1]}{f' + {extra}' if extra else ''} exceeds the models' "
            f"max_len = {max_len}"
        )
    if attention_mask is not None:
        check_tensor("attention_mask", attention_mask, shape=tuple(input_ids.shape))
        am = attention_mask.long()
        if bool(((am != 0) & (am != 1)).any()):
            raise ValueError("attention_mask must hold only 0 and 1")
        if bool((am[:, 1:] > am[:, :-1]).any()):
            raise ValueError("attention_mask must be right-padded (ones then zeros in every row)")


def _kw(model: nn.Module, attention_mask):
    """Hugging Face models take the mask; the causal tiny GPT needs none for right padding."""
    return (
        {}
        if attention_mask is None or not hasattr(model, "config") or not hasattr(model.config, "to_dict")
        else {"attention_mask": attention_mask}
    )


class FlyThinker(nn.Module):
    """Generator + Reasoner with per-token latent fusion (see the module docstring).

    Parameters
    ----------
    generator, reasoner : causal LMs sharing one tokenizer, with d_R <= d_G.
    lam : fusion weight lambda >= 0 (the released scripts train and decode with 0.5; the function default is 0.1).
    norm_match : rescale each latent to the Generator's mean embedding norm (the official rule); False adds raw h_t.
    """

    def __init__(self, generator: nn.Module, reasoner: nn.Module, lam: float = 0.5, norm_match: bool = True):
        super().__init__()
        check_pair(generator, reasoner)
        self.lam = check_float("lam", lam, low=0.0)
        self.norm_match = check_bool("norm_match", norm_match)
        self.generator = generator
        self.reasoner = reasoner
        lens = [x for x in (max_len_of(generator), max_len_of(reasoner)) if x is not None]
        self.max_len = min(lens) if lens else None
        self.vocab_size = vocab_of(generator)

    def latents(self, hidden: torch.Tensor) -> torch.Tensor:
        """h^ from the Reasoner's last-layer states (B, T, d_R)."""
        if not self.norm_match:
            return hidden
        return norm_match(hidden, self.generator.get_input_embeddings().weight)

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        labels: torch.Tensor | None = None,
    ) -> FlyThinkerOutput:
        """One parallel pass of R, then one of G on the fused embeddings; loss = shifted CE on labels != -100."""
        check_ids(input_ids, attention_mask, self.vocab_size, self.max_len)
        if labels is not None:
            check_tensor("labels", labels, shape=tuple(input_ids.shape), floating=False)
        out_r = self.reasoner(
            input_ids=input_ids,
            output_hidden_states=True,
            use_cache=False,
            **_kw(self.reasoner, attention_mask),
        )
        lat = self.latents(out_r.hidden_states[-1])
        emb = self.generator.get_input_embeddings()(input_ids)
        fused = fuse(emb, lat.to(emb.dtype), self.lam)
        out_g = self.generator(inputs_embeds=fused, use_cache=False, **_kw(self.generator, attention_mask))
        loss = shifted_loss(out_g.logits, labels) if labels is not None else None
        return FlyThinkerOutput(loss, out_g.logits, lat)


def greedy(logits: torch.Tensor) -> torch.Tensor:
    """The arg-max token of each row of (B, V) logits."""
    check_logits("logits", logits, ndim=2)
    return logits.argmax(dim=-1)


class TopP:
    """Temperature + nucleus sampling (the released decoding uses temperature 0.8, top-p 0.95), seeded."""

    def __init__(self, temperature: float = 0.8, top_p: float = 0.95, seed: int = 0) -> None:
        self.temperature = check_float("temperature", temperature, low=0.0, low_open=True)
        self.top_p = check_float("top_p", top_p, low=0.0, high=1.0, low_open=True)
        self.gen = torch.Generator().manual_seed(check_int("seed", seed))

    def __call__(self, logits: torch.Tensor) -> torch.Tensor:
        check_logits("logits", logits, ndim=2)
        probs = torch.softmax(logits.double() / self.temperature, dim=-1)
        p, idx = probs.sort(dim=-1, descending=True)
        keep = p.cumsum(-1) - p < self.top_p  # the smallest prefix whose mass reaches top_p
        p = torch.where(keep, p, torch.zeros_like(p))
        pick = torch.multinomial((p / p.sum(-1, keepdim=True)).cpu(), 1, generator=self.gen).to(idx.device)
        return idx.gather(-1, pick).squeeze(-1)


@dataclass
class GenerationOutput:
    """``sequences`` (B, P + N), the logits that produced each new token (B, N, V), and timings (seconds)."""

    sequences: torch.Tensor
    logits: torch.Tensor
    seconds: float
    reasoner_seconds: float
    generator_seconds: float


@torch.no_grad()
def generate(
    model: FlyThinker,
    input_ids: torch.Tensor,
    max_new_tokens: int,
    sampler=None,
    parallel: bool = False,
) -> GenerationOutput:
    """Decode `max_new_tokens` tokens after equal-length prompts `input_ids` (B, P), with two KV caches.

    Each step feeds the new token z_t to R (giving h^_t for the next step) and E_G[z_t] + lam * h^_{t-1} to G.
    With ``parallel=True`` R's step runs in a worker thread while G's step runs in the caller's thread (torch
    releases the GIL inside its kernels); ``parallel=False`` is the sequential reference. Both give identical
    tokens and logits. `sampler` maps (B, V) logits to (B,) ids; default :func:`greedy`.
    """
    if not isinstance(model, FlyThinker):
        raise TypeError(f"model must be a FlyThinker, got {type(model).__name__}")
    n_new = check_int("max_new_tokens", max_new_tokens, low=1)
    parallel = check_bool("parallel", parallel)
    check_ids(input_ids, None, model.vocab_size, model.max_len, extra=n_new - 1)
    sampler = greedy if sampler is None else sampler
    if not callable(sampler):
        raise TypeError(f"sampler must be callable as sampler(logits) -> ids, got {sampler!r}")
    g, r = model.generator, model.reasoner
    emb = g.get_input_embeddings()
    t_r = t_g = 0.0
    t0 = time.perf_counter()

    def r_step(ids, past):
        s = time.perf_counter()
        out = r(input_ids=ids, past_key_values=past, use_cache=True, output_hidden_states=True)
        return model.latents(out.hidden_states[-1]), out.past_key_values, time.perf_counter() - s

    def g_step(embeds, past):
        s = time.perf_counter()
        out = g(inputs_embeds=embeds, past_key_values=past, use_cache=True)
        return out.logits[:, -1], out.past_key_values, time.perf_counter() - s

    lat, past_r, dt = r_step(input_ids, None)  # prefill R: h^_1..h^_P
    t_r += dt
    prompt_emb = fuse(emb(input_ids), lat.to(emb.weight.dtype), model.lam)
    logits, past_g, dt = g_step(prompt_emb, None)
    t_g += dt
    prev = lat[:, -1:]  # h^_P, fused into the first generated token's embedding
    seqs, all_logits = [input_ids], []
    pool = ThreadPoolExecutor(max_workers=1) if parallel else None
    try:
        for i in range(n_new):
            all_logits.append(logits)
            tok = sampler(logits).view(-1, 1).to(input_ids.dtype)
            seqs.append(tok)
            if i == n_new - 1:
                break
            e = emb(tok)
            add = prev.to(e.dtype) * model.lam
            if add.shape[-1] < e.shape[-1]:
                add = F.pad(add, (0, e.shape[-1] - add.shape[-1]))
            if pool is not None:
                fut = pool.submit(r_step, tok, past_r)
                logits, past_g, dt_g = g_step(e + add, past_g)
                prev, past_r, dt_r = fut.result()
            else:
                prev, past_r, dt_r = r_step(tok, past_r)
                logits, past_g, dt_g = g_step(e + add, past_g)
            t_r += dt_r
            t_g += dt_g
    finally:
        if pool is not None:
            pool.shutdown()
    return GenerationOutput(
        torch.cat(seqs, dim=1), torch.stack(all_logits, dim=1), time.perf_counter() - t0, t_r, t_g
    )
