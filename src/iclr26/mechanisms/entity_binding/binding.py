"""Entity-binding prompts, counterfactuals and residual-stream interchange interventions.

A prompt lists ``n`` entity groups ``(A_i, B_i)`` under one of three templates and asks for the ``A`` entity bound
to a queried ``B_q``; the answer is ``A_q`` (one token). Token layout (ids):

* 0 PAD, 1 ``,`` (group separator), 2 ``.``, 3 ``who``, 4 ``?``, 5-7 relation tokens (one per template),
  8-23 filler tokens, then the A vocabulary (200 ids) and the B vocabulary (200 ids), disjoint.

Templates (``R_t`` the template's relation token):

* 0: ``A_1 R B_1 , ... , A_n R B_n . who R B_q ?``
* 1: ``B_1 R A_1 , ... , B_n R A_n . B_q R who ?``
* 2: ``A_1 R B_1 , ... , A_n R B_n . B_q R who ?``

The answer is read at the last token (``?``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from iclr26.checks import check_int
from iclr26.lab.transformer import Site, Transformer

__all__ = [
    "FILLER_TOKENS",
    "N_TEMPLATES",
    "VOCAB_A",
    "VOCAB_B",
    "VOCAB_SIZE",
    "BindingPrompt",
    "Counterfactual",
    "candidate_distribution",
    "clean_accuracy",
    "interchange",
    "make_counterfactual",
    "make_prompts",
    "prompt_length",
    "sample_training_batch",
]

PAD, SEP, DOT, WHO, QMARK = 0, 1, 2, 3, 4
RELATIONS = (5, 6, 7)
FILLER_TOKENS = tuple(range(8, 24))
N_ENTITIES = 200
VOCAB_A = tuple(range(24, 24 + N_ENTITIES))
VOCAB_B = tuple(range(24 + N_ENTITIES, 24 + 2 * N_ENTITIES))
VOCAB_SIZE = 24 + 2 * N_ENTITIES
N_TEMPLATES = len(RELATIONS)


@dataclass(frozen=True)
class BindingPrompt:
    """One binding prompt.

    tokens : the token ids; the answer is predicted after the last one.
    a_entities, b_entities : the bound pairs ``(a_entities[i], b_entities[i])`` in group order.
    q : 0-based index of the queried group (the answer is ``a_entities[q]``).
    template : template index (0..2).
    answer_positions : token positions of the ``A`` entities, in group order.
    """

    tokens: tuple[int, ...]
    a_entities: tuple[int, ...]
    b_entities: tuple[int, ...]
    q: int
    template: int
    answer_positions: tuple[int, ...]

    @property
    def n(self) -> int:
        """Number of entity groups."""
        return len(self.a_entities)

    @property
    def answer(self) -> int:
        """The correct answer token ``A_q``."""
        return self.a_entities[self.q]


@dataclass(frozen=True)
class Counterfactual:
    """A counterfactual prompt ``c`` for an original ``o`` and the three mechanisms' targets in ``o``.

    positional, lexical, reflexive : 0-based group indices of ``o`` that each mechanism predicts after the
    last-token residual stream of ``c`` is patched into ``o`` (pairwise distinct).
    """

    prompt: BindingPrompt
    positional: int
    lexical: int
    reflexive: int

    @property
    def targets(self) -> tuple[int, int, int]:
        """``(positional, lexical, reflexive)``."""
        return (self.positional, self.lexical, self.reflexive)


def prompt_length(n: int, filler: int = 0) -> int:
    """Token count of an ``n``-group prompt with ``filler`` filler tokens."""
    return 4 * n + 4 + filler


def _render(
    a: Sequence[int], b: Sequence[int], q: int, template: int, filler_at: Sequence[int] = ()
) -> BindingPrompt:
    """Token sequence of a prompt; ``filler_at`` lists group gaps (0..n-2, repeats allowed) that get a filler."""
    rel = RELATIONS[template]
    tokens: list[int] = []
    positions: list[int] = []
    gaps = list(filler_at)
    for i, (ai, bi) in enumerate(zip(a, b)):
        if i > 0:
            tokens.append(SEP)
            for k, g in enumerate(gaps):
                if g == i - 1:
                    tokens.append(FILLER_TOKENS[(k + i) % len(FILLER_TOKENS)])
        if template == 1:
            tokens += [bi, rel]
            positions.append(len(tokens))
            tokens.append(ai)
        else:
            positions.append(len(tokens))
            tokens += [ai, rel, bi]
    tokens.append(DOT)
    if template == 0:
        tokens += [WHO, rel, b[q], QMARK]
    else:
        tokens += [b[q], rel, WHO, QMARK]
    return BindingPrompt(tuple(tokens), tuple(a), tuple(b), q, template, tuple(positions))


def make_prompts(
    n: int,
    q: int,
    template: int,
    vocab_A: Sequence[int] = VOCAB_A,
    vocab_B: Sequence[int] = VOCAB_B,
    seed: int = 0,
    count: int = 1,
    filler: int = 0,
) -> list[BindingPrompt]:
    """``count`` prompts with ``n`` groups querying group ``q`` (1-based, 1..n) under ``template``.

    Entities are drawn without replacement from ``vocab_A`` and ``vocab_B`` (disjoint token-id sequences);
    ``filler`` filler tokens are put at random group boundaries. Deterministic given ``seed``.

    >>> p = make_prompts(3, 2, 0, seed=1)[0]
    >>> p.n, p.q, p.tokens[p.answer_positions[p.q]] == p.answer
    (3, 1, True)
    """
    n = check_int("n", n, low=2, type_error=True)
    q = check_int("q", q, low=1, high=n, type_error=True)
    template = check_int("template", template, low=0, high=N_TEMPLATES - 1, type_error=True)
    count = check_int("count", count, low=1, type_error=True)
    filler = check_int("filler", filler, low=0, type_error=True)
    va, vb = [int(t) for t in vocab_A], [int(t) for t in vocab_B]
    for name, vocab in (("vocab_A", va), ("vocab_B", vb)):
        if len(set(vocab)) < n:
            raise ValueError(f"{name} must hold at least n = {n} distinct tokens, got {len(set(vocab))}")
        if any(t < 0 or t >= VOCAB_SIZE for t in vocab):
            raise ValueError(f"{name} tokens must lie in 0..{VOCAB_SIZE - 1}")
    if set(va) & set(vb):
        raise ValueError("vocab_A and vocab_B must be disjoint")
    va, vb = sorted(set(va)), sorted(set(vb))
    rng = np.random.default_rng(check_int("seed", seed, low=0, type_error=True))
    out = []
    for _ in range(count):
        a = [va[j] for j in rng.choice(len(va), n, replace=False)]
        b = [vb[j] for j in rng.choice(len(vb), n, replace=False)]
        gaps = sorted(rng.integers(0, n - 1, size=filler).tolist()) if filler else []
        out.append(_render(a, b, q - 1, template, gaps))
    return out


def _derangement(n: int, rng: np.random.Generator) -> np.ndarray:
    while True:
        perm = rng.permutation(n)
        if not np.any(perm == np.arange(n)):
            return perm


def make_counterfactual(
    o: BindingPrompt, mode: str = "mix", seed: int = 0, query: int | None = None
) -> Counterfactual:
    """Counterfactual ``c`` for ``o`` whose positional, lexical and reflexive targets in ``o`` are distinct.

    ``mode="mix"`` (the official construction): ``c``'s groups are ``o``'s groups permuted by a derangement
    ``pi`` (group ``j`` of ``c`` is group ``pi(j)`` of ``o``), ``c`` queries index ``q_c``, and the ``A`` entity of
    group ``q_c`` is swapped with that of a third group ``r``. Then the positional mechanism points to ``o``'s group
    ``q_c``, the lexical one to the group of ``o`` bound to ``c``'s query entity, ``pi(q_c)``, and the reflexive one
    to the group of ``o`` holding ``c``'s answer token, ``pi(r)``. ``c`` keeps ``o``'s template and length.
    ``query`` fixes ``q_c`` (1-based; random when None), i.e. the positional target.

    >>> o = make_prompts(4, 1, 0, seed=0)[0]
    >>> len(set(make_counterfactual(o, seed=3).targets))
    3
    """
    if not isinstance(o, BindingPrompt):
        raise TypeError(f"o must be a BindingPrompt, got {type(o).__name__}")
    if mode != "mix":
        raise ValueError(f"mode must be 'mix', got {mode!r}")
    n = o.n
    if n < 3:
        raise ValueError(
            f"make_counterfactual needs o with n >= 3 groups for three distinct targets, got n = {n}"
        )
    if query is not None:
        query = check_int("query", query, low=1, high=n, type_error=True)
    rng = np.random.default_rng(check_int("seed", seed, low=0, type_error=True))
    perm = _derangement(n, rng)
    q_c = int(rng.integers(n)) if query is None else query - 1
    inv = int(np.flatnonzero(perm == q_c)[0])
    choices = [r for r in range(n) if r != q_c and r != inv]
    r = int(rng.choice(choices))
    a = [o.a_entities[perm[j]] for j in range(n)]
    b = [o.b_entities[perm[j]] for j in range(n)]
    a[q_c], a[r] = a[r], a[q_c]
    # keep o's filler layout: count fillers per gap from o's tokens
    gaps = _filler_gaps(o)
    c = _render(a, b, q_c, o.template, gaps)
    return Counterfactual(c, positional=q_c, lexical=int(perm[q_c]), reflexive=int(perm[r]))


def _filler_gaps(o: BindingPrompt) -> list[int]:
    fill = set(FILLER_TOKENS)
    gaps: list[int] = []
    group = 0
    for t in o.tokens:
        if t == SEP:
            group += 1
        elif t in fill:
            gaps.append(group - 1)
    return gaps


def sample_training_batch(
    batch: int, n: int, rng: np.random.Generator, filler: int = 0
) -> tuple[Tensor, Tensor]:
    """A batch of prompts with ``n`` groups, random templates/queries and ``filler`` fillers: (tokens, answers)."""
    n = check_int("n", n, low=2, type_error=True)
    batch = check_int("batch", batch, low=1, type_error=True)
    filler = check_int("filler", filler, low=0, type_error=True)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    rows, answers = [], []
    for _ in range(batch):
        a = (np.asarray(VOCAB_A)[rng.choice(N_ENTITIES, n, replace=False)]).tolist()
        b = (np.asarray(VOCAB_B)[rng.choice(N_ENTITIES, n, replace=False)]).tolist()
        gaps = sorted(rng.integers(0, n - 1, size=filler).tolist()) if filler else []
        p = _render(a, b, int(rng.integers(n)), int(rng.integers(N_TEMPLATES)), gaps)
        rows.append(p.tokens)
        answers.append(p.answer)
    return torch.tensor(rows), torch.tensor(answers)


def _as_list(prompts: BindingPrompt | Sequence[BindingPrompt], name: str) -> list[BindingPrompt]:
    items = [prompts] if isinstance(prompts, BindingPrompt) else list(prompts)
    if not items or not all(isinstance(p, BindingPrompt) for p in items):
        raise TypeError(f"{name} must be a BindingPrompt or a non-empty sequence of them")
    return items


def _check_model(model: object) -> Transformer:
    if not isinstance(model, Transformer):
        raise TypeError(f"model must be an iclr26.lab.transformer.Transformer, got {type(model).__name__}")
    return model


def _stack(prompts: list[BindingPrompt], name: str) -> Tensor:
    lengths = {len(p.tokens) for p in prompts}
    if len(lengths) != 1:
        raise ValueError(f"{name} prompts must share one length in a batch, got lengths {sorted(lengths)}")
    return torch.tensor([p.tokens for p in prompts])


def _device(model: Transformer) -> torch.device:
    return next(model.parameters()).device


def _candidates(logits: Tensor, prompts: list[BindingPrompt]) -> Tensor:
    """Softmax over each prompt's candidates, returned on the CPU."""
    ids = torch.tensor([p.a_entities for p in prompts], device=logits.device)
    return torch.softmax(logits.gather(1, ids).double(), dim=-1).cpu()


