"""Every cuegym id as a gymnax environment: ``reset(key, params)`` and ``step(key, state,
action, params)``, pure JAX, autoreset inside ``step``, so trainers written for gymnax
(rejax, PureJaxRL-style scripts) run the whole rollout in one compiled program.

Why beside the Gymnasium env: a host round trip per step caps training at about a thousand
steps a second; here the env, the policy and the update share one program. The action is a
choice among the shot menu's candidates (:mod:`cuegym.agents.menu`, ``action="menu"``), such a
choice with a small correction of its aim and pace (``action="residual"``), or a stroke in
[-1, 1]^5 (``action="shot"``), aimed in the table's frame or, ``aim="ball"``, across the ball
on's contact range as a player aims. The two-player games put the agent in seat 0 against
a built-in opponent that plays its decisions inside the same step. Specification:
docs/training.md, "The gymnax interface".
"""

from __future__ import annotations

import dataclasses
import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from cuegym.agents import menu as M
from cuegym.agents.baselines import ball_in_hand, ghost_decision
from cuegym.envs import functional as F
from cuegym.envs.registry import BY_ID, GAMES
from cuegym.learn import observations as O
from cuegym.learn import spaces

ACTIONS = ("menu", "residual", "shot")
RESIDUAL_PHI = float(np.deg2rad(1.5))  # [rad] the aim's correction at a unit residual
RESIDUAL_SPEED = 0.25  # the pace's correction at a unit residual, a fraction of the candidate's
AIMS = ("table", "ball")
OBSERVATIONS = ("flat", "egocentric")
OPPONENTS = ("ghost", "random")
MAX_OPPONENT_DECISIONS = 64  # per agent step; more leaves the opponent's turn to the next step


class EnvParams(NamedTuple):
    """The traced parameters: ``opts`` the functional env's :class:`cuegym.envs.functional.Options`,
    ``max_steps_in_episode`` () int32 (the agent's decisions before truncation; read by
    gymnax trainers' evaluation loops)."""

    opts: F.Options
    max_steps_in_episode: jnp.ndarray


class EnvState(NamedTuple):
    """One table: ``table`` the functional env's state, ``menu`` the candidates' action dict
    (each field (K, ...); an empty dict with ``action="shot"``), ``steps`` () int32 the
    agent's decisions this episode, ``legal`` (K,) bool the menu's legal candidates (None
    with ``action="shot"``)."""

    table: F.EnvState
    menu: dict
    steps: jnp.ndarray
    legal: jnp.ndarray | None = None


try:  # subclass gymnax's base where it is installed, so isinstance checks of trainers pass
    from gymnax.environments.environment import Environment as _Base
except ImportError:  # pragma: no cover - the [train] extra installs gymnax
    _Base = object


