"""Gymnasium front of the functional environments: a single env and a native vector env.

Both run the same jitted, vmapped program (:func:`cuegym.envs.functional.batched`) through
:class:`cuegym.envs.tables.HostTables`: the single env is a batch of one, so sub-env ``i``
of a vector env seeded ``s`` and the single env seeded ``s + i`` give the same bytes. The
vector env autoresets at the next step inside the jitted step (Gymnasium's
``FunctionalJaxVectorEnv`` needs the state to be one array; ours is a pytree). Opponents
(``opponent=``: None, ``"random"``, ``"ghost"`` or a callable) are described in
docs/envs.md, "Opponents"; the host transport in "Host transport".
"""

from __future__ import annotations

import gymnasium as gym
import jax
import numpy as np
from gymnasium.vector import AutoresetMode

from cuegym.envs import functional as F
from cuegym.envs import render as R
from cuegym.envs.command import ACTIVE, COMMAND_WIDTH, DONE, OPPONENT, deferred_agent_command, pack_action
from cuegym.envs.env_spaces import action_space, observation_space
from cuegym.envs.record import INT_COLS, RowDecoder, field, frame_info, host_row, numpy_obs, step_info
from cuegym.envs.registry import DEFAULT_TASK
from cuegym.envs.tables import HostTables
from cuegym.physics import get_table

# "human" opens a window (cuegym.envs.render.Viewer): offered only where a display exists, so
# that asking for it on a headless machine fails at construction with a clear message
RENDER_MODES = ["rgb_array", "human"] if R.has_display() else ["rgb_array"]
RENDER_WIDTH = 480  # px