@torch.no_grad()
def candidate_distribution(model: Transformer, prompts: BindingPrompt | Sequence[BindingPrompt]) -> Tensor:
    """Clean next-token distribution renormalised over each prompt's ``n`` candidate ``A`` entities, (batch, n)."""
    model = _check_model(model)
    items = _as_list(prompts, "prompts")
    logits = model(_stack(items, "prompts").to(_device(model)))[:, -1]
    return _candidates(logits, items)


@torch.no_grad()
def clean_accuracy(model: Transformer, prompts: BindingPrompt | Sequence[BindingPrompt]) -> float:
    """Fraction of prompts whose full-vocabulary argmax next token is the correct answer."""
    model = _check_model(model)
    items = _as_list(prompts, "prompts")
    pred = model(_stack(items, "prompts").to(_device(model)))[:, -1].argmax(-1).cpu()
    return float((pred == torch.tensor([p.answer for p in items])).double().mean())


@torch.no_grad()
def interchange(
    model: Transformer,
    o: BindingPrompt | Sequence[BindingPrompt],
    c: BindingPrompt | Sequence[BindingPrompt],
    layer: int,
    pos: int = -1,
) -> Tensor:
    """Patch ``c``'s residual stream entering block ``layer`` at token ``pos`` into ``o``; return ``o``'s
    post-patch next-token distribution renormalised over ``o``'s ``n`` candidates, shape (batch, n).

    ``o`` and ``c`` are prompts or equal-length sequences of prompts (paired one to one); the patched site is
    ``Site("resid_pre", layer, pos)`` (``pos`` is applied to both prompts, default the last token).
    """
    model = _check_model(model)
    os_, cs = _as_list(o, "o"), _as_list(c, "c")
    if len(os_) != len(cs):
        raise ValueError(f"o and c must pair one to one, got {len(os_)} and {len(cs)} prompts")
    layer = check_int("layer", layer, low=0, high=model.n_layers - 1, type_error=True)
    check_int("pos", pos, type_error=True)
    to, tc = _stack(os_, "o").to(_device(model)), _stack(cs, "c").to(_device(model))
    n_tok = min(to.shape[1], tc.shape[1])
    check_int("pos (a token index into both prompts)", pos, -n_tok, n_tok - 1)
    site = Site("resid_pre", layer)
    _, cache = model.run_with_cache(tc, [site])
    value = cache[site.name][:, pos]
    logits = model.run_with_hooks(to, replace={Site("resid_pre", layer, pos=pos): value})[:, -1]
    return _candidates(logits, os_)
