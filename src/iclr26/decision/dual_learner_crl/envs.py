"""A gridworld task family with image observations, the CPU stand-in for MinAtar in the FAME reproduction.

A task is a wall layout plus a goal cell on a 7 x 7 board (border walls). Observations are 3 x 7 x 7 float
images with channels (walls, goal, agent), so one CNN reads every task and the goal is visible: one policy can in
principle solve all tasks, as in MinAtar where games look different. Four move actions (up, down, left, right);
reward +1 on reaching the goal (the episode terminates) and ``-step_penalty`` on every other step; episodes are
truncated after ``max_steps``. The start cell is uniform over free non-goal cells.

Normalization (:meth:`GridTasks.normalize`): per task the expected return of a uniform random policy maps to 0
and that of a shortest-path oracle (exact, from BFS distances) maps to 1.
"""

from __future__ import annotations

from collections import deque

import gymnasium as gym
import numpy as np

from iclr26.checks import check_float, check_int

__all__ = ["LAYOUTS", "GridTasks", "greedy_returns"]

# '#' wall, 'G' goal, '.' free. Four distinct layouts A-D with distinct goals.
LAYOUTS: dict[str, tuple[str, ...]] = {
    "A": ("#######", "#....G#", "#.###.#", "#.....#", "#.#.#.#", "#.....#", "#######"),
    "B": ("#######", "#.....#", "#.#.#.#", "#.....#", "###.###", "#G....#", "#######"),
    "C": ("#######", "#.....#", "#.##..#", "#..#G.#", "#..##.#", "#.....#", "#######"),
    "D": ("#######", "#G..#.#", "#.#...#", "#.#.#.#", "#...#.#", "#.#...#", "#######"),
}
MOVES = np.array([[-1, 0], [1, 0], [0, -1], [0, 1]])  # up, down, left, right


def _parse(rows: tuple[str, ...], name: str = "rows") -> tuple[np.ndarray, tuple[int, int]]:
    if (
        isinstance(rows, str)
        or not isinstance(rows, (tuple, list))
        or not all(isinstance(r, str) for r in rows)
    ):
        raise ValueError(f"{name} must be a tuple of equal-length strings of '#', '.' and 'G', got {rows!r}")
    if len(rows) < 3 or len({len(r) for r in rows}) != 1 or len(rows[0]) < 3:
        raise ValueError(f"{name} must be at least 3 equal-length rows of at least 3 cells, got {rows!r}")
    if set("".join(rows)) - set("#.G") or "".join(rows).count("G") != 1:
        raise ValueError(f"{name} must hold only '#', '.' and exactly one 'G', got {rows!r}")
    if set(rows[0] + rows[-1] + "".join(r[0] + r[-1] for r in rows)) != {"#"}:
        raise ValueError(f"{name} must be enclosed by border walls '#', got {rows!r}")
    walls = np.array([[c == "#" for c in r] for r in rows], dtype=bool)
    goal = next((i, j) for i, r in enumerate(rows) for j, c in enumerate(r) if c == "G")
    return walls, goal


def _distances(walls: np.ndarray, goal: tuple[int, int]) -> np.ndarray:
    """BFS steps from every cell to the goal (inf for walls / unreachable)."""
    dist = np.full(walls.shape, np.inf)
    dist[goal] = 0
    queue = deque([goal])
    while queue:
        i, j = queue.popleft()
        for di, dj in MOVES:
            a, b = i + di, j + dj
            if not walls[a, b] and dist[a, b] == np.inf:
                dist[a, b] = dist[i, j] + 1
                queue.append((a, b))
    return dist


