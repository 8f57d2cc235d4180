"""Persuasion with language models: an LLM sender writes, an LLM receiver reports its belief, and acts on it.

Paper: "Towards Strategic Persuasion with Language Models" (Cheng, You; ICLR 2026, arXiv 2509.22989). In the
paper a sender LLM that knows the state writes messages to a frozen receiver LLM, in one turn ("static") or
several ("dynamic"), and the persuasion gain is Delta = v_hat(mu) - v_hat(mu0). The paper's prompts and belief
elicitation were not available; this environment is our version:

* the receiver is told the states, the common prior and its own utilities, never the true state; after each
  sender message it answers and ends with a line ``BELIEF: <state>=<probability>, ...``;
* the sender is told the true state, the receiver's utilities and its own, and writes the messages;
* the receiver's belief is parsed from its last reply (:func:`parse_belief`; a reply without one leaves the
  belief at the prior, and ``info["parsed"]`` says so), the action is the best response to that belief under
  the game's receiver utility, and the reward is the offline environment's, v(a, omega) - v_hat(mu0).

Both sides are :class:`~iclr26.lab.llm.LLMBackend` objects: scripted offline (the tested default), an
OpenAI-compatible server, or a local Hugging Face model.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from iclr26.agents.bayesian_persuasion.env import sample_index
from iclr26.agents.bayesian_persuasion.game import Game, as_generator
from iclr26.checks import check_float, check_int
from iclr26.lab.llm import LLMBackend, Message

__all__ = ["LLMPersuasionEnv", "parse_belief"]

_NUMBER = r"([0-9]*\.?[0-9]+)\s*(%?)"


def parse_belief(text: str, states: tuple[str, ...] | list[str]) -> np.ndarray | None:
    """The belief in the last ``BELIEF:`` line of `text`, as a distribution over `states`, or None.

    Accepts ``state=p`` / ``state: p`` pairs (any order, names case-insensitive) or, failing that, exactly
    one number per state in order; percentages (a ``%`` sign, or numbers summing to about 100) are rescaled.

    Examples
    --------
    >>> parse_belief("I lean guilty.\\nBELIEF: innocent=40%, guilty=60%", ("innocent", "guilty")).tolist()
    [0.4, 0.6]
    >>> parse_belief("no idea", ("innocent", "guilty")) is None
    True
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a str, got {type(text).__name__}")
    lines = [m.group(1) for m in re.finditer(r"belief\s*[:=]\s*(.*)", text, flags=re.IGNORECASE)]
    if not lines:
        return None
    line = lines[-1]
    values, percent = [], False
    for name in states:
        found = re.search(re.escape(name.lower()) + r"\s*[:=]\s*" + _NUMBER, line.lower())
        if found is None:
            break
        values.append(float(found.group(1)))
        percent |= found.group(2) == "%"
    if len(values) != len(states):
        numbers = re.findall(_NUMBER, line)
        if len(numbers) != len(states):
            return None
        values = [float(n) for n, _ in numbers]
        percent = any(p == "%" for _, p in numbers)
    arr = np.array(values, dtype=float)
    if percent or 1.5 < arr.sum() <= 100.5:
        arr = arr / 100.0
    if not np.all(np.isfinite(arr)) or arr.sum() <= 0:
        return None
    return arr / arr.sum()


def _table(game: Game, util: np.ndarray) -> str:
    rows = [f"- if you choose '{a}': " + ", ".join(
        f"{util[i, j]:.3g} when the truth is '{s}'" for j, s in enumerate(game.states)
    ) for i, a in enumerate(game.actions)]  # fmt: skip
    return "\n".join(rows)


