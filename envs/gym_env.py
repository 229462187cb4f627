"""Gymnasium front of the functional environments: a single env and a native vector env.

Both run the same jitted, vmapped program (:func:`cuegym.functional.batched`): the single
env is a batch of one, so a sub-env of a vector env and the single env with the same seed
give the same bytes (DESIGN.md §7). Seeds: sub-env ``i`` of a vector env seeded ``s`` and
the single env seeded ``s + i`` draw from the same key stream.

Gymnasium's own ``FunctionalJaxVectorEnv`` (1.x) autoresets with ``state.at[idx].set``,
which needs the state to be one array; our state is a pytree, so the vector env here does
the next-step autoreset inside the jitted step instead.

Opponents (``opponent=``): ``None`` — the agent plays every turn, ``info["to_play"]`` says
whose turn is next and the reward is the acting player's. ``"random"``, ``"ghost"`` or a
callable — the agent is always player 0; after the agent's decision the env plays player
1's decisions (strokes, lag strokes, Moscow removals) inside ``step`` until it is player 0's
turn again or the frame ends, and the reward is player 0's total over all of them;
``info["opponent_strokes"]`` counts player 1's decisions played. The built-in opponents run
inside the compiled step (:func:`cuegym.functional.opponent_action`) from the env's own key
stream, so they are deterministic per seed. A callable is called from Python between
compiled steps with the observation (player 1 to play) and returns an action: ``f(obs) ->
action`` for the single env; in the vector env ``f(obs_batch) -> action_batch`` over all
sub-envs (only those where player 1 is to play use it). When player 1 opens a frame (it
breaks; in a lag player 0 always plays first), its decisions are played inside ``reset()``
(or the autoreset step) and their reward for player 0 is added to the frame's
first step, so an episode's return is player 0's final score difference × ``reward_scale``.
A frame that the opponent wins before player 0 has played is discarded and a new one dealt.
At most :data:`MAX_OPPONENT_CALLS` compiled steps are run per ``step``/``reset``; since a
frame truncates at ``max_shots`` decisions, the cap is only reached if more than that many
frames are dealt and discarded, and the step then returns with player 1 to play.
"""

from __future__ import annotations

import gymnasium as gym
import jax
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from . import functional as F
from . import render as R
from .physics import POCKETS, get_table
from .rules.base import PHASE_NAMES, clause_ids

INT_FIELDS = ("cue_ball", "ball", "pocket", "choice")
MAX_OPPONENT_CALLS = 1000
# "human" opens a window (cuegym.render.Viewer): offered only where a display exists, so
# that asking for it on a headless machine fails at construction with a clear message
RENDER_MODES = ["rgb_array", "human"] if R._has_display() else ["rgb_array"]
RENDER_WIDTH = 480  # px


def action_space(env: F.FuncEnv) -> spaces.Dict:
    n = env.n_balls
    spec = env.spec
    return spaces.Dict({
        "shot": spaces.Box(F.SHOT_LOW.astype(np.float32), F.SHOT_HIGH.astype(np.float32), dtype=np.float32),
        "place": spaces.Box(np.zeros(2, np.float32), np.array([spec.width, spec.length], np.float32), dtype=np.float32),
        "cue_ball": spaces.Discrete(n),
        "ball": spaces.Discrete(n),
        "pocket": spaces.Discrete(len(POCKETS)),
        "choice": spaces.Discrete(n),
    })


def observation_space(env: F.FuncEnv) -> spaces.Dict:
    n = env.n_balls
    spec = env.spec
    hi = np.broadcast_to(np.array([spec.width, spec.length, 1.0], np.float32), (n, 3))
    cap = F.COUNT_CAP
    return spaces.Dict({
        "balls": spaces.Box(np.zeros((n, 3), np.float32), hi.copy(), dtype=np.float32),
        "phase": spaces.Discrete(len(PHASE_NAMES)),
        "to_play": spaces.Discrete(2),
        "scores": spaces.Box(-1000.0, 1000.0, (2,), np.float32),
        "legal_ball": spaces.MultiBinary(n),
        "legal_cue_ball": spaces.MultiBinary(n),
        "legal_choice": spaces.MultiBinary(n),
        "owner": spaces.Box(-1, 1, (n,), np.int8),
        "debt": spaces.Box(0, cap, (2,), np.int32),
        "foul_run": spaces.Box(0, cap, (), np.int32),
        "sudden_death": spaces.Discrete(2),
    })


