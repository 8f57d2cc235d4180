"""Running a learner through a task sequence, and the continual-RL metrics of the FAME paper (arXiv 2603.00903).

Metrics (Anand & Precup protocol, as in the paper's code, on returns normalized per task: random 0, oracle 1):

* running performance at each env step: mean normalized return of the last ``window`` finished episodes of the
  current task (0 before the first one); average performance = its mean over all steps of the sequence;
* forward transfer of task position k: ``(AUC_method - AUC_reset) / (1 - AUC_reset)``, AUC = mean running
  performance within the task;
* forgetting of position k < K: greedy evaluation on task k at the end of task k minus at the end of the sequence;
* catastrophic forgetting between two policies (the paper's definition, used in tests):
  ``CF = sum_s mu_old(s) d(pi_new(.|s), pi_old(.|s))`` with the OLD policy's occupancy ``mu_old``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from iclr26.checks import check_array, check_float, check_int
from iclr26.decision.dual_learner_crl.agents import Finetune, Transition
from iclr26.decision.dual_learner_crl.envs import GridTasks, greedy_returns
from iclr26.decision.dual_learner_crl.fame import FAME, check_sequence

__all__ = [
    "catastrophic_forgetting",
    "forgetting",
    "forward_transfer",
    "meta_accuracy",
    "run_sequence",
    "running_performance",
    "wilson_interval",
]


def _real_array(name: str, x: object) -> np.ndarray:
    """`x` as a float array; a complex, text or missing value is an error naming `name`."""
    if x is None or isinstance(x, (str, bytes)) or np.iscomplexobj(x):
        raise TypeError(f"{name} must be a real numeric array, got {type(x).__name__}")
    try:
        return np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real numeric array, got {x!r}") from None


def catastrophic_forgetting(
    mu_old: np.ndarray, pi_old: np.ndarray, pi_new: np.ndarray, divergence: str = "tv"
) -> float:
    """``sum_s mu_old(s) d(pi_new(.|s), pi_old(.|s))`` for tabular policies (S, A) and occupancy (S,).

    ``divergence``: ``"tv"`` (total variation) or ``"kl"`` (``KL(pi_old || pi_new)``).
    """
    mu_old, pi_old, pi_new = (
        _real_array(name, x) for name, x in (("mu_old", mu_old), ("pi_old", pi_old), ("pi_new", pi_new))
    )
    if pi_old.ndim != 2:
        raise ValueError(f"pi_old must be a tabular policy (S, A), got shape {pi_old.shape}")
    if pi_new.shape != pi_old.shape:
        raise ValueError(f"pi_new must have the shape of pi_old {pi_old.shape}, got {pi_new.shape}")
    if mu_old.shape != pi_old.shape[:1]:
        raise ValueError(
            f"mu_old must be (S,) and the policies (S, A), got {mu_old.shape}, {pi_old.shape}, {pi_new.shape}"
        )
    if np.any(mu_old < 0) or not np.isclose(mu_old.sum(), 1.0):
        raise ValueError("mu_old must be a probability distribution over states")
    for name, pi in (("pi_old", pi_old), ("pi_new", pi_new)):
        if not np.all(pi >= 0) or not np.allclose(pi.sum(1), 1.0):
            raise ValueError(f"{name} must hold one probability distribution over actions per state (row)")
    if divergence == "tv":
        d = 0.5 * np.abs(pi_new - pi_old).sum(1)
    elif divergence == "kl":
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(pi_old > 0, pi_old * (np.log(pi_old) - np.log(pi_new)), 0.0)
        d = terms.sum(1)
    else:
        raise ValueError(f"divergence must be 'tv' or 'kl', got {divergence!r}")
    return float(mu_old @ d)


def running_performance(
    episodes: Sequence[tuple[int, int, float]], n_steps: int, switch: int, window: int = 10
) -> np.ndarray:
    """Per-step running performance from ``(env_step, task_position, normalized_return)`` episode ends."""
    check_int("n_steps", n_steps, low=0)
    check_int("switch", switch, low=1)
    check_int("window", window, low=1)
    n_positions = -(-n_steps // switch)
    for step, pos, r in episodes:
        check_int("episode step", step)
        check_int(
            f"episode task_position (n_steps / switch = {n_steps / switch:g} tasks)", pos, 0, n_positions - 1
        )
        check_float("episode normalized_return", r)
    perf = np.zeros(n_steps)
    by_pos: dict[int, list[tuple[int, float]]] = {}
    for step, pos, r in episodes:
        by_pos.setdefault(pos, []).append((step, r))
    for pos, eps in by_pos.items():
        start = pos * switch
        vals: list[float] = []
        cur, last = 0.0, start
        for step, r in sorted(eps):
            s = min(max(step, start), start + switch)
            perf[last:s] = cur
            vals.append(r)
            cur = float(np.mean(vals[-window:]))
            last = s
        perf[last : start + switch] = cur
    return perf


def forward_transfer(auc_method: np.ndarray, auc_reset: np.ndarray, floor: float = 0.05) -> np.ndarray:
    """``(AUC_method - AUC_reset) / max(1 - AUC_reset, floor)`` per task (the floor avoids dividing by ~0)."""
    auc_method, auc_reset = check_array("auc_method", auc_method), check_array("auc_reset", auc_reset)
    if auc_method.shape != auc_reset.shape:
        raise ValueError(
            f"auc_method and auc_reset must have one shape, got {auc_method.shape} and {auc_reset.shape}"
        )
    if not (np.all(np.isfinite(auc_method)) and np.all(np.isfinite(auc_reset))):
        raise ValueError("auc_method and auc_reset must be finite (no NaN or inf)")
    check_float("floor", floor, low=0.0, low_open=True)
    return (auc_method - auc_reset) / np.maximum(1.0 - auc_reset, floor)


def wilson_interval(successes: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (``(nan, nan)`` when n = 0)."""
    check_int("n", n, low=0)
    check_int("successes", successes, low=0)
    check_float("z", z, low=0.0, low_open=True)
    if not successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
    if n == 0:
        return float("nan"), float("nan")
    p = successes / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return float(mid - half), float(mid + half)


