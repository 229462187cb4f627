"""The agent protocol: ``act(observation, key) -> action``.

An agent is built for one task (a Gymnasium id with its options, or a
:class:`cuegym.envs.functional.FuncEnv`), reads observations exactly as the Gymnasium env returns
them (a dict of NumPy arrays, one table) and returns an action dict valid for the env's
action space. All randomness comes from the JAX key passed in, so a fixed key gives a fixed
action. :meth:`Agent.as_opponent` turns an agent into the env's callable opponent with its
own seeded key stream.

The agents reason on the functional env's state (:class:`cuegym.envs.functional.EnvState`);
:func:`state_from_observation` rebuilds it from an observation. What the observation does
not carry is filled with the nearest reading: the order in which balls were won (the
latest is given back first, AMB-30) is taken as the ball numbers, the dead-position and
last-ball counters as their start values, and a layout with every object ball on the
table, the ball in hand in the house and 0:0 as the break. Snooker and golf have their own
readings (:func:`_snooker_state`, :func:`_golf_state`).
"""

from __future__ import annotations

import time

import jax
import jax.numpy as jnp
import numpy as np

from cuegym import ENV_TASKS
from cuegym.envs import functional as F
from cuegym.envs.registry import GAMES
from cuegym.envs.env_spaces import action_space
from cuegym.rules import golf as gf
from cuegym.rules import snooker as sn
from cuegym.rules.base import IN_HAND_HOUSE, REMOVE_BALL, GameState


def make_func_env(env, **options) -> F.FuncEnv:
    """The :class:`~cuegym.envs.functional.FuncEnv` of ``env``: a FuncEnv (returned as is, or
    with ``options`` replaced), a Gymnasium id (``"cuegym/PotShot-v0"``) or a task name
    (``"pot-shot"``); ``options`` as the env's (``table``, ``noise``, ...)."""
    if isinstance(env, F.FuncEnv):
        return F.FuncEnv(**{**env.__dict__, **options}) if options else env
    if not isinstance(env, str):
        raise ValueError(f"env: a FuncEnv, a Gymnasium id ({', '.join(ENV_TASKS)}) or a task name; got {env!r}")
    task = ENV_TASKS.get(env, env)
    return F.FuncEnv(task=task, **options)


def obs_keys(env: F.FuncEnv) -> tuple:
    """The observation keys the agents read (:attr:`cuegym.envs.registry.GameDef.obs_keys`)."""
    return GAMES[env.task].obs_keys


def observation_arrays(env: F.FuncEnv, observation) -> dict:
    """The observation as NumPy arrays of fixed dtypes (what the jitted agents take), with
    its shape checked; raises ValueError naming a missing or misshapen field."""
    n = env.n_balls
    if not isinstance(observation, dict):
        raise ValueError(f"observation: a dict as the env returns it, got {type(observation).__name__}")
    p = env.players
    shapes = {"balls": (n, 3), "scores": (p,), "target_pocket": (p,), "debt": (2,), "legal_ball": (n,), "legal_cue_ball": (n,),
              "legal_choice": (n,), "owner": (n,), "ball_on": (n,), "remaining": (2,)}
    out = {}
    for k in obs_keys(env):
        if k not in observation:
            raise ValueError(f"observation.{k}: missing")
        x = np.asarray(observation[k])
        want = shapes.get(k, ())
        if x.shape != want:
            raise ValueError(f"observation.{k}: shape {x.shape}, expected {want} for {env.task}")
        out[k] = x.astype(np.float64 if k in ("balls", "scores") else np.int32)
    return out