def check_action(action, batch: int | None = None, n_balls: int | None = None) -> dict:
    """Convert a Dict action to arrays. Raises ValueError naming the field for a non-dict,
    a wrong shape, NaN or inf, and an integer field outside its range (``n_balls`` given)."""
    if not isinstance(action, dict):
        raise ValueError("action: a dict with keys shot, place, cue_ball, ball, pocket, choice; "
                         f"got {type(action).__name__}")
    unknown = set(action) - {"shot", "place", *INT_FIELDS}
    if unknown:
        raise ValueError(f"action: unknown keys {sorted(unknown)}; "
                         "allowed: shot, place, cue_ball, ball, pocket, choice")
    lead = () if batch is None else (batch,)
    out = {}
    for key, shape in (("shot", (5,)), ("place", (2,))):
        x = np.asarray(action.get(key, np.zeros(lead + shape)), np.float64)
        if x.shape != lead + shape:
            raise ValueError(f"action.{key}: shape {x.shape}, expected {lead + shape}")
        if not np.all(np.isfinite(x)):
            raise ValueError(f"action.{key}: NaN or inf in {x.tolist()}")
        out[key] = x
    for key in INT_FIELDS:
        x = np.asarray(action.get(key, np.zeros(lead, np.int64)))
        if x.shape != lead:
            raise ValueError(f"action.{key}: shape {x.shape}, expected {lead}")
        if not (np.issubdtype(x.dtype, np.integer) or np.all(np.mod(x, 1) == 0)):
            raise ValueError(f"action.{key}: integers expected, got {x.tolist()}")
        hi = len(POCKETS) if key == "pocket" else n_balls
        if hi is not None and np.any((x < 0) | (x >= hi)):
            raise ValueError(f"action.{key}: {x.tolist()} outside 0..{hi - 1}")
        out[key] = x.astype(np.int32)
    return out


def _numpy_obs(obs: dict, space: spaces.Dict, index=None) -> dict:
    """The observation (already on the host) as numpy in the space's dtypes: table ``index``
    of a batch (a single env's observation), or the whole batch when ``index`` is None."""
    out = {}
    for k, sub in space.spaces.items():
        x = obs[k] if index is None else obs[k][index]
        x = np.asarray(x).astype(sub.dtype)
        out[k] = x[()] if isinstance(sub, spaces.Discrete) and x.ndim == 0 else x  # a Discrete reads as np.int64
    return out


def _opponent_code(opponent) -> int:
    if opponent is None or callable(opponent):
        return 0
    if opponent in F.OPPONENT_CODES:
        return F.OPPONENT_CODES[opponent]
    raise ValueError(f"opponent: None, \"random\", \"ghost\" or a callable f(obs) -> action; got {opponent!r}")