@dataclasses.dataclass(frozen=True, eq=True)
class CueGymnaxEnv(_Base):
    """A cuegym task in gymnax's interface (hashable: gymnax jits ``step`` and ``reset``
    with the env static). Build it with :func:`make`."""

    func: F.FuncEnv
    action: str = "menu"
    observation: str = "flat"
    opponent: str | None = None
    aim: str = "table"

    # -- gymnax's interface

    @property
    def default_params(self) -> EnvParams:
        return EnvParams(F.options(self.func), jnp.asarray(self.func.max_shots, jnp.int32))

    @property
    def name(self) -> str:
        return GAMES[self.func.task].env_id

    @property
    def num_actions(self) -> int:
        return M.size() if self.on_menu else 5

    @property
    def on_menu(self) -> bool:
        """Whether the action picks a candidate of the shot menu (``"menu"``, ``"residual"``)."""
        return self.action != "shot"

    def action_space(self, params: EnvParams | None = None):
        """``Discrete(K)`` (menu); ``Tuple(Discrete(K), Box(-1, 1, (2,)))`` (residual: the
        candidate, then its aim and pace corrections); ``Box(-1, 1, (5,))`` (shot)."""
        if self.action == "menu":
            return spaces.discrete(M.size())
        if self.action == "residual":
            return spaces.product([spaces.discrete(M.size()), spaces.box(-1.0, 1.0, (2,), jnp.float32)])
        return spaces.box(-1.0, 1.0, (5,), jnp.float32)

    def observation_space(self, params: EnvParams | None = None):
        return spaces.box(-np.inf, np.inf, (self.obs_size,), jnp.float32)

    @functools.partial(jax.jit, static_argnums=0)
    def reset(self, key, params: EnvParams | None = None):
        """(obs (D,) float32, state) of a new episode drawn from ``key``."""
        params = self.default_params if params is None else params
        return self.reset_env(key, params)

    @functools.partial(jax.jit, static_argnums=0)
    def step(self, key, state: EnvState, action, params: EnvParams | None = None):
        """One decision of the agent (and the opponent's that follow); the episode that
        ends is replaced by a new one drawn from ``key`` (gymnax's autoreset). Returns
        (obs, state, reward () float32, done () bool, info)."""
        params = self.default_params if params is None else params
        if self.opponent is not None:
            return self._step_against(key, state, action, params)
        k_step, k_reset = jax.random.split(key)
        table, steps, reward, done, info = self._advance(k_step, state, action, params)
        fresh = F.init(self.func, k_reset, params.opts)
        table = F.pick(done, fresh, table)
        steps = jnp.where(done, 0, steps)
        obs, state = self._finish(table, steps)  # one menu, of the table the agent sees next
        return obs, state, reward, done, info

    def _step_against(self, key, state: EnvState, action, params: EnvParams):
        """:meth:`step` with a built-in opponent, in one loop: the opponent's decisions after
        the agent's; when the episode ends, the new deal and the opponent's decisions that
        open it (its break). One loop rather than a deal played out on every step: under
        vmap a loop runs as long as its slowest table, and a break is the costliest stroke."""
        k_act, k_reset, k_opp = jax.random.split(key, 3)
        opts = params.opts
        decided, illegal = self.resolve(state, action)
        table = F.step(self.func, state.table, decided, k_act, opts)
        mine = table
        steps = state.steps + 1
        fresh = F.init(self.func, k_reset, opts)
        over = lambda t, n: t.terminated | t.truncated | (n >= params.max_steps_in_episode)  # noqa: E731

        def cond(c):
            t, _, _, swapped, n, i, _ = c
            ended = over(t, n)
            return (i < MAX_OPPONENT_DECISIONS) & ((~swapped & ended) | (~ended & (t.game.to_play != 0)))

        def body(c):
            t, last, got, swapped, n, i, k = c
            k, k_pick, k_play = jax.random.split(k, 3)
            swap = ~swapped & over(t, n)
            played = self._opponent_decision(k_pick, k_play, t, opts)
            got = got + jnp.where(swapped | swap, 0.0, played.rewards[0])
            last = F.pick(swap, t, last)
            return (F.pick(swap, fresh, played), last, got, swapped | swap, jnp.where(swap, 0, n), i + 1, k)

        init = (table, table, jnp.asarray(0.0), jnp.asarray(False), steps, jnp.asarray(0), k_opp)
        t, last, got, swapped, n, _, _ = jax.lax.while_loop(cond, body, init)
        swap = ~swapped & over(t, n)  # the loop's cap reached with the episode over
        last = F.pick(swap, t, last)
        t = F.pick(swap, fresh, t)
        done = swapped | swap
        final = F.pick(done, last, t)
        truncated = done & ~final.terminated
        info = {"terminated": done & final.terminated, "truncated": truncated,
                "discount": 1.0 - (done & final.terminated).astype(jnp.float32),
                "success": done & self.success(mine, final, 0), "foul": mine.foul,
                "illegal": illegal}
        obs, new = self._finish(t, jnp.where(done, 0, n))
        return obs, new, (mine.rewards[0] + got).astype(jnp.float32), done, info

    def reset_env(self, key, params: EnvParams):
        return self._finish(self._deal(key, params), jnp.asarray(0, jnp.int32))

    def step_env(self, key, state: EnvState, action, params: EnvParams):
        table, steps, reward, done, info = self._advance(key, state, action, params)
        obs, state = self._finish(table, steps)
        return obs, state, reward, done, info

    def _deal(self, key, params):
        table = F.init(self.func, key, params.opts)
        return self._opponents(jax.random.fold_in(key, 1), table, params)[0]

    def _advance(self, key, state: EnvState, action, params: EnvParams):
        """The agent's decision and the opponent's that follow: (table, steps, reward,
        done, info)."""
        k_act, k_opp = jax.random.split(key)
        decided, illegal = self.resolve(state, action)
        table = F.step(self.func, state.table, decided, k_act, params.opts)
        seat = 0 if self.opponent is not None else state.table.game.to_play
        reward = table.rewards[seat]
        mine = table
        table, theirs = self._opponents(k_opp, table, params)
        steps = state.steps + 1
        truncated = table.truncated | (steps >= params.max_steps_in_episode)
        done = table.terminated | truncated
        info = {"terminated": table.terminated, "truncated": truncated & ~table.terminated,
                "discount": 1.0 - table.terminated.astype(jnp.float32), "success": self.success(mine, table, seat),
                "foul": mine.foul, "illegal": illegal}
        return table, steps, (reward + theirs).astype(jnp.float32), done, info

    def view(self, table: F.EnvState):
        """(obs (D,), state) of ``table`` as the agent sees it at the start of a decision
        (its menu computed; the episode's decision count 0)."""
        return self._finish(table, jnp.asarray(0, jnp.int32))

    def view_batch(self, tables: F.EnvState):
        """``vmap(view)`` of B tables (``tables`` with a leading axis B): (obs (B, D), states),
        the same values, the menus by :func:`cuegym.agents.menu.menu_batch` (the tables not
        in hand skip the ball in hand's pot tables)."""
        steps = jnp.zeros(tables.game.phase.shape[:1], jnp.int32)
        if not self.on_menu:
            return jax.vmap(self._finish)(tables, steps)
        m = M.menu_batch(self.func, tables)
        states = EnvState(tables, m.actions, steps, m.legal)
        return jax.vmap(self._observe)(states, m), states

    def _finish(self, table, steps):
        m = self._menu(table)
        state = EnvState(table, m.actions, steps, m.legal) if m is not None else EnvState(table, {}, steps)
        return self._observe(state, m), state

    # -- cuegym's parts

    @property
    def obs_size(self) -> int:
        """D, the observation's length (:meth:`layout`)."""
        return sum(n for _, n in self.layout())

    def layout(self):
        """The observation's parts in order, (name, length): ``menu`` K x F candidate features
        and ``legal`` K (with ``action="menu"`` or ``"residual"``), then ``table``: the game observation
        flattened (:func:`cuegym.learn.observations.flatten`), or its egocentric features
        followed by it (``observation="egocentric"``)."""
        parts = []
        if self.on_menu:
            parts += [("menu", M.size() * M.NUM_FEATURES), ("legal", M.size())]
        if self.observation == "egocentric":
            parts.append(("egocentric", O.egocentric_size(self.func)))
        parts.append(("table", int(O.plan(self.func)[1].shape[0])))
        return parts

    def slice(self, name: str) -> slice:
        """Where part ``name`` of :meth:`layout` lies in the observation."""
        at = 0
        for part, n in self.layout():
            if part == name:
                return slice(at, at + n)
            at += n
        raise ValueError(f"name: one of {', '.join(p for p, _ in self.layout())}, got {name!r}")

    def decision(self, state: EnvState, action):
        """The env action dict the agent's ``action`` stands for (:meth:`resolve`)."""
        return self.resolve(state, action)[0]

    def resolve(self, state: EnvState, action):
        """(the env action dict the agent's ``action`` stands for, () bool whether its menu
        index is illegal). The menu's candidate (an illegal index, out of range or masked,
        plays no stroke: :func:`_candidate`), or the stroke in [-1, 1]^5 scaled to the shot
        limits with the ghost's call, nomination and placement (never illegal). A residual
        ``(k, c)`` plays candidate k with its phi turned by c[0] x :data:`RESIDUAL_PHI` and
        its speed scaled by 1 + c[1] x :data:`RESIDUAL_SPEED` (within the shot limits). With
        ``aim="ball"`` the stroke's first component is not phi but the aim across the ball
        on (the ghost's ball): -1 and +1 the thinnest contacts on either side
        (:func:`aim_across`), 0 full ball."""
        if self.action == "menu":
            return _candidate(state, action)
        if self.action == "residual":
            chosen, illegal = _candidate(state, action[0])
            c = jnp.clip(jnp.asarray(action[1], jnp.float64).reshape(2), -1.0, 1.0)
            shot = chosen["shot"]
            speed = jnp.clip(shot[1] * (1.0 + c[1] * RESIDUAL_SPEED), F.SHOT_LOW[1], F.SHOT_HIGH[1])
            return {**chosen, "shot": shot.at[0].add(c[0] * RESIDUAL_PHI).at[1].set(speed)}, illegal
        ghost, _ = ghost_decision(self.func, state.table)
        unit = jnp.clip(jnp.asarray(action, jnp.float64).reshape(5), -1.0, 1.0)
        lo, hi = jnp.asarray(F.SHOT_LOW), jnp.asarray(F.SHOT_HIGH)
        lo = lo.at[0].set(0.0).at[4].set(0.0)
        hi = hi.at[0].set(2 * jnp.pi).at[4].set(0.0)
        shot = lo + (unit + 1.0) / 2.0 * (hi - lo)
        if self.aim == "ball":
            table = state.table
            cue = jnp.where(ball_in_hand(table.game.phase), ghost["place"], table.xy[ghost["cue_ball"]])
            shot = shot.at[0].set(aim_across(cue, table.xy[ghost["ball"]], self.func.spec.ball_radius, unit[0]))
        return {**ghost, "shot": shot}, jnp.asarray(False)

    def success(self, mine: F.EnvState, final: F.EnvState, seat):
        """() bool: a drill's stroke did what it asks (PotShot: the clean pot; Lag: its
        reward), or a game was won by the agent's seat."""
        if GAMES[self.func.task].referee is None:
            return mine.rewards[0] > 0
        return final.terminated & (final.game.winner == seat)

    def _menu(self, table: F.EnvState):
        return M.menu(self.func, table) if self.on_menu else None

    def _observe(self, state: EnvState, m):
        obs = F.observe(self.func, state.table)
        parts = []
        if m is not None:
            parts += [m.features.ravel(), m.legal.astype(jnp.float32)]
        if self.observation == "egocentric":
            striker = jnp.argmax(obs["legal_cue_ball"]).astype(jnp.int32)
            parts.append(O.egocentric(self.func, state.table, striker))
        parts.append(O.flatten(self.func, obs))
        return jnp.concatenate(parts).astype(jnp.float32)

    def _opponent_decision(self, k_pick, k_play, table: F.EnvState, opts):
        """The table after one decision of the built-in opponent: the env's random policy
        (:func:`cuegym.envs.functional.random_action`, drawn from ``k_pick``) or its ghost
        (:func:`cuegym.envs.functional.ghost_action`), the opponent being static; the
        stroke's noise from ``k_play``."""
        if self.opponent == "random":
            action = F.random_action(self.func, table, k_pick)
        else:
            action = F.ghost_action(self.func, table)
        return F.step(self.func, table, action, k_play, opts)

    def _opponents(self, key, table: F.EnvState, params: EnvParams):
        """The built-in opponent's decisions while it is to play (at most
        ``MAX_OPPONENT_DECISIONS``); returns (state, the agent's reward from them)."""
        if self.opponent is None:
            return table, jnp.asarray(0.0)
        live = lambda t: ~(t.terminated | t.truncated) & (t.game.to_play != 0)  # noqa: E731

        def cond(carry):
            t, _, i, _ = carry
            return live(t) & (i < MAX_OPPONENT_DECISIONS)

        def body(carry):
            t, got, i, k = carry
            k, k_pick, k_play = jax.random.split(k, 3)
            t = self._opponent_decision(k_pick, k_play, t, params.opts)
            return t, got + t.rewards[0], i + 1, k

        table, got, _, _ = jax.lax.while_loop(cond, body, (table, jnp.asarray(0.0), jnp.asarray(0), key))
        return table, got


