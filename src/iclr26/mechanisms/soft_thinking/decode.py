"""Soft-thinking decoders over any causal LM that takes input embeddings.

At a thinking step with next-token logits ``z`` the soft token is built from

    p = renormalise(top-k / top-p of softmax(z / T))           (support of size <= k)
    vanilla soft thinking:   q = p
    Dirichlet:               q ~ Dir(beta * p)                  (on the support)
    Gumbel-Softmax:          q = softmax((log p + g) / tau),  g_i ~ Gumbel(0, 1)
    input embedding:         s = sum_i q_i e_i                  (e_i: rows of the input embedding matrix)

Thinking ends when the dominant token of the input weights (argmax of q) is the end-of-thinking token, or after
``max_think`` steps; the answer phase is discrete (greedy, or sampled in ``mode='sample'``). ``greedy`` and
``sample`` feed discrete tokens throughout (the baselines). With ``k=1`` vanilla soft thinking feeds exactly
``e_argmax`` and so reproduces greedy decoding.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import torch
from torch import Tensor, nn

from iclr26.checks import check_float, check_int, check_tensor, check_token_ids
from iclr26.lab.sampling import standard_gamma

__all__ = [
    "MODES",
    "SoftDecodeResult",
    "SoftStep",
    "as_embedding_lm",
    "dirichlet_weights",
    "gumbel_weights",
    "mix_embeddings",
    "soft_decode",
    "soft_weights",
]

MODES = ("greedy", "sample", "soft", "dirichlet", "gumbel")


def as_embedding_lm(model: nn.Module) -> tuple[Tensor, Callable[[Tensor], Tensor]]:
    """The input-embedding matrix (V, d) and an ``embeds (B, T, d) -> logits (B, T, V)`` function of `model`.

    Accepts the lab :class:`~iclr26.lab.transformer.Transformer` (``forward_embeds``) or a Hugging Face causal
    LM (``get_input_embeddings`` and ``inputs_embeds``); anything else raises TypeError.
    """
    if hasattr(model, "forward_embeds") and hasattr(model, "W_E"):
        return model.W_E, model.forward_embeds
    if hasattr(model, "get_input_embeddings") and callable(model.get_input_embeddings):
        emb = model.get_input_embeddings()
        if emb is not None and hasattr(emb, "weight"):

            def logits(x: Tensor) -> Tensor:
                return model(inputs_embeds=x).logits

            return emb.weight, logits
    raise TypeError(
        f"model must accept input embeddings (a Transformer with forward_embeds or a Hugging Face model with "
        f"inputs_embeds), got {type(model).__name__}"
    )


def soft_weights(
    logits: Tensor, k: int = 10, top_p: float = 0.95, temperature: float = 1.0
) -> tuple[Tensor, Tensor]:
    """Top-k (then top-p) truncated, renormalised softmax(logits / T): ids (..., k) and weights (..., k).

    Weights are sorted in decreasing order; entries cut by top-p get weight 0 (at least the top-1 is kept).
    """
    k = check_int("k (top-k support size)", k, low=1, type_error=True)
    temperature = check_float("temperature", temperature, low=0.0, low_open=True, type_error=True)
    check_float("top_p", top_p, 0.0, 1.0, low_open=True)
    check_tensor("logits", logits, floating=True)
    if logits.ndim < 1 or logits.shape[-1] < 1 or bool(logits.isnan().any()):
        raise ValueError(f"logits must be (..., V) with V >= 1 and no NaN, got shape {tuple(logits.shape)}")
    k = min(k, logits.shape[-1])
    probs = torch.softmax(logits.double() / temperature, dim=-1)
    w, ids = probs.topk(k, dim=-1)
    w = w / w.sum(-1, keepdim=True)
    if top_p < 1:
        before = w.cumsum(-1) - w  # mass of the strictly better tokens
        w = torch.where(before < top_p, w, torch.zeros_like(w))
        w = w / w.sum(-1, keepdim=True)
    return ids, w.to(logits.dtype)


def _check_dist(p: Tensor, generator: object) -> None:
    check_tensor("p", p, floating=True)
    if p.ndim < 1 or not bool(((p >= 0) & torch.isfinite(p)).all()):
        raise ValueError("p must hold finite non-negative weights along its last axis")
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator or None, got {type(generator).__name__}")


def dirichlet_weights(p: Tensor, beta: float = 4.0, generator: torch.Generator | None = None) -> Tensor:
    """q ~ Dir(beta * p) over the support of `p` (zero-weight entries stay 0); larger beta: closer to p."""
    beta = check_float("beta", beta, low=0.0, low_open=True, type_error=True)
    _check_dist(p, generator)
    support = p > 0
    # Gamma(alpha, 1) draws normalised give a Dirichlet, drawn from the global generator seeded from `generator`.
    conc = torch.where(support, beta * p, torch.ones_like(p)).double()
    seed = int(torch.randint(0, 2**62, (1,), generator=generator))
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        g = standard_gamma(conc)
    g = torch.where(support, g, torch.zeros_like(g))
    total = g.sum(-1, keepdim=True)
    # Tiny concentrations can underflow every draw to 0: fall back to the largest-p token then.
    fallback = torch.zeros_like(g).scatter_(-1, p.argmax(-1, keepdim=True), 1.0)
    q = torch.where(total > 0, g / total.clamp_min(1e-300), fallback)
    return q.to(p.dtype)


def gumbel_weights(p: Tensor, tau: float = 0.5, generator: torch.Generator | None = None) -> Tensor:
    """q = softmax((log p + g) / tau), g ~ Gumbel(0, 1), over the support of `p` (zero-weight entries stay 0)."""
    tau = check_float("tau", tau, low=0.0, low_open=True, type_error=True)
    _check_dist(p, generator)
    u = torch.rand(p.shape, generator=generator, dtype=torch.float64).clamp(1e-300, 1 - 1e-16)
    g = -torch.log(-torch.log(u))
    logp = torch.where(p > 0, p.double().log(), torch.full_like(g, -torch.inf))
    return torch.softmax((logp + g) / tau, dim=-1).to(p.dtype)


def mix_embeddings(embedding: Tensor, ids: Tensor, weights: Tensor) -> Tensor:
    """s = sum_i w_i E[ids_i]: (..., k) ids and weights -> (..., d)."""
    check_tensor("embedding", embedding, ndim=2, floating=True)
    check_token_ids("ids", ids, embedding.shape[0])
    check_tensor("weights", weights, floating=True)
    if weights.shape != ids.shape:
        raise ValueError(f"weights must have the shape of ids {tuple(ids.shape)}, got {tuple(weights.shape)}")
    rows = embedding[ids]
    return (weights.to(rows.dtype).unsqueeze(-1) * rows).sum(-2)


@dataclass
class SoftStep:
    """One thinking step of rows still thinking: their indices, prefix embeddings, support ids and weights."""

    rows: Tensor
    prefix: Tensor
    ids: Tensor
    p: Tensor
    q: Tensor

    def __post_init__(self) -> None:
        check_tensor("rows", self.rows, ndim=1, floating=False)
        r = self.rows.shape[0]
        check_tensor("prefix", self.prefix, ndim=3, floating=True, shape=(r, None, None))
        check_tensor("ids", self.ids, ndim=2, floating=False, shape=(r, None))
        for name in ("p", "q"):
            check_tensor(name, getattr(self, name), floating=True, shape=tuple(self.ids.shape))


@dataclass
class SoftDecodeResult:
    """Output of :func:`soft_decode`.

    tokens : (B, L) generated ids after the prompt; at thinking steps the dominant token of the input weights,
        then END, the answer and EOS; -1 pads finished rows.
    think_len : thinking steps per row; answers : answer tokens per row (up to EOS, excluded).
    steps : the recorded thinking steps (``record=True``).
    """

    tokens: Tensor
    think_len: Tensor
    answers: list[list[int]]
    steps: list[SoftStep] = field(default_factory=list)

    def __post_init__(self) -> None:
        check_tensor("tokens", self.tokens, ndim=2, floating=False)
        b = self.tokens.shape[0]
        check_tensor("think_len", self.think_len, floating=False, shape=(b,))
        if len(self.answers) != b:
            raise ValueError(f"answers must hold one list per row ({b}), got {len(self.answers)}")


def _sample_discrete(
    logits: Tensor, temperature: float, top_p: float, generator: torch.Generator | None
) -> Tensor:
    ids, w = soft_weights(logits, k=logits.shape[-1], top_p=top_p, temperature=temperature)
    pick = torch.multinomial(w.double(), 1, generator=generator).squeeze(-1)
    return ids.gather(-1, pick[:, None]).squeeze(-1)


@torch.no_grad()
def soft_decode(
    model: nn.Module,
    prompt: Tensor,
    mode: str = "soft",
    k: int = 10,
    tau: float = 0.5,
    beta: float = 4.0,
    max_think: int = 8,
    *,
    end_think_id: int,
    eos_id: int,
    max_answer: int = 8,
    temperature: float = 0.6,
    top_p: float = 0.95,
    generator: torch.Generator | None = None,
    record: bool = False,
) -> SoftDecodeResult:
    """Decode a batch of equal-length prompts (B, T) with discrete or soft thinking, then a discrete answer.

    mode : 'greedy' | 'sample' (discrete; T = `temperature`, nucleus `top_p`) | 'soft' (vanilla soft thinking)
        | 'dirichlet' (q ~ Dir(beta p)) | 'gumbel' (Gumbel-Softmax with temperature `tau`).
    k, top_p, temperature : the soft token's support (top-k, then top-p, of softmax(z / temperature)).
    max_think, max_answer : step caps of the two phases. The thinking phase ends when the dominant input token
        is `end_think_id`; the answer phase ends at `eos_id`.
    """
    table, logits_fn = as_embedding_lm(model)
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    k = check_int("k (top-k support size)", k, low=1, type_error=True)
    check_float("tau", tau, low=0.0, low_open=True, type_error=True)
    check_float("beta", beta, low=0.0, low_open=True, type_error=True)
    check_float("temperature", temperature, low=0.0, low_open=True, type_error=True)
    for name, v in (("max_think", max_think), ("max_answer", max_answer)):
        check_int(name, v, low=0)
    if not isinstance(prompt, Tensor) or prompt.ndim != 2 or prompt.dtype not in (torch.int64, torch.int32):
        raise ValueError("prompt must be an integer tensor of shape (batch, seq)")
    n_vocab = table.shape[0]
    check_int("end_think_id", end_think_id, 0, n_vocab - 1)
    check_int("eos_id", eos_id, 0, n_vocab - 1)
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator or None, got {type(generator).__name__}")
    if prompt.numel() == 0 or int(prompt.min()) < 0 or int(prompt.max()) >= n_vocab:
        raise ValueError(f"prompt must be a non-empty tensor of ids in [0, {n_vocab})")
    batch = prompt.shape[0]
    x = table[prompt.long()]
    phase = torch.zeros(batch, dtype=torch.long)  # 0 think, 1 answer, 2 done
    think_len = torch.zeros(batch, dtype=torch.long)
    ans_len = torch.zeros(batch, dtype=torch.long)
    answers: list[list[int]] = [[] for _ in range(batch)]
    out: list[Tensor] = []
    steps: list[SoftStep] = []
    for _ in range(max_think + max_answer + 2):
        if bool((phase == 2).all()):
            break
        logits = logits_fn(x)[:, -1].float()
        tok = torch.full((batch,), -1, dtype=torch.long)
        emb = table[torch.full((batch,), eos_id, dtype=torch.long)].clone()
        thinking = phase == 0
        if bool(thinking.any()):
            rows = thinking.nonzero().squeeze(-1)
            lt = logits[rows]
            if mode == "greedy":
                t = lt.argmax(-1)
                e = table[t]
            elif mode == "sample":
                t = _sample_discrete(lt, temperature, top_p, generator)
                e = table[t]
            else:
                ids, p = soft_weights(lt, k, top_p, temperature)
                if mode == "soft":
                    q = p
                elif mode == "dirichlet":
                    q = dirichlet_weights(p, beta, generator)
                else:
                    q = gumbel_weights(p, tau, generator)
                t = ids.gather(-1, q.argmax(-1, keepdim=True)).squeeze(-1)
                e = mix_embeddings(table, ids, q)
                if record:
                    steps.append(SoftStep(rows, x[rows].clone(), ids, p, q))
            stop = (t == end_think_id) | (think_len[rows] >= max_think)
            t = torch.where(stop, torch.full_like(t, end_think_id), t)
            e = torch.where(stop[:, None], table[t], e)
            tok[rows], emb[rows] = t, e.to(emb.dtype)
            think_len[rows] += (~stop).long()
            phase[rows[stop]] = 1
        answering = (phase == 1) & ~(tok == end_think_id)
        if bool(answering.any()):
            rows = answering.nonzero().squeeze(-1)
            lt = logits[rows]
            t = _sample_discrete(lt, temperature, top_p, generator) if mode == "sample" else lt.argmax(-1)
            over = ans_len[rows] >= max_answer
            t = torch.where(over, torch.full_like(t, eos_id), t)
            tok[rows], emb[rows] = t, table[t]
            for r, v in zip(rows.tolist(), t.tolist()):
                if v != eos_id:
                    answers[r].append(v)
            ans_len[rows] += 1
            phase[rows[t == eos_id]] = 2
        out.append(tok)
        x = torch.cat([x, emb[:, None]], dim=1)
    return SoftDecodeResult(torch.stack(out, 1) if out else prompt[:, :0], think_len, answers, steps)