class LLMPersuasionEnv:
    """Episodes of LLM-to-LLM persuasion on a :class:`Game` (gymnasium-style ``reset`` / ``step``).

    Parameters
    ----------
    game : the game: its states, prior, utilities and the names of states and actions.
    sender, receiver : the two chat backends.
    topic : one sentence of context given to both (``"A court case."``).
    turns : sender messages per episode (1: the paper's static setting; more: dynamic).
    max_tokens, temperature : passed to both backends.
    seed : seeds the state draws.

    Examples
    --------
    >>> from iclr26.agents.bayesian_persuasion import prosecutor
    >>> from iclr26.lab.llm import ScriptedBackend
    >>> env = LLMPersuasionEnv(prosecutor(), ScriptedBackend(["The evidence is strong."]),
    ...                        ScriptedBackend(["Convincing.\\nBELIEF: innocent=0.4, guilty=0.6"]), seed=0)
    >>> state, _ = env.reset()
    >>> _, reward, done, _, info = env.step()
    >>> info["receiver_action"], reward, info["belief"].tolist()
    ('convict', 1.0, [0.4, 0.6])
    """

    def __init__(
        self,
        game: Game,
        sender: LLMBackend,
        receiver: LLMBackend,
        *,
        topic: str = "",
        turns: int = 1,
        max_tokens: int = 256,
        temperature: float = 0.0,
        seed: int | None = None,
    ) -> None:
        if not isinstance(game, Game):
            raise TypeError(f"game must be a Game, got {type(game).__name__}")
        for name, backend in (("sender", sender), ("receiver", receiver)):
            if not isinstance(backend, LLMBackend):
                raise TypeError(f"{name} must be an LLMBackend, got {type(backend).__name__}")
        if not isinstance(topic, str):
            raise ValueError(f"topic must be a str, got {type(topic).__name__}")
        self.game, self.sender, self.receiver, self.topic = game, sender, receiver, topic
        self.turns = check_int("turns", turns, low=1)
        self.max_tokens = check_int("max_tokens", max_tokens, low=1)
        self.temperature = check_float("temperature", temperature, 0.0)
        self.v0 = game.v_hat(game.prior)
        self._rng = as_generator(seed, "seed")
        self._state: int | None = None

    # ---------------------------------------------------------------------------------------------- prompts
    def _common(self) -> str:
        g = self.game
        prior = ", ".join(f"'{s}' {p:.3g}" for s, p in zip(g.states, g.prior))
        return (
            (self.topic + "\n" if self.topic else "")
            + f"The truth is one of: {', '.join(repr(s) for s in g.states)}; the common prior is {prior}.\n"
            + f"The decision maker chooses one of: {', '.join(repr(a) for a in g.actions)}. Its payoffs:\n"
            + _table(g, g.u_receiver)
        )

    def receiver_system_prompt(self) -> str:
        states = ", ".join(f"{s}=<probability>" for s in self.game.states)
        return (
            "You are the decision maker. You do not know the truth; an advocate who knows it will write to you. "
            "The advocate may be selective or misleading.\n"
            + self._common()
            + "\nAfter each message, reply briefly and end with one line exactly of the form\n"
            + f"BELIEF: {states}"
        )

    def sender_system_prompt(self, state: int) -> str:
        g = self.game
        return (
            "You are an advocate writing to a decision maker, who will act on what it comes to believe.\n"
            + self._common()
            + f"\nYou know the truth: '{g.states[state]}'. Your own payoffs:\n"
            + _table(g, g.v_sender)
            + "\nWrite a short message to the decision maker."
        )

    # ---------------------------------------------------------------------------------------------- episodes
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[int, dict]:
        if seed is not None:
            self._rng = as_generator(seed, "seed")
        self._state = int(sample_index(self.game.prior, self._rng))
        return self._state, {"state": self.game.states[self._state]}

    def step(self, message: str | None = None) -> tuple[int, float, bool, bool, dict[str, Any]]:
        """Play the episode: `turns` sender messages (the first one may be given), each answered by the receiver."""
        if self._state is None:
            raise RuntimeError("call reset() before step(): the episode has ended or never started")
        if message is not None and not isinstance(message, str):
            raise ValueError(f"message must be None or a str, got {type(message).__name__}")
        omega, self._state = self._state, None
        kw = {"max_tokens": self.max_tokens, "temperature": self.temperature}
        to_sender = [Message("system", self.sender_system_prompt(omega))]
        to_receiver = [Message("system", self.receiver_system_prompt())]
        transcript, beliefs, parsed = [], [], False
        belief = self.game.prior.copy()
        for turn in range(self.turns):
            prompt = Message("user", "Write your message." if turn == 0 else "Write your next message.")
            if turn == 0 and message is not None:
                text = message
            else:
                text = self.sender.chat([*to_sender, prompt], **kw).text.strip()
            to_sender += [prompt, Message("assistant", text)]
            to_receiver.append(Message("user", f"Message from the advocate: {text}"))
            reply = self.receiver.chat(to_receiver, **kw).text.strip()
            to_receiver.append(Message("assistant", reply))
            to_sender.append(Message("user", f"The decision maker replied: {reply}"))
            transcript.append({"sender": text, "receiver": reply})
            found = parse_belief(reply, self.game.states)
            if found is not None:
                belief, parsed = found, True
            beliefs.append(belief.tolist())
        a = self.game.best_response(belief)
        reward = float(self.game.v_sender[a, omega] - self.v0)
        info = {
            "state": self.game.states[omega],
            "belief": belief,
            "beliefs": beliefs,
            "parsed": parsed,
            "action": a,
            "receiver_action": self.game.actions[a],
            "gain": self.game.v_hat(belief) - self.v0,  # the paper's Delta = v_hat(mu) - v_hat(mu0)
            "transcript": transcript,
        }
        return omega, reward, True, False, info

    def run_episodes(self, n: int, seed: int | None = None) -> list[dict[str, Any]]:
        """`n` episodes; each info dict carries its ``reward`` (a backend's LLMError propagates)."""
        n = check_int("n", n, low=1)
        if seed is not None:
            self._rng = as_generator(seed, "seed")
        out = []
        for _ in range(n):
            self.reset()
            _, reward, _, _, info = self.step()
            out.append({**info, "reward": reward})
        return out