class CueEnv(gym.Env):
    """A cue-sports table as a Gymnasium env (see :mod:`cuegym.envs.functional` for the tasks and
    docs/envs.md for the spaces).

    Options: ``table``, ``noise`` (multiple of the tournament sigmas, default 1.0),
    ``max_shots`` (truncation), ``reward_scale``, ``lag_break``, the pot-shot ranges
    ``distance`` [m] and ``cut`` [degrees], ``num_players`` (golf: 2..6, default 2),
    ``cushion``, ``snooker_rules`` (the snooker referees' rule options,
    :func:`cuegym.envs.functional.snooker_rules`), ``opponent`` (docs/envs.md, "Opponents") and
    ``render_mode``: ``"rgb_array"`` — :meth:`render` returns the current layout with the
    last stroke's ball paths (re-simulated from the stroke as played, after noise) as an
    (H, 480, 3) uint8 image, head cushion at the bottom (:func:`cuegym.envs.render.draw_table`);
    ``"human"`` — the same image in a window, updated after every reset and step (needs a
    display and matplotlib). ``info``: ``to_play``, ``acted``, ``rewards`` (P,) per player
    (P = 2; golf 6), ``scores`` (P,), ``phase``, ``winner``, ``foul``, ``clipped``, ``projected``,
    ``truncated_shot``, ``cue_replaced``, ``clauses`` (catalogue ids applied to the agent's
    decision), ``potted`` (the balls the agent's decision pocketed that count for the
    striker: a tuple of ints, ascending), ``lag_winner``, ``opponent_strokes``.
    """

    metadata = {"render_modes": RENDER_MODES, "render_fps": 2}

    def __init__(self, task: str = DEFAULT_TASK, render_mode: str | None = None, opponent=None, **options):
        if render_mode is not None and render_mode not in RENDER_MODES:
            extra = "" if "human" in RENDER_MODES else " ('human' needs a display: none here)"
            raise ValueError(f"render_mode: None or one of {RENDER_MODES}{extra}; got {render_mode!r}")
        self.func = F.FuncEnv(task=task, **options)
        get_table(self.func.table)  # compile the table outside any trace
        self.action_space = action_space(self.func)
        self.observation_space = observation_space(self.func)
        self.render_mode = render_mode
        self.tables = HostTables(self.func, 1, opponent, single=True)
        self._decode = RowDecoder(self.observation_space)
        self._viewer = None
        self._picture = (None, None)  # (state drawn, image): render() twice draws once

    @property
    def devices(self) -> tuple:
        """The one device the table runs on (the first local device)."""
        return self.tables.devices

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        t = self.tables
        if seed is not None or t.rows is None:
            t.seed(seed if seed is not None else int(self.np_random.integers(0, 2**31 - 1)))
        count = t.reset()
        row = host_row(t.rows)
        vals, obs, _ = self._decode(row)
        info = {**frame_info(vals, self._decode.scores(row)),
                "opponent_strokes": 0 if count is None else int(count[0])}
        if self.render_mode == "human":
            self.render()
        return obs, info

    def step(self, action):
        t = self.tables
        if not t.dealt:
            raise RuntimeError("call reset() before step()")
        total, _, count = t.step(*deferred_agent_command(action, self.func.n_balls))
        row = host_row(t.rows)  # the frame after the opponents' decisions, if any
        vals, obs, rewards = self._decode(row)
        mine, mine_vals = row, vals  # the agent's decision: without opponents, the frame's row
        if total is not None:  # opponents played after the agent: its decision is in the rows it left
            rewards = total[0].copy()
            mine = host_row(t.agent_out)
            mine_vals = self._decode.ints_of(mine)
        info = step_info(mine_vals, t.agent_decision(0, mine), vals, self._decode.scores(row),
                          0 if count is None else int(count[0]), rewards)
        player = 0 if t.opponent is not None else info["acted"]
        if self.render_mode == "human":
            self.render()
        return obs, float(rewards[player]), bool(vals[INT_COLS["terminated"]]), bool(vals[INT_COLS["truncated"]]), info

    def render(self):
        """The table now (``rgb_array``: returned; ``human``: shown); None without a mode."""
        if self.render_mode is None:
            gym.logger.warn("render() without a render_mode: make the env with render_mode='rgb_array' or 'human'")
            return None
        state = self.tables.state
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
    ``opponent`` as :class:`CueEnv` (a callable opponent takes and returns batches).
    ``info`` of a step: (B,) arrays ``to_play``, ``acted``, ``foul``, ``clipped``,
    ``projected``, ``opponent_strokes``, and ``potted`` (B, N) bool: row i the balls
    sub-env i's agent decision potted (:class:`CueEnv`'s tuple as a mask; none on a
    sub-env that reset instead)."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, task: str = DEFAULT_TASK, num_envs: int = 1, render_mode: str | None = None, opponent=None,
                 devices=None, **options):
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
        self.tables = HostTables(self.func, num_envs, opponent, single=False, devices=devices)

    @property
    def devices(self) -> tuple:
        """The devices holding the tables, each a block of ``num_envs / len(devices)``
        (``devices=`` at construction; default all local devices; docs/scale.md)."""
        return self.tables.devices

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        t = self.tables
        if seed is not None or t.rows is None:
            t.seed(seed if seed is not None else int(self.np_random.integers(0, 2**31 - 1)))
        count = t.reset()
        if count is None:  # no opponent
            count = np.zeros(self.num_envs, np.int64)
        return numpy_obs(t.obs, self.single_observation_space), {"opponent_strokes": count}

    def step(self, actions):
        t = self.tables
        command = pack_action(actions, self.num_envs, self.func.n_balls, COMMAND_WIDTH)
        was_done = t.done
        command[:, DONE], command[:, ACTIVE], command[:, OPPONENT] = was_done, 1.0, 0.0
        total, agent, count = t.step(command)
        h = t.obs
        acted = field(agent, "acted", t.lay)
        player = np.zeros(self.num_envs, np.int64) if t.opponent is not None else acted
        rewards = total[np.arange(self.num_envs), player].astype(np.float64)
        terminated = field(h, "terminated", t.lay) & ~was_done
        truncated = field(h, "truncated", t.lay) & ~was_done
        t.done = terminated | truncated
        info = {"to_play": field(h, "to_play", t.lay), "acted": acted, "foul": field(agent, "foul", t.lay),
                "clipped": field(agent, "clipped", t.lay), "projected": field(agent, "projected", t.lay),
                "potted": t.agent_potted, "opponent_strokes": count}
        return numpy_obs(t.obs, self.single_observation_space), rewards, terminated, truncated, info