class _Tables:
    """The batch of B tables behind both envs: keys, state, the opponent loop."""

    def __init__(self, func: F.FuncEnv, num: int, opponent, single: bool):
        self.func = func
        self.num = num
        self.single = single
        self.opponent = opponent
        self.code = _opponent_code(opponent)
        self.program = F.batched(func)
        self.opts = jax.device_put(F.options(func))
        self.obs_space = observation_space(func)
        self.keys = None
        self.state = None
        self.obs = None  # host copy of the last observation
        self.host = None  # host copy of the fields of the last state (_fetch)
        self.done = np.zeros(num, bool)
        self.pending = np.zeros((num, 2))  # opponent's opening rewards, paid on the frame's first step

    def seed(self, seed: int):
        self.keys = jax.vmap(jax.random.PRNGKey)(np.arange(self.num) + seed)

    def _fetch(self, obs):
        """Copy the observation and the per-table fields the fronts read to the host, in one
        transfer (indexing device arrays one field at a time would dispatch a JAX op each)."""
        s = self.state
        g = s.game
        fields = {"rewards": s.rewards, "terminated": s.terminated, "truncated": s.truncated, "to_play": g.to_play,
                  "phase": g.phase, "scores": g.scores, "winner": g.winner, "acted": s.acted, "foul": s.foul,
                  "clipped": s.clipped, "projected": s.projected, "truncated_shot": s.truncated_shot,
                  "cue_replaced": s.cue_replaced, "clauses": s.clauses, "lag_winner": s.lag_winner}
        self.obs, self.host = jax.device_get((obs, fields))
        h = self.host
        return h["rewards"], h["terminated"], h["truncated"], h["to_play"]

    def reset(self):
        self.state, obs, self.keys = self.program.reset(self.keys, self.opts)
        self.done = np.zeros(self.num, bool)
        self.pending = np.zeros((self.num, 2))
        _, term, trunc, to_play = self._fetch(obs)
        count = np.zeros(self.num, np.int64)
        if self.opponent is not None:
            opening = np.ones(self.num, bool)
            _, count = self._opponent_loop(opening, term | trunc, to_play, np.zeros((self.num, 2)))
        return count

    def step(self, act: dict):
        """The agent's decision on every lane (done lanes reset instead), then the
        opponent's. Returns (per-player rewards (B, 2) of the step, the host fields after the
        agent's decision (:meth:`_fetch`), opponent strokes (B,))."""
        done = self.done
        ones = np.ones(self.num, bool)
        self.state, obs, self.keys = self.program.step(self.state, act, self.keys, done, ones,
                                                       np.zeros(self.num, np.int32), self.opts)
        rewards, term, trunc, to_play = self._fetch(obs)
        agent = self.host
        total = np.where(done[:, None], 0.0, rewards)
        count = np.zeros(self.num, np.int64)
        if self.opponent is not None:
            total = total + np.where(done[:, None], 0.0, self.pending)
            self.pending = np.zeros((self.num, 2))  # paid now (a lane resetting starts a new frame at 0)
            total, count = self._opponent_loop(done.copy(), (term | trunc) & ~done, to_play, total)
        return total, agent, count

    def _opponent_loop(self, opening, ended, to_play, total):
        """Play player 1's decisions until player 0 is to play or the frame ends. Lanes in
        ``opening`` have not seen player 0 play yet: their rewards are deferred (pending)
        and a frame ending there is dealt again."""
        count = np.zeros(self.num, np.int64)
        for _ in range(MAX_OPPONENT_CALLS):
            redo = opening & ended
            need = (~ended & (to_play == 1)) | redo
            if not need.any():
                break
            act = self._opponent_actions()
            code = np.where(need & ~redo, self.code, 0).astype(np.int32)
            self.state, obs, self.keys = self.program.step(self.state, act, self.keys, redo, need, code, self.opts)
            rewards, term, trunc, to_play = self._fetch(obs)
            played = need & ~redo
            r = np.where(played[:, None], rewards, 0.0)
            self.pending = np.where(redo[:, None], 0.0, self.pending) + np.where(opening[:, None], r, 0.0)
            total = total + np.where(opening[:, None], 0.0, r)
            count += played
            ended = np.where(need, term | trunc, ended)
        return total, count

    def _opponent_actions(self) -> dict:
        n = self.func.n_balls
        if callable(self.opponent):
            if self.single:
                a = check_action(self.opponent(_numpy_obs(self.obs, self.obs_space, 0)), None, n)
                return {k: v[None] for k, v in a.items()}
            return check_action(self.opponent(_numpy_obs(self.obs, self.obs_space)), self.num, n)
        z = np.zeros(self.num, np.int32)
        return {"shot": np.zeros((self.num, 5)), "place": np.zeros((self.num, 2)), "cue_ball": z, "ball": z,
                "pocket": z, "choice": z}


def _stroke_info(h: dict, k: int) -> dict:
    """The decision of table ``k`` in the host fields ``h``: flags and clauses."""
    return {
        "acted": int(h["acted"][k]), "foul": bool(h["foul"][k]), "clipped": bool(h["clipped"][k]),
        "projected": bool(h["projected"][k]), "truncated_shot": bool(h["truncated_shot"][k]),
        "cue_replaced": bool(h["cue_replaced"][k]), "clauses": clause_ids(h["clauses"][k]),
        "lag_winner": int(h["lag_winner"][k]),
    }


def _frame_info(h: dict, k: int) -> dict:
    return {"to_play": int(h["to_play"][k]), "scores": h["scores"][k].copy(), "phase": PHASE_NAMES[int(h["phase"][k])],
            "winner": int(h["winner"][k])}