def state_from_observation(env: F.FuncEnv, obs: dict) -> F.EnvState:
    """(traceable) An :class:`~cuegym.envs.functional.EnvState` with the observation's layout and
    game state (module docstring for the fields the observation lacks). ``obs``: the arrays
    of :func:`observation_arrays`. Dtypes are those of :func:`cuegym.envs.functional.init`, so the
    state fits the env's own compiled programs."""
    base = F.init(env, jax.random.PRNGKey(0))
    family = GAMES[env.task].family
    if family == "snooker":
        return _snooker_state(base, obs)
    if family == "golf":
        return _golf_state(base, obs)
    n = env.n_balls
    ids = jnp.arange(n)
    balls = jnp.asarray(obs["balls"], jnp.float64)
    on = balls[:, 2] > 0.5
    phase = jnp.asarray(obs["phase"], jnp.int32)
    to_play = jnp.asarray(obs["to_play"], jnp.int32)
    owner = jnp.asarray(obs["owner"], jnp.int32)
    scores = jnp.rint(jnp.asarray(obs["scores"], jnp.float64)).astype(jnp.int32)
    owned = owner >= 0
    hand = GAMES[env.task].hand_ball
    objects = ids != hand
    # the break: every object ball on the table, the ball in hand in the house, 0:0
    fresh = (phase == IN_HAND_HOUSE) & jnp.all(on | ~objects) & jnp.all(scores == 0)
    game = GameState(
        to_play=to_play,
        phase=phase,
        scores=scores,
        debt=jnp.asarray(obs["debt"], jnp.int32),
        owner=owner,
        owned_at=jnp.where(owned, ids, -1),
        credits=jnp.sum(owned),
        foul_run=jnp.asarray(obs["foul_run"], jnp.int32),
        quiet=0,
        last_pocketed=-1,
        sudden_death=jnp.asarray(obs["sudden_death"]) > 0,
        # while the opponent removes a ball (MP-09) the striker's stroke is being completed
        striker=jnp.where(phase == REMOVE_BALL, 1 - to_play, to_play),
        winner=-1,
        strokes=jnp.where(fresh, 0, 1),
    )
    game = jax.tree_util.tree_map(lambda b, v: jnp.asarray(v).astype(b.dtype), base.game, game)
    return base._replace(xy=balls[:, :2], on=on, game=game, last_xy=balls[:, :2], last_on=on)


def _snooker_state(base: F.EnvState, obs: dict) -> F.EnvState:
    """The snooker games' :func:`state_from_observation`. The ball on is read from the
    ``ball_on`` mask (a red; several colours: a colour to nominate; one colour with no red
    left: that colour in sequence); outside a stroke, where the mask is empty, a red while
    reds remain, else the lowest colour. What the observation lacks: the position before
    the last stroke (taken as the current one), the touching ball (none)."""
    ids = jnp.arange(sn.N_BALLS)
    balls = jnp.asarray(obs["balls"], jnp.float64)
    on = balls[:, 2] > 0.5
    mask = jnp.asarray(obs["ball_on"]) > 0
    is_red = (ids >= 1) & (ids < sn.FIRST_COLOUR)
    colours = mask & (ids >= sn.FIRST_COLOUR)
    value = lambda m: (jnp.argmax(m) - (sn.FIRST_COLOUR - 2)).astype(jnp.int32)  # noqa: E731  the first colour's value
    idle = jnp.where(jnp.any(on & is_red), sn.RED_ON, jnp.where(jnp.any(on & (ids >= sn.FIRST_COLOUR)),
                                                                 value(on & (ids >= sn.FIRST_COLOUR)), 7))
    mode = jnp.where(jnp.any(mask & is_red), sn.RED_ON,
                     jnp.where(jnp.sum(colours) >= 2, sn.COLOUR_ON, jnp.where(jnp.any(colours), value(colours), idle)))
    legal = jnp.asarray(obs["legal_choice"])[: len(sn.CHOICE_NAMES)] > 0
    choices = jnp.sum(jnp.where(legal, 1 << jnp.arange(len(sn.CHOICE_NAMES)), 0))
    breaking = jnp.asarray(obs["breaking"]) > 0
    game = base.game._replace(
        to_play=obs["to_play"], phase=obs["phase"], scores=jnp.rint(jnp.asarray(obs["scores"], jnp.float64)),
        ball_on=mode, free_ball=jnp.asarray(obs["free_ball"]) > 0, breaking=breaking, choices=choices,
        miss=legal[sn.RESTORE], prev_xy=balls[:, :2], prev_on=on, prev_ball_on=mode,
        strokes=jnp.where(breaking, 0, 1),
    )
    game = jax.tree_util.tree_map(lambda b, v: jnp.asarray(v).astype(b.dtype), base.game, game)
    return base._replace(xy=balls[:, :2], on=on, game=game, last_xy=balls[:, :2], last_on=on)


