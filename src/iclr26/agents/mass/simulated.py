"""``SimulatedLLM``: an offline world of multiple-choice items and prompt-dependent agents (the brief's backend).

Each world seed draws, hidden from any optimizer:

* items x with a cluster c(x), a difficulty d(x) ~ N(0, 1), flags ``long`` (p = 0.3) and ``code`` (p = 0.25),
  a correct option y(x) and an item-specific distractor distribution pi_x ~ Dirichlet(0.5) over the wrong
  options (so errors are correlated across calls, and majority votes cannot fix every item);
* per role a pool of instructions and demo sets. Answering roles (predictor, debater): instruction quality
  alpha_i[c] = 0.8 + mu_i + e_ic (mu_i ~ N(0, 0.6), e_ic ~ N(0, 0.5)); a debater instruction also has a
  conformity c_i ~ N(0, 1). Reflector and summarizer instructions have one quality q_i ~ N(0, 1) (summarizer
  N(0.5, 1)). Demo set 0 of every role is the empty set (beta_0 = 0), the others beta_j ~ N(0.2, 0.4).

One ``answer`` call is correct with probability sigma(alpha_i[c] + beta_j - d(x) - penalties + bonus)
(penalties: 1.0 for a long item without a good summary, 0.3 for a short item whose summary was lossy, 0.5 for
code items; bonus: 0.3 after a reviewer's rejection, 0.5 after failed tests, 0.4 for a debate re-answer); a
wrong answer is drawn from pi_x (renormalised without an excluded option). ``verify`` flags a wrong answer with
probability sigma(q + 0.5) and a correct one (false alarm) with sigma(-q - 1.5). In a debate round an agent
adopts the others' majority with probability sigma(conformity), else re-answers with the debate bonus.
``summarize`` is good with probability sigma(q). Unknown instructions or demos have quality 0.

Randomness is counter based: every draw is a hash of (world seed, call seed, item id, draw index), so a call's
answer for an item does not depend on which other items are in the batch, and the chat path (one request per
item, with the call seed as the request's ``seed``) gives exactly the vectorised path's answers. The effects of
blocks are not tabulated anywhere: they emerge from voting, refinement and conformity.
"""

from __future__ import annotations

import re

import numpy as np

from iclr26.agents.mass.items import LETTERS, ItemSet
from iclr26.agents.mass.prompts import ROLES, SUMMARIZE_ASK, VERIFY_ASK, Demo, PromptConfig
from iclr26.checks import check_array, check_int
from iclr26.lab.llm import ChatRequest, Completion, LLMBackend, LLMError

__all__ = ["BONUS", "PENALTY", "SimulatedLLM", "majority_vote"]

SALT = 2502_02533
BASE = 0.8
PENALTY = {"long": 1.0, "lossy": 0.3, "code": 0.5}
BONUS = {None: 0.0, "reflect": 0.3, "tests": 0.5, "debate": 0.4}
_M64 = np.uint64(0xFFFFFFFFFFFFFFFF)

_PHRASES = (
    "Think step by step before answering.",
    "Answer directly and concisely.",
    "First restate the question, then reason carefully.",
    "Consider each option and eliminate the wrong ones.",
    "You are an expert; be precise and check your work.",
    "Break the problem into sub-questions and answer each.",
    "Identify the key facts, then decide.",
    "Reason about what the question is really asking.",
    "Compare the two most plausible options carefully.",
    "Write a short plan, then follow it.",
    "Look for common traps in the options.",
    "Verify the final choice against the question.",
)