class CueEnv(gym.Env):
    """A cue-sports table as a Gymnasium env (see :mod:`cuegym.functional` for the tasks and
    docs/envs.md for the spaces).

    Options: ``table``, ``noise`` (multiple of the tournament sigmas, default 1.0),
    ``max_shots`` (truncation), ``reward_scale``, ``lag_break``, the pot-shot ranges
    ``distance`` [m] and ``cut`` [degrees], ``opponent`` (module docstring) and
    ``render_mode``: ``"rgb_array"`` — :meth:`render` returns the current layout with the
    last stroke's ball paths (re-simulated from the stroke as played, after noise) as an
    (H, 480, 3) uint8 image, head cushion at the bottom (:func:`cuegym.render.draw_table`);
    ``"human"`` — the same image in a window, updated after every reset and step (needs a
    display and matplotlib). ``info``: ``to_play``, ``acted``, ``rewards`` (2,) per player,
    ``scores``, ``phase``, ``winner``, ``foul``, ``clipped``, ``projected``,
    ``truncated_shot``, ``cue_replaced``, ``clauses`` (catalogue ids applied to the agent's
    decision), ``lag_winner``, ``opponent_strokes``.
    """

    metadata = {"render_modes": RENDER_MODES, "render_fps": 2}

    def __init__(self, task: str = "russian-pyramid", render_mode: str | None = None, opponent=None, **options):
        if render_mode is not None and render_mode not in RENDER_MODES:
            extra = "" if "human" in RENDER_MODES else " ('human' needs a display: none here)"
            raise ValueError(f"render_mode: None or one of {RENDER_MODES}{extra}; got {render_mode!r}")
        self.func = F.FuncEnv(task=task, **options)
        get_table(self.func.table)  # compile the table outside any trace
        self.action_space = action_space(self.func)
        self.observation_space = observation_space(self.func)
        self.render_mode = render_mode
        self._tables = _Tables(self.func, 1, opponent, single=True)
        self._viewer = None
        self._picture = (None, None)  # (state drawn, image): render() twice draws once

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        t = self._tables
        if seed is not None or t.keys is None:
            t.seed(seed if seed is not None else int(self.np_random.integers(0, 2**31 - 1)))
        count = t.reset()
        info = {**_frame_info(t.host, 0), "opponent_strokes": int(count[0])}
        if self.render_mode == "human":
            self.render()
        return _numpy_obs(t.obs, self.observation_space, 0), info

    def step(self, action):
        t = self._tables
        if t.state is None:
            raise RuntimeError("call reset() before step()")
        act = check_action(action, None, self.func.n_balls)
        total, agent, count = t.step({k: v[None] for k, v in act.items()})
        info = {**_stroke_info(agent, 0), **_frame_info(t.host, 0), "opponent_strokes": int(count[0]),
                "rewards": total[0].copy()}
        player = 0 if t.opponent is not None else info["acted"]
        term, trunc = t.host["terminated"][0], t.host["truncated"][0]
        if self.render_mode == "human":
            self.render()
        return _numpy_obs(t.obs, self.observation_space, 0), float(total[0, player]), bool(term), bool(trunc), info

    def render(self):
        """The table now (``rgb_array``: returned; ``human``: shown); None without a mode."""
        if self.render_mode is None:
            gym.logger.warn("render() without a render_mode: make the env with render_mode='rgb_array' or 'human'")
            return None
        state = self._tables.state
        if state is None:
            raise RuntimeError("call reset() before render()")
        if self._picture[0] is not state:
            self._picture = (state, self._draw(state))
        image = self._picture[1]
        if self.render_mode == "human":
            if self._viewer is None:
                self._viewer = R.Viewer(f"cuegym {self.func.task}")
            self._viewer.show(image)
            return None
        return image.copy()

    def _draw(self, state):
        xy, on, last_xy, last_on, shot, shots = (x[0] for x in jax.device_get(
            (state.xy, state.on, state.last_xy, state.last_on, state.last_shot, state.shots)))
        paths = None
        if shots > 0 and shot[2] > 0:  # a stroke was played (a removal strikes nothing)
            paths = R.stroke_paths(self.func.table, last_xy, last_on, shot)
        return R.draw_table(self.func.table, xy, on, paths, RENDER_WIDTH)

    def close(self):
        if self._viewer is not None:
            self._viewer.close()
            self._viewer = None
        super().close()


class CueVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` tables stepped in one jitted call, with next-step autoreset. Options and
    ``opponent`` as :class:`CueEnv` (a callable opponent takes and returns batches)."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, task: str = "russian-pyramid", num_envs: int = 1, render_mode: str | None = None, opponent=None,
                 **options):
        if render_mode is not None:
            raise ValueError(f"render_mode: the vector env does not render (None), got {render_mode!r}; "
                             "render a single env made with gymnasium.make")
        if not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs: an integer >= 1, got {num_envs!r}")
        self.func = F.FuncEnv(task=task, **options)
        get_table(self.func.table)
        self.num_envs = num_envs
        self.single_action_space = action_space(self.func)
        self.single_observation_space = observation_space(self.func)
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, num_envs)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.render_mode = render_mode
        self._tables = _Tables(self.func, num_envs, opponent, single=False)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        t = self._tables
        if seed is not None or t.keys is None:
            t.seed(seed if seed is not None else int(self.np_random.integers(0, 2**31 - 1)))
        count = t.reset()
        return _numpy_obs(t.obs, self.single_observation_space), {"opponent_strokes": count}

    def step(self, actions):
        t = self._tables
        act = check_action(actions, self.num_envs, self.func.n_balls)
        was_done = t.done
        total, agent, count = t.step(act)
        h = t.host
        acted = agent["acted"]
        player = np.zeros(self.num_envs, np.int64) if t.opponent is not None else acted
        rewards = total[np.arange(self.num_envs), player].astype(np.float64)
        terminated = h["terminated"] & ~was_done
        truncated = h["truncated"] & ~was_done
        t.done = terminated | truncated
        info = {"to_play": h["to_play"], "acted": acted, "foul": agent["foul"], "clipped": agent["clipped"],
                "projected": agent["projected"], "opponent_strokes": count}
        return _numpy_obs(t.obs, self.single_observation_space), rewards, terminated, truncated, info