def _candidate(state: EnvState, index):
    """(the action dict of menu candidate ``index`` of ``state``, () bool whether the index
    is illegal: out of [0, K) or masked). An illegal index plays no stroke: the ghost's
    decision (the last candidate, always legal) at speed 0, which meets no ball and which
    the referee rules as that foul; in a phase without a stroke, the ghost's answer."""
    i = jnp.asarray(index, jnp.int32).reshape(())
    k = jnp.clip(i, 0, M.size() - 1)
    illegal = (i != k) | ~state.legal[k]
    chosen = M.choose(M.Menu(state.menu, None, None), jnp.where(illegal, M.size() - 1, k))
    shot = chosen["shot"]
    return {**chosen, "shot": jnp.where(illegal, shot.at[1].set(0.0), shot)}, illegal


def aim_across(cue, ball, radius, u):
    """() phi [rad] of a stroke from ``cue`` (2,) [m] aimed across ``ball`` (2,) [m]: ``u`` in
    [-1, 1] turns the aim from the line of centres (0, a full-ball contact) by u times the
    widest angle that still meets the ball, asin(2R / d) for centres d apart (1 when they
    touch). ``radius`` R [m]."""
    d = ball - cue
    dist = jnp.sqrt(jnp.sum(d * d))
    widest = jnp.arcsin(jnp.clip(2 * radius / jnp.maximum(dist, 1e-12), 0.0, 1.0))
    return jnp.mod(jnp.arctan2(d[1], d[0]) + u * widest, 2 * jnp.pi)