def meta_accuracy(env: GridTasks, task: str, policy: Callable[[np.ndarray], np.ndarray]) -> float:
    """Fraction of start cells of `task` where ``policy`` picks a shortest-path action."""
    cells = env.start_cells(task)
    actions = np.asarray(policy(env.observe(cells, task)))
    if actions.shape != (len(cells),) or not np.issubdtype(actions.dtype, np.integer):
        raise ValueError(
            f"policy must return {len(cells)} integer actions (one per start cell), "
            f"got shape {actions.shape} of {actions.dtype}"
        )
    if actions.min() < 0 or actions.max() > 3:
        raise ValueError(f"policy actions must lie in [0, 4), got {actions.tolist()}")
    return float(env.oracle_actions(cells, task)[np.arange(len(cells)), actions].mean())


def _evaluate(env: GridTasks, task: str, policy, episodes: int, seed: int) -> float:
    return float(np.mean(env.normalize(task, greedy_returns(env, task, policy, episodes, seed))))


def run_sequence(
    agent: Finetune,
    env: GridTasks,
    sequence: Sequence[str],
    switch: int,
    eval_episodes: int = 20,
    eval_seed: int = 10_000,
    window: int = 10,
    progress: Callable[[int], None] | None = None,
) -> dict:
    """Train `agent` on `sequence` (``switch`` env steps per task, detection included) and measure it.

    Returns a dict with ``perf`` (running normalized performance per step), ``auc`` per position,
    ``eval_end_of_task`` (greedy score on task k after task k), ``eval_final`` (per unique task at the end; FAME:
    the meta learner), ``meta_acc`` (FAME: oracle-action agreement of pi^M on each task after each task), and
    FAME's ``decisions``.
    """
    if not isinstance(agent, Finetune):
        raise TypeError(f"agent must be a learner such as Finetune or FAME, got {type(agent).__name__}")
    if not isinstance(env, GridTasks):
        raise TypeError(f"env must be a GridTasks, got {type(env).__name__}")
    check_sequence(env, sequence, agent.obs_shape, agent.n_actions)
    check_int("switch", switch, low=1)
    check_int("eval_episodes", eval_episodes, low=1)
    check_int("eval_seed", eval_seed, low=0)
    check_int("window", window, low=1)
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be None or a callable, got {progress!r}")
    env.episode_log.clear()
    env.total_steps = 0
    episodes: list[tuple[int, int, float]] = []
    end_of_task, meta_acc = [], []
    uniques = list(dict.fromkeys(sequence))
    for k, task in enumerate(sequence):
        env.set_task(task)
        start = k * switch
        env.total_steps = start
        n_log = len(env.episode_log)
        agent.on_task_start(env, task)
        obs, _ = env.reset()
        while env.total_steps < start + switch:
            a = agent.act(obs)
            nxt, r, term, trunc, _ = env.step(a)
            agent.observe(Transition(obs, a, r, nxt, term, trunc))
            obs = env.reset()[0] if (term or trunc) else nxt
        agent.on_task_end()
        episodes += [(s - 1, k, float(env.normalize(task, r))) for s, _, r in env.episode_log[n_log:]]
        end_of_task.append(_evaluate(env, task, agent.greedy, eval_episodes, eval_seed + k))
        if isinstance(agent, FAME):
            meta_acc.append([meta_accuracy(env, t, agent.meta_greedy) for t in uniques])
        if progress is not None:
            progress(k)
    final_policy = agent.meta_greedy if isinstance(agent, FAME) else agent.greedy
    final = {
        t: _evaluate(env, t, final_policy, eval_episodes, eval_seed + 100 + i) for i, t in enumerate(uniques)
    }
    perf = running_performance(episodes, len(sequence) * switch, switch, window)
    auc = perf.reshape(len(sequence), switch).mean(1)
    return {
        "perf": perf,
        "auc": auc,
        "eval_end_of_task": np.array(end_of_task),
        "eval_final": final,
        "meta_acc": np.array(meta_acc),
        "decisions": list(getattr(agent, "decisions", [])),
        "n_updates": agent.n_updates,
    }


def forgetting(result: dict, sequence: Sequence[str]) -> float:
    """Mean over positions k < K of (end-of-task-k score on task k) - (end-of-sequence score on task k)."""
    if isinstance(sequence, str) or len(sequence) < 2:
        raise ValueError(f"sequence must hold at least 2 tasks to measure forgetting, got {sequence!r}")
    if len(result["eval_end_of_task"]) != len(sequence) or not set(sequence) <= set(result["eval_final"]):
        raise ValueError(
            f"result must come from run_sequence on this sequence: {len(result['eval_end_of_task'])} end-of-task "
            f"scores and final scores for {sorted(result['eval_final'])}, sequence {tuple(sequence)}"
        )
    vals = [result["eval_end_of_task"][k] - result["eval_final"][t] for k, t in enumerate(sequence[:-1])]
    return float(np.mean(vals))