def _golf_state(base: F.EnvState, obs: dict) -> F.EnvState:
    """Golf's :func:`state_from_observation`. Each player's next pocket is read back from
    ``target_pocket`` (a physics pocket id; -1: done, or not playing), the round's pocket is
    the striker's, and the first player of the order is the striker counted back over the
    players who have already finished this round (they are first, first + 1, ..., the
    striker - 1: GF-11..18); the GF-23 set-ups open from ``legal_choice``. What the
    observation lacks: the score sheet (zeros; the totals are ``scores``) and the strokes
    played (0); neither changes a ruling."""
    p = gf.MAX_PLAYERS
    balls = jnp.asarray(obs["balls"], jnp.float64)
    on = balls[:, 2] > 0.5
    n = jnp.asarray(obs["num_players"], jnp.int32)
    to_play = jnp.asarray(obs["to_play"], jnp.int32)
    phase = jnp.asarray(obs["phase"], jnp.int32)
    target = jnp.asarray(obs["target_pocket"], jnp.int32)
    # physics pocket id -> golf pocket 1..6; -1 (done or not playing) -> 7
    number = jnp.argmax(target[:, None] == jnp.asarray(gf.POCKET_IDS)[None], -1) + 1
    playing = jnp.arange(p) < n
    next_pocket = jnp.where(playing & (target >= 0), number, gf.N_POCKETS + 1).astype(jnp.int32)
    pocket = next_pocket[jnp.clip(to_play, 0, p - 1)]
    done_round = playing & (next_pocket == pocket + 1)
    first = jnp.mod(to_play - jnp.sum(done_round), jnp.maximum(n, 1)).astype(jnp.int32)
    legal = jnp.asarray(obs["legal_choice"])[: len(gf.CHOICE_NAMES)] > 0
    choices = jnp.sum(jnp.where(legal, 1 << jnp.arange(len(gf.CHOICE_NAMES)), 0))
    strokes = jnp.rint(jnp.asarray(obs["scores"], jnp.float64))
    game = base.game._replace(
        to_play=to_play, phase=phase, num_players=n, first=first, pocket=pocket, next_pocket=next_pocket,
        strokes=strokes, opening=jnp.asarray(obs["opening"]) > 0, choices=choices, winner=-1,
    )
    game = jax.tree_util.tree_map(lambda b, v: jnp.asarray(v).astype(b.dtype), base.game, game)
    return base._replace(xy=balls[:, :2], on=on, game=game, last_xy=balls[:, :2], last_on=on)


def to_env_action(env: F.FuncEnv, action) -> dict:
    """A jitted agent's action (arrays) as the Gymnasium env takes it: ``shot`` and
    ``place`` float32 inside the action space's boxes, the integer fields Python ints."""
    space = action_space(env)
    shot = np.clip(np.asarray(action["shot"], np.float32), space["shot"].low, space["shot"].high)
    place = np.clip(np.asarray(action["place"], np.float32), space["place"].low, space["place"].high)
    out = {"shot": shot, "place": place}
    for k in ("cue_ball", "ball", "pocket", "choice"):
        out[k] = int(np.clip(int(action[k]), 0, space[k].n - 1))
    return out


class Agent:
    """Base class: ``act(observation, key) -> action``; subclasses implement
    :meth:`_decide`. ``env``: a Gymnasium id, task name or FuncEnv; ``options``: the env's
    options (``table``, ...; ``noise`` is the env's, not the agent's). ``last_info``: a dict
    about the latest decision (``time_s`` and whatever the agent adds)."""

    def __init__(self, env, **options):
        self.env = make_func_env(env, **options)
        self.last_info: dict = {}

    def act(self, observation, key) -> dict:
        """The action for ``observation`` (the env's dict), drawing from ``key`` (a JAX
        PRNG key)."""
        t0 = time.perf_counter()
        obs = observation_arrays(self.env, observation)
        action, info = self._decide(obs, key)
        out = to_env_action(self.env, action)
        self.last_info = {**info, "time_s": time.perf_counter() - t0}
        return out

    def _decide(self, obs: dict, key):
        raise NotImplementedError

    def as_opponent(self, seed: int = 0):
        """``f(obs) -> action`` for ``gymnasium.make(id, opponent=f)``: each call draws the
        next key of a stream seeded with ``seed``."""
        key = jax.random.PRNGKey(seed)

        def policy(observation):
            nonlocal key
            key, sub = jax.random.split(key)
            return self.act(observation, sub)

        return policy