def make(env_id: str, *, action: str = "menu", observation: str = "flat", opponent: str | None = "default",
         aim: str = "table", **options) -> tuple[CueGymnaxEnv, EnvParams]:
    """``(env, params)`` of ``env_id`` (``"cuegym/PotShot-v0"``, or its task name). ``action``
    one of :data:`ACTIONS`, ``observation`` one of :data:`OBSERVATIONS`, ``opponent`` one of
    :data:`OPPONENTS` or None (the agent plays every seat, rewarded as the player who
    acted); the default is the ghost in the refereed games and none in the drills. ``aim``
    one of :data:`AIMS`, with ``action="shot"``: the stroke's first component is phi over
    [0, 2 pi) (``"table"``) or the aim across the ghost's ball on (``"ball"``).
    ``options``: the functional env's (:class:`cuegym.envs.functional.FuncEnv`: ``table``,
    ``noise``, ``max_shots``, ...)."""
    entry = BY_ID.get(env_id) or GAMES.get(env_id)
    if entry is None:
        raise ValueError(f"env_id: unknown {env_id!r}; one of {', '.join(BY_ID)}")
    if action not in ACTIONS:
        raise ValueError(f"action: one of {', '.join(ACTIONS)}, got {action!r}")
    if observation not in OBSERVATIONS:
        raise ValueError(f"observation: one of {', '.join(OBSERVATIONS)}, got {observation!r}")
    if aim not in AIMS:
        raise ValueError(f"aim: one of {', '.join(AIMS)}, got {aim!r}")
    if aim != "table" and action != "shot":
        raise ValueError(f"aim: {aim!r} applies to action='shot' only, got action={action!r}")
    if opponent == "default":
        opponent = "ghost" if entry.referee is not None else None
    if opponent is not None and opponent not in OPPONENTS:
        raise ValueError(f"opponent: one of {', '.join(OPPONENTS)} or None, got {opponent!r}")
    if opponent is not None and entry.referee is None:
        raise ValueError(f"opponent: {entry.env_id} is a one-player drill; pass opponent=None")
    func = F.FuncEnv(task=entry.name, **options)
    env = CueGymnaxEnv(func, action, observation, opponent, aim)
    return env, env.default_params