def _splitmix(h: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        h = h + np.uint64(0x9E3779B97F4A7C15)
        h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return h ^ (h >> np.uint64(31))


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def majority_vote(answers: np.ndarray, n_options: int) -> np.ndarray:
    """Per row of ``answers`` (items, agents) the most frequent option; ties go to the earliest agent's answer.

    Unparsed answers (-1) never win unless every agent gave one.
    """
    a = check_array("answers", answers, integer=True).astype(int)
    if a.ndim != 2 or a.shape[1] == 0:
        raise ValueError(f"answers must have shape (items, agents >= 1), got {a.shape}")
    n_options = check_int("n_options", n_options, low=1)
    if a.size and (int(a.min()) < -1 or int(a.max()) >= n_options):
        raise ValueError(
            f"answers must be options in [0, {n_options}) or -1 (unparsed), got values in [{a.min()}, {a.max()}]"
        )
    counts = np.zeros((a.shape[0], n_options), dtype=int)
    rows = np.repeat(np.arange(a.shape[0]), a.shape[1])
    flat = a.ravel()
    ok = flat >= 0
    np.add.at(counts, (rows[ok], flat[ok]), 1)
    best = counts.max(axis=1)
    agent_count = np.where(a >= 0, np.take_along_axis(counts, np.maximum(a, 0), axis=1), -1)
    first = np.argmax(agent_count == best[:, None], axis=1)
    out = a[np.arange(a.shape[0]), first]
    return np.where(best > 0, out, -1)


class SimulatedLLM(LLMBackend):
    """An offline world (items, agent pools, hidden latents) that answers MASS's agent requests.

    Parameters
    ----------
    world_seed : int
        Draws everything in the world.
    n_train, n_val, n_test : split sizes (train items supply the demo sets).
    n_options, n_clusters, n_instructions, n_demo_sets : world shape (demo set 0 is the empty set).

    Examples
    --------
    >>> llm = SimulatedLLM(0, n_train=12, n_val=10, n_test=10)
    >>> p = llm.default_prompt("predictor")
    >>> a = llm.answer(p, llm.val, seed=1)
    >>> a.shape, bool(((a >= 0) & (a < 4)).all())
    ((10,), True)
    """

    model = "simulated-mass"

    def __init__(
        self,
        world_seed: int,
        *,
        n_train: int = 60,
        n_val: int = 100,
        n_test: int = 300,
        n_options: int = 4,
        n_clusters: int = 4,
        n_instructions: int = 8,
        n_demo_sets: int = 6,
        demo_size: int = 3,
    ) -> None:
        self.world_seed = check_int("world_seed", world_seed, low=0)
        check_int("demo_size", demo_size, low=1)
        check_int("n_train", n_train, low=demo_size)
        check_int("n_val", n_val, low=1)
        check_int("n_test", n_test, low=1)
        self.n_options = check_int("n_options", n_options, low=2, high=len(LETTERS))
        check_int("n_clusters", n_clusters, low=1)
        check_int("n_instructions", n_instructions, low=1, high=len(_PHRASES))
        check_int("n_demo_sets", n_demo_sets, low=1)
        rng = np.random.default_rng(np.random.SeedSequence([self.world_seed, SALT]))
        n = n_train + n_val + n_test
        self._cluster = rng.integers(0, n_clusters, size=n)
        self._d = rng.normal(0.0, 1.0, size=n)
        self._long = rng.random(n) < 0.3
        self._code = (rng.random(n) < 0.25) & ~self._long
        self._y = rng.integers(0, n_options, size=n)
        pi = np.zeros((n, n_options))
        for x in range(n):
            wrong = [k for k in range(n_options) if k != self._y[x]]
            pi[x, wrong] = rng.dirichlet(np.full(n_options - 1, 0.5))
        self._pi = pi
        kind = np.where(self._long, " (long context)", np.where(self._code, " (code)", ""))
        questions = tuple(
            f"Item #{x} of world {self.world_seed}{kind[x]}: which option is right?" for x in range(n)
        )
        self._item_of = {q: x for x, q in enumerate(questions)}
        everything = ItemSet(
            np.arange(n),
            questions,
            tuple(tuple(f"option {LETTERS[k]} of #{x}" for k in range(n_options)) for x in range(n)),
            self._y.copy(),
            self._long.copy(),
            self._code.copy(),
        )
        self.train = everything.subset(np.arange(n_train))
        self.val = everything.subset(np.arange(n_train, n_train + n_val))
        self.test = everything.subset(np.arange(n_train + n_val, n))
        # agent pools and their hidden qualities
        self.instructions: dict[str, tuple[str, ...]] = {}
        self.demo_sets: dict[str, tuple[tuple[Demo, ...], ...]] = {}
        self._instr_of: dict[str, tuple[str, int]] = {}
        self._demo_of: dict[tuple[Demo, ...], tuple[str, int]] = {}
        self._alpha: dict[str, np.ndarray] = {}
        self._q: dict[str, np.ndarray] = {}
        self._beta: dict[str, np.ndarray] = {}
        self._conf = np.zeros(n_instructions)
        for role in ROLES:
            order = rng.permutation(len(_PHRASES))[:n_instructions]
            texts = tuple(
                f"You are the {role} (variant {i}). {_PHRASES[order[i]]}" for i in range(n_instructions)
            )
            self.instructions[role] = texts
            self._instr_of.update({t: (role, i) for i, t in enumerate(texts)})
            sets: list[tuple[Demo, ...]] = [()]
            while len(sets) < n_demo_sets:
                pick = rng.choice(n_train, size=demo_size, replace=False)
                demos = tuple(self._demo(role, int(x)) for x in pick)
                if demos not in self._demo_of and demos not in sets:
                    sets.append(demos)
            self.demo_sets[role] = tuple(sets)
            self._demo_of.update({s: (role, j) for j, s in enumerate(sets) if j > 0})
            beta = rng.normal(0.2, 0.4, size=n_demo_sets)
            beta[0] = 0.0
            self._beta[role] = beta
            if role in ("predictor", "debater"):
                mu = rng.normal(0.0, 0.6, size=n_instructions)
                self._alpha[role] = (
                    BASE + mu[:, None] + rng.normal(0.0, 0.5, size=(n_instructions, n_clusters))
                )
                if role == "debater":
                    self._conf = rng.normal(0.0, 1.0, size=n_instructions)
            else:
                self._q[role] = rng.normal(0.5 if role == "summarizer" else 0.0, 1.0, size=n_instructions)

    def _demo(self, role: str, x: int) -> Demo:
        q = f"Item #{x} of world {self.world_seed}: which option is right?"
        if role == "reflector":
            return Demo(q + f" Proposed answer: {LETTERS[self._y[x]]}.", "CORRECT")
        if role == "summarizer":
            return Demo(q, f"The facts of item #{x}.")
        return Demo(q, LETTERS[self._y[x]])

    @property
    def identity(self) -> str:
        return f"simulated-mass:world{self.world_seed}"

    # ------------------------------------------------------------------ the world, as an optimizer may see it

    def default_prompt(self, role: str) -> PromptConfig:
        """Instruction 0 of the role's pool, no demos (the hand-written default)."""
        return self.prompt(role, 0, 0)

    def prompt(self, role: str, instruction: int, demo_set: int) -> PromptConfig:
        """The role's pool entry (instruction index, demo set index) as a PromptConfig."""
        if role not in ROLES:
            raise ValueError(f"role must be one of {', '.join(ROLES)}, got {role!r}")
        return PromptConfig(self.instructions[role][instruction], self.demo_sets[role][demo_set])

    # ------------------------------------------------------------------ hidden quantities

    def _quality(self, prompt: PromptConfig, role: str, clusters: np.ndarray | None = None):
        owner, i = self._instr_of.get(prompt.instruction, (None, -1))
        downer, j = self._demo_of.get(prompt.demos, (None, 0))
        if role == "answer":
            base = self._alpha[owner][i][clusters] if owner in self._alpha else np.zeros(len(clusters))
            return base + (self._beta[downer][j] if downer in ("predictor", "debater") else 0.0)
        q = self._q[role][i] if owner == role else 0.0
        return q + (self._beta[role][j] if downer == role else 0.0)

    def _conformity(self, prompt: PromptConfig) -> float:
        owner, i = self._instr_of.get(prompt.instruction, (None, -1))
        return float(self._conf[i]) if owner == "debater" else 0.0

    def _uniform(self, seed: int, ids: np.ndarray, draw: int) -> np.ndarray:
        h = np.array([self.world_seed], dtype=np.uint64)
        for v in (int(seed), int(draw)):
            h = _splitmix(h ^ np.uint64(v & 0xFFFFFFFFFFFFFFFF))
        h = _splitmix(h ^ np.asarray(ids, dtype=np.uint64))
        return (h >> np.uint64(11)).astype(np.float64) * 2.0**-53

    def answer_probability(
        self,
        prompt: PromptConfig,
        items: ItemSet,
        context: np.ndarray | None = None,
        reason: str | None = None,
    ) -> np.ndarray:
        """sigma(quality - difficulty - penalties + bonus) per item: the chance one ``answer`` call is right."""
        ids = items.ids
        logit = self._quality(prompt, "answer", self._cluster[ids]) - self._d[ids] + BONUS[reason]
        logit = logit - PENALTY["code"] * self._code[ids]
        if context is None:
            logit = logit - PENALTY["long"] * self._long[ids]
        else:
            good = np.asarray(context, dtype=bool)
            logit = (
                logit
                - PENALTY["long"] * (self._long[ids] & ~good)
                - PENALTY["lossy"] * (~self._long[ids] & ~good)
            )
        return _sigmoid(logit)

    # ------------------------------------------------------------------ the vectorised agent requests

    def answer(
        self,
        prompt: PromptConfig,
        items: ItemSet,
        seed: int,
        context: np.ndarray | None = None,
        exclude: np.ndarray | None = None,
        peers: np.ndarray | None = None,
        reason: str | None = None,
    ) -> np.ndarray:
        """Option indices chosen by one agent call per item (see the module docstring)."""
        ids = items.ids
        y = self._y[ids]
        bonus_reason = reason if reason in ("reflect", "tests") else None
        p = self.answer_probability(prompt, items, context, "debate" if reason == "debate" else bonus_reason)
        correct = self._uniform(seed, ids, 1) < p
        w = self._pi[ids].copy()
        if exclude is not None:
            ex = np.asarray(exclude, dtype=int)
            correct &= ex != y
            valid = ex >= 0
            w[np.flatnonzero(valid), ex[valid]] = 0.0
        total = w.sum(axis=1)
        forced = total <= 0  # nothing wrong left to choose: the answer is the correct one
        w = np.where(forced[:, None], 0.0, w / np.where(forced, 1.0, total)[:, None])
        pick = (self._uniform(seed, ids, 2)[:, None] > np.cumsum(w, axis=1)).sum(axis=1)
        out = np.where(correct | forced, y, np.minimum(pick, self.n_options - 1))
        if reason == "debate":
            pe = np.asarray(peers, dtype=int)
            adopt = self._uniform(seed, ids, 3) < _sigmoid(self._conformity(prompt))
            out = np.where(adopt, majority_vote(pe, self.n_options), out)
        return out

    def verify(
        self,
        prompt: PromptConfig,
        items: ItemSet,
        answers: np.ndarray,
        seed: int,
        context: np.ndarray | None = None,
    ) -> np.ndarray:
        """True where the reviewer judges the answer wrong."""
        q = self._quality(prompt, "reflector")
        wrong = np.asarray(answers) != self._y[items.ids]
        p_flag = np.where(wrong, _sigmoid(q + 0.5), _sigmoid(-q - 1.5))
        return self._uniform(seed, items.ids, 1) < p_flag

    def summarize(self, prompt: PromptConfig, items: ItemSet, seed: int) -> np.ndarray:
        """True where the summary keeps what the question needs."""
        q = self._quality(prompt, "summarizer")
        return self._uniform(seed, items.ids, 1) < _sigmoid(np.full(len(items), q))

    # ------------------------------------------------------------------ the chat path (ChatOps' messages)

    def _chat(self, request: ChatRequest) -> Completion:
        system = request.messages[0].content if request.messages[0].role == "system" else ""
        user = request.last_user_message
        seed = request.seed if request.seed is not None else 0
        demos = tuple(
            Demo(q, a)
            for q, a in re.findall(r"Example question: (.*?)\nExample answer: (.*?)\n\n", user, re.S)
        )
        prompt = PromptConfig(system or "(none)", demos)
        if SUMMARIZE_ASK in user:
            q = user.split(SUMMARIZE_ASK + "\n\n", 1)[1]
            good = bool(self.summarize(prompt, self._one(q), seed)[0])
            return Completion(f"[{'ok' if good else 'lossy'}] summary of {q[:40]}", model=self.model)
        m = re.search(r"Question: (.*)\nOptions:", user)
        if m is None:
            raise LLMError("SimulatedLLM only answers MASS agent requests (no 'Question: ...' line found)")
        items = self._one(m.group(1))
        c = re.search(r"Context summary: (.*)\n", user)
        ctx = None if c is None else np.array([c.group(1).startswith("[ok]")])
        if user.endswith(VERIFY_ASK):
            shown = re.findall(r"Proposed answer: (.)\. " + re.escape(VERIFY_ASK), user)[-1]
            ans = np.array([LETTERS.index(shown) if shown in LETTERS else -1])
            return Completion(
                "WRONG" if self.verify(prompt, items, ans, seed, ctx)[0] else "CORRECT", model=self.model
            )
        exclude = peers = reason = None
        if (r := re.search(r"judged your previous answer \((.)\) wrong", user)) is not None:
            exclude, reason = np.array([LETTERS.index(r.group(1))]), "reflect"
        elif (r := re.search(r"Your previous answer \((.)\) failed the tests", user)) is not None:
            exclude, reason = np.array([LETTERS.index(r.group(1))]), "tests"
        elif (r := re.search(r"Other agents answered: (.*?)\. Considering", user)) is not None:
            peers = np.array([[LETTERS.index(s) if s in LETTERS else -1 for s in r.group(1).split(", ")]])
            reason = "debate"
        k = int(self.answer(prompt, items, seed, ctx, exclude, peers, reason)[0])
        return Completion(f"Answer: {LETTERS[k]}", model=self.model)

    def _one(self, question: str) -> ItemSet:
        if question not in self._item_of:
            raise LLMError(f"SimulatedLLM knows no item {question[:80]!r}")
        x = self._item_of[question]
        return ItemSet(
            np.array([x]),
            (question,),
            (("",) * self.n_options,),
            self._y[[x]],
            self._long[[x]],
            self._code[[x]],
        )