class GridTasks(gym.Env):
    """Gymnasium environment over a pool of gridworld tasks; :meth:`set_task` switches the active task.

    Parameters
    ----------
    layouts : names of :data:`LAYOUTS` or ``{name: rows}`` (all boards the same size), default A-D.
    max_steps : episode truncation length.
    step_penalty : reward of a non-goal step is ``-step_penalty``.
    seed : seeds the start-cell stream (``reset(seed=...)`` re-seeds it).

    Every finished training episode is appended to :attr:`episode_log` as ``(env_step, task, return)``;
    :attr:`total_steps` counts all steps taken. Example:

    >>> env = GridTasks(seed=0)
    >>> env.set_task("A")
    >>> obs, _ = env.reset()
    >>> obs.shape
    (3, 7, 7)
    """

    metadata: dict = {"render_modes": []}

    def __init__(
        self,
        layouts: tuple[str, ...] | dict[str, tuple[str, ...]] = ("A", "B", "C", "D"),
        max_steps: int = 50,
        step_penalty: float = 0.01,
        seed: int = 0,
    ) -> None:
        if isinstance(layouts, str) or layouts is None:
            raise ValueError(
                f"layouts must be a tuple of names from {sorted(LAYOUTS)} or a dict of rows, got {layouts!r}"
            )
        if not isinstance(layouts, dict):
            unknown = [k for k in layouts if k not in LAYOUTS]
            if unknown:
                raise ValueError(
                    f"layouts must be names from {sorted(LAYOUTS)} or a dict of rows, got {unknown}"
                )
        rows = {k: LAYOUTS[k] for k in layouts} if not isinstance(layouts, dict) else dict(layouts)
        if not rows:
            raise ValueError("layouts must name at least one task")
        check_int("max_steps", max_steps, low=1)
        check_float("step_penalty", step_penalty, low=0.0)
        check_int("seed", seed, low=0)
        self.tasks: dict[str, tuple[np.ndarray, tuple[int, int]]] = {
            k: _parse(v, f"layouts[{k!r}]") for k, v in rows.items()
        }
        shapes = {w.shape for w, _ in self.tasks.values()}
        if len(shapes) != 1:
            raise ValueError(f"layouts must share one board size, got {sorted(shapes)}")
        self.size = shapes.pop()
        self.max_steps, self.step_penalty = max_steps, float(step_penalty)
        self.observation_space = gym.spaces.Box(0.0, 1.0, (3, *self.size), np.float32)
        self.action_space = gym.spaces.Discrete(4)
        self.rng = np.random.default_rng(seed)
        self.dist = {k: _distances(w, g) for k, (w, g) in self.tasks.items()}
        self.task = next(iter(self.tasks))
        self.pos = np.zeros(2, dtype=int)
        self.t = 0
        self.ret = 0.0
        self.total_steps = 0
        self.episode_log: list[tuple[int, str, float]] = []

    def set_task(self, task: str) -> None:
        """Make `task` the active task (call :meth:`reset` next)."""
        self.task = self._task(task)

    def _task(self, task: str | None) -> str:
        """`task`, or the active task when it is None (or empty), checked to be one of :attr:`tasks`."""
        task = task or self.task
        if not isinstance(task, str) or task not in self.tasks:
            raise ValueError(f"task must be one of {sorted(self.tasks)}, got {task!r}")
        return task

    def _check_pos(self, pos: np.ndarray) -> np.ndarray:
        """`pos` as an (n, 2) integer array of cells on the board."""
        pos = np.atleast_2d(pos)
        if pos.ndim != 2 or pos.shape[1] != 2:
            raise ValueError(f"pos must have shape (n, 2), got {pos.shape}")
        if not np.issubdtype(pos.dtype, np.integer):
            raise TypeError(f"pos must hold integer cell indices, got dtype {pos.dtype}")
        if pos.size and (pos.min() < 0 or np.any(pos >= np.array(self.size))):
            raise ValueError(f"pos must lie on the {self.size[0]} x {self.size[1]} board, got {pos.tolist()}")
        return pos

    def start_cells(self, task: str | None = None) -> np.ndarray:
        """Free non-goal cells of `task` (default: the active one), shape (n, 2)."""
        walls, goal = self.tasks[self._task(task)]
        free = np.argwhere(~walls)
        return free[~np.all(free == np.array(goal), axis=1)]

    def observe(self, pos: np.ndarray, task: str | None = None) -> np.ndarray:
        """Images (n, 3, H, W) for agent positions `pos` (n, 2) on `task`."""
        walls, goal = self.tasks[self._task(task)]
        return self._observe(walls, goal, self._check_pos(pos))

    def _observe(self, walls: np.ndarray, goal: tuple[int, int], pos: np.ndarray) -> np.ndarray:
        """:meth:`observe` for an already checked (n, 2) `pos`."""
        obs = np.zeros((len(pos), 3, *self.size), dtype=np.float32)
        obs[:, 0] = walls
        obs[:, 1, goal[0], goal[1]] = 1.0
        obs[np.arange(len(pos)), 2, pos[:, 0], pos[:, 1]] = 1.0
        return obs

    def move(
        self, pos: np.ndarray, actions: np.ndarray, task: str | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Vectorized transition: new positions and goal-reached flags for (n, 2) `pos` and (n,) `actions`."""
        walls, goal = self.tasks[self._task(task)]
        pos = self._check_pos(pos)
        actions = np.asarray(actions)
        if actions.shape != (len(pos),) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(
                f"actions must be {len(pos)} integer actions (one per position), "
                f"got shape {actions.shape} of {actions.dtype}"
            )
        if actions.size and (actions.min() < 0 or actions.max() > 3):
            raise ValueError(f"actions must lie in [0, 4), got {actions.tolist()}")
        return self._move(walls, goal, pos, actions)

    @staticmethod
    def _move(
        walls: np.ndarray, goal: tuple[int, int], pos: np.ndarray, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`move` for an already checked (n, 2) `pos` and (n,) `actions`."""
        new = pos + MOVES[actions]
        blocked = walls[new[:, 0], new[:, 1]]
        new[blocked] = pos[blocked]
        return new, np.all(new == np.array(goal), axis=1)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        if seed is not None:
            check_int("seed", seed, low=0)
            self.rng = np.random.default_rng(seed)
        cells = self.start_cells()
        self.pos = cells[self.rng.integers(len(cells))].copy()
        self.t, self.ret = 0, 0.0
        walls, goal = self.tasks[self.task]
        return self._observe(walls, goal, self.pos[None])[0], {}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        action = check_int("action (in [0, 4))", action, 0, 3)
        walls, goal = self.tasks[self.task]
        new, done = self._move(walls, goal, self.pos[None], np.array([action]))
        self.pos = new[0]
        self.t += 1
        self.total_steps += 1
        terminated = bool(done[0])
        reward = 1.0 if terminated else -self.step_penalty
        self.ret += reward
        truncated = not terminated and self.t >= self.max_steps
        if terminated or truncated:
            self.episode_log.append((self.total_steps, self.task, self.ret))
        return self._observe(walls, goal, self.pos[None])[0], reward, terminated, truncated, {}

    def oracle_actions(self, pos: np.ndarray, task: str | None = None) -> np.ndarray:
        """Boolean (n, 4) mask of the shortest-path actions at positions `pos`."""
        dist = self.dist[self._task(task)]
        pos = self._check_pos(pos)
        here = dist[pos[:, 0], pos[:, 1]]
        nxt = pos[:, None, :] + MOVES[None]
        return dist[nxt[..., 0], nxt[..., 1]] == here[:, None] - 1

    def oracle_return(self, task: str | None = None) -> float:
        """Expected return of the shortest-path policy from a uniform start cell (exact)."""
        cells = self.start_cells(task)
        d = self.dist[self._task(task)][cells[:, 0], cells[:, 1]]
        return float(np.mean(1.0 - self.step_penalty * (d - 1)))

    def random_return(self, task: str | None = None, episodes: int = 2000, seed: int = 12345) -> float:
        """Monte Carlo expected return of the uniform random policy (fixed seed, cached)."""
        task = self._task(task)
        check_int("episodes", episodes, low=1)
        check_int("seed", seed, low=0)
        key = (task, episodes, seed)
        cache = self.__dict__.setdefault("_random_cache", {})
        if key not in cache:
            rng = np.random.default_rng(seed)
            returns = greedy_returns(
                self, task, lambda obs: rng.integers(0, 4, size=len(obs)), episodes, seed=seed
            )
            cache[key] = float(np.mean(returns))
        return cache[key]

    def normalize(self, task: str, value: float | np.ndarray) -> float | np.ndarray:
        """Map a return of `task` so that the random policy gives 0 and the oracle gives 1."""
        lo, hi = self.random_return(self._task(task)), self.oracle_return(task)
        if not np.all(np.isfinite(value)):
            raise ValueError(f"value (a return of task {task!r}) must be finite, got {value!r}")
        return (np.asarray(value) - lo) / (hi - lo)


def greedy_returns(env: GridTasks, task: str, policy, episodes: int, seed: int) -> np.ndarray:
    """Returns of `episodes` parallel episodes of ``policy(obs (n, 3, H, W)) -> actions (n,)`` on `task`.

    Start cells come from ``seed`` (separate from the training stream); the env's own state is not touched.
    """
    if not isinstance(env, GridTasks):
        raise TypeError(f"env must be a GridTasks, got {type(env).__name__}")
    check_int("episodes", episodes, low=1)
    rng = np.random.default_rng(check_int("seed", seed, low=0))
    cells = env.start_cells(task)
    pos = cells[rng.integers(len(cells), size=episodes)].copy()
    returns = np.zeros(episodes)
    live = np.ones(episodes, dtype=bool)
    for _ in range(env.max_steps):
        idx = np.flatnonzero(live)
        if idx.size == 0:
            break
        actions = np.asarray(policy(env.observe(pos[idx], task)))
        new, done = env.move(pos[idx], actions, task)
        pos[idx] = new
        returns[idx] += np.where(done, 1.0, -env.step_penalty)
        live[idx[done]] = False
    return returns
