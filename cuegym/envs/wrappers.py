"""Wrappers for learners that want one Box action and one Box observation (stable-baselines3).

* :class:`ShotOnly` — the action is the five shot parameters, each in [-1, 1]; the rest of
  the Dict action comes from a fixed heuristic, :func:`heuristic_decisions`.
* :class:`FlattenDictAction` — the whole Dict action as one Box in [-1, 1].
* :class:`FlatObservation` — the Dict observation as one float32 vector.
* :class:`MenuMasks` — the shot menu (``gymnasium.make(id, action="menu")``) for a learner:
  ``action_masks()`` for sb3-contrib's MaskablePPO, a masked index played as the ghost's.
* :func:`make_sb3_env` — ``gymnasium.make`` plus the two wrappers a learner needs.

Both action wrappers map v in [-1, 1] to phi = pi · v modulo 2 pi (no seam in the circle of
cue directions) and the other shot parameters linearly onto the shot limits. The encoding,
limits, clipping and errors: docs/envs.md, "Wrappers for learners".
"""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from cuegym.envs.env_spaces import PHASE_NAMES
from cuegym.physics import get_spec, get_table
from cuegym.rules.base import IN_HAND_REAR, LAG

SHOT_KEYS = ("phi", "speed", "a", "b", "theta")
ACTION_ORDER = ("shot", "place", "cue_ball", "ball", "pocket", "choice")
"""Order of the Dict action's keys in :class:`FlattenDictAction`'s vector (keys the space
has that are not listed follow in the space's order)."""
BOX_LINEAR_SPAN = 10.0
""":class:`FlatObservation` scales a Box to [0, 1] by its bounds when every bound is finite
and no span exceeds this; other Boxes go through symlog (see the class)."""
HAND_PHASES = frozenset(code for code, name in enumerate(PHASE_NAMES) if name.startswith("in_hand") or name == "lag")
"""The phase codes, of any game, in which the struck ball starts from where it is placed: a
ball in hand (the house, the temporary house, the D) and the lag."""


def _shot_limits(shot_low=None, shot_high=None):
    from cuegym.envs.functional import SHOT_HIGH, SHOT_LOW

    lo = np.asarray(SHOT_LOW if shot_low is None else shot_low, float)
    hi = np.asarray(SHOT_HIGH if shot_high is None else shot_high, float)
    for name, x in (("shot_low", lo), ("shot_high", hi)):
        if x.shape != (5,) or not np.all(np.isfinite(x)):
            raise ValueError(f"{name}: five finite values (phi, speed, a, b, theta), got {x.tolist()}")
    lo[0], hi[0] = SHOT_LOW[0], SHOT_HIGH[0]  # phi always covers the whole circle
    bad = (lo < SHOT_LOW) | (hi > SHOT_HIGH) | (lo >= hi)
    if np.any(bad):
        k = int(np.argmax(bad))
        raise ValueError(f"shot_low / shot_high: {SHOT_KEYS[k]} range [{lo[k]}, {hi[k]}] must be a non-empty part of "
                         f"the shot limits [{SHOT_LOW[k]:g}, {SHOT_HIGH[k]:g}]")
    return lo, hi


def unit(x, name, shape):
    """``x`` as a float array of ``shape`` clipped to [-1, 1]; ValueError naming ``name`` for
    another shape, NaN or inf."""
    x = np.asarray(x, float)
    if x.shape != shape:
        raise ValueError(f"{name}: shape {shape} expected, got {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name}: NaN or inf in {x.tolist()}")
    return np.clip(x, -1.0, 1.0)


def decode_shot(v, low, high) -> np.ndarray:
    """(5,) shot [phi rad, speed m/s, a, b, theta rad] from (5,) values in [-1, 1] (see the
    module docstring); phi in [0, 2 pi)."""
    shot = low + (v + 1.0) / 2.0 * (high - low)
    shot[0] = np.mod(np.pi * v[0], 2 * np.pi)
    return shot


def encode_shot(shot, low, high) -> np.ndarray:
    """The inverse of :func:`decode_shot`: (5,) values in [-1, 1] (phi taken modulo 2 pi,
    to (-1, 1])."""
    shot = np.asarray(shot, float)
    v = 2.0 * (shot - low) / (high - low) - 1.0
    wrapped = np.mod(shot[0] + np.pi, 2 * np.pi) - np.pi  # [-pi, pi)
    v[0] = 1.0 if wrapped == -np.pi else wrapped / np.pi
    return np.clip(v, -1.0, 1.0)


# ----------------------------------------------------------------------------- heuristic


def place_spot(table_name: str, phase: int, to_play: int = 0) -> np.ndarray:
    """(2,) [m] where :class:`ShotOnly` puts a ball in hand (the env projects it off any ball):

    * in the house (``in_hand_house``): on the long string halfway between the head cushion
      and the house line, (W/2, head_line/2); on a table with a D (snooker), the D's centre
      line halfway into it, (W/2, head_line − d_radius/2);
    * in the temporary house (``in_hand_rear``): the mirror at the rear end,
      (W/2, L − head_line/2);
    * in a lag: the middle of the player's half of the house, (W/4 or 3W/4, head_line/2)
      for player 0 or 1;
    * otherwise (not read by the env) the house spot.
    """
    spec = get_spec(table_name)
    w, length, hl = spec.width, spec.length, spec.head_line
    if phase == IN_HAND_REAR:
        return np.array([w / 2, length - hl / 2])
    if phase == LAG:
        return np.array([w / 4 if to_play == 0 else 3 * w / 4, hl / 2])
    if spec.d_radius > 0:
        return np.array([w / 2, hl - spec.d_radius / 2])
    return np.array([w / 2, hl / 2])


def _first(mask) -> int | None:
    idx = np.flatnonzero(np.asarray(mask) > 0)
    return int(idx[0]) if idx.size else None


def heuristic_decisions(obs: dict, table_name: str, phi: float) -> dict:
    """Everything of the Dict action but the shot, from the observation and the cue heading.

    Args:
      obs: the env's Dict observation: ``balls`` (N, 3) x, y [m], on-table flag;
        ``phase``, ``to_play``; ``legal_ball`` (N,); optional ``legal_cue_ball``,
        ``legal_choice`` (N,).
      table_name: the env's table.
      phi: the cue heading [rad].

    Returns a dict of ``cue_ball``, ``ball``, ``pocket``, ``choice`` (ints) and ``place``
    (2,) float32 [m]:

    * ``cue_ball``: the first ball legal in ``legal_cue_ball``, else 0 (also when the key is
      absent).
    * ``place``: :func:`place_spot` for the phase.
    * ``ball`` (the call): the cue ball starts at its position, or at ``place`` when in hand
      or in a lag, and moves straight along phi; the legal object ball it would touch first
      (its centre within 2R of that line, ahead of the cue ball: the ghost-ball contact) is
      called. If the line touches no legal ball, the legal ball nearest the cue ball; if no
      ball is legal, 0 (the env reads no call then).
    * ``pocket``: after a straight contact the called ball leaves along the line of centres
      (from the cue ball's centre at contact through the ball's centre; for the fallback
      ball, from the cue ball's centre through it); the pocket whose direction from the
      ball (to its ``pocket_xy``) makes the smallest angle with that line. 0 if no ball is
      legal.
    * ``choice``: the first ball legal in ``legal_choice``, else 0.

    Straight lines only: no throw, no spin, other balls in the way are ignored.
    """
    spec = get_spec(table_name)
    r = spec.ball_radius
    balls = np.asarray(obs["balls"], float)
    xy, on = balls[:, :2], balls[:, 2] > 0.5
    n = xy.shape[0]
    phase, to_play = int(np.asarray(obs["phase"])), int(np.asarray(obs["to_play"]))
    cue = _first(obs["legal_cue_ball"]) if "legal_cue_ball" in obs else None
    cue = 0 if cue is None else cue
    choice = _first(obs["legal_choice"]) if "legal_choice" in obs else None
    choice = 0 if choice is None else choice
    place = place_spot(table_name, phase, to_play)
    from_hand = phase in HAND_PHASES
    origin = place if from_hand else xy[cue]
    legal = (np.asarray(obs["legal_ball"]) > 0) & on & (np.arange(n) != cue)
    ball, pocket = 0, 0
    if legal.any():
        u = np.array([math.cos(phi), math.sin(phi)])
        rel = xy - origin
        along = rel @ u
        perp = np.abs(rel[:, 0] * u[1] - rel[:, 1] * u[0])
        hit = legal & (along > 0) & (perp < 2 * r)
        if hit.any():
            travel = np.where(hit, along - np.sqrt(np.maximum(4 * r * r - perp**2, 0.0)), np.inf)
            ball = int(np.argmin(travel))
            contact = origin + travel[ball] * u
            line = xy[ball] - contact
        else:
            dist = np.where(legal, np.hypot(rel[:, 0], rel[:, 1]), np.inf)
            ball = int(np.argmin(dist))
            line = rel[ball]
        line = line / max(float(np.hypot(*line)), 1e-12)
        to_pockets = np.asarray(get_table(table_name).pocket_xy) - xy[ball]
        to_pockets = to_pockets / np.hypot(to_pockets[:, 0], to_pockets[:, 1])[:, None]
        pocket = int(np.argmax(to_pockets @ line))
    return {"cue_ball": cue, "ball": ball, "pocket": pocket, "choice": choice, "place": place.astype(np.float32)}


def _table_of(env) -> str:
    func = getattr(env.unwrapped, "func", None)
    if func is None:
        raise ValueError(f"env: a cuegym env (with a .func configuration) expected, got {type(env.unwrapped).__name__}")
    return func.table


def _check_dict_env(env, who):
    if not isinstance(env.action_space, spaces.Dict) or "shot" not in env.action_space.spaces:
        raise ValueError(f"env: {who} wraps a cuegym env with a Dict action (shot, place, ...); "
                         f"got action space {env.action_space}")


# ----------------------------------------------------------------------------- action wrappers


class ShotOnly(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Action: Box(-1, 1, (5,), float32), the shot (module docstring); the other Dict
    fields from :func:`heuristic_decisions` on the latest observation.

    Wrap the env with Dict observations (apply :class:`FlatObservation` outside this one).
    ``info["action"]`` holds the Dict action played. ``shot_low`` / ``shot_high`` (5,)
    narrow the range each parameter maps onto, e.g. theta in [0, 0.05] rad for a
    near-level cue."""

    def __init__(self, env: gym.Env, shot_low=None, shot_high=None):
        gym.utils.RecordConstructorArgs.__init__(self, shot_low=shot_low, shot_high=shot_high)
        gym.Wrapper.__init__(self, env)
        _check_dict_env(env, "ShotOnly")
        self.table = _table_of(env)
        self.shot_low, self.shot_high = _shot_limits(shot_low, shot_high)
        self.action_space = spaces.Box(-1.0, 1.0, (5,), np.float32)
        self._obs = None

    def action(self, action) -> dict:
        """The Dict action for ``action`` (5,) on the latest observation."""
        if self._obs is None:
            raise RuntimeError("call reset() before step()")
        v = unit(action, "action", (5,))
        shot = decode_shot(v, self.shot_low, self.shot_high)
        out = heuristic_decisions(self._obs, self.table, float(shot[0]))
        out["shot"] = shot.astype(np.float32)
        return out

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        self._obs = obs
        return obs, info

    def step(self, action):
        act = self.action(action)
        obs, reward, terminated, truncated, info = self.env.step(act)
        self._obs = obs
        info = dict(info)
        info["action"] = act
        return obs, reward, terminated, truncated, info


class FlattenDictAction(gym.ActionWrapper, gym.utils.RecordConstructorArgs):
    """The whole Dict action as one Box(-1, 1, (D,), float32).

    Layout (:data:`ACTION_ORDER`; ``slices`` maps each key to its part): ``shot`` 5 values
    (module docstring), ``place`` 2 values (x, y: low + (v + 1)/2 · (high − low) over the
    place Box, the bed), then one value per integer field, ``cue_ball``, ``ball``,
    ``pocket``, ``choice``: a Discrete(n) field is the bin of v: ``min(floor((v + 1) / 2 · n),
    n − 1)``, so [-1, 1] is cut into n equal bins and index k is encoded at its bin's centre
    −1 + (2k + 1)/n (:meth:`encode`). For the Russian games and the tasks D = 11:
    shot [0:5], place [5:7], cue_ball [7], ball [8], pocket [9], choice [10].

    Decoding is deterministic; :meth:`encode` is its inverse on the Dict space (up to float32
    rounding and phi modulo 2 pi)."""

    def __init__(self, env: gym.Env, shot_low=None, shot_high=None):
        gym.utils.RecordConstructorArgs.__init__(self, shot_low=shot_low, shot_high=shot_high)
        gym.ActionWrapper.__init__(self, env)
        _check_dict_env(env, "FlattenDictAction")
        self.shot_low, self.shot_high = _shot_limits(shot_low, shot_high)
        space = env.action_space.spaces
        keys = [k for k in ACTION_ORDER if k in space] + [k for k in space if k not in ACTION_ORDER]
        self.slices, self._kinds = {}, {}
        at = 0
        for k in keys:
            s = space[k]
            if isinstance(s, spaces.Box):
                if not (np.all(np.isfinite(s.low)) and np.all(np.isfinite(s.high))) or len(s.shape) != 1:
                    raise ValueError(f"env.action_space[{k!r}]: a bounded 1-d Box is needed to flatten, got {s}")
                size = s.shape[0]
                self._kinds[k] = "box"
            elif isinstance(s, spaces.Discrete):
                size = 1
                self._kinds[k] = "discrete"
            else:
                raise ValueError(f"env.action_space[{k!r}]: Box or Discrete expected, got {s}")
            self.slices[k] = slice(at, at + size)
            at += size
        self.action_space = spaces.Box(-1.0, 1.0, (at,), np.float32)

    def action(self, action) -> dict:
        v = unit(action, "action", self.action_space.shape)
        space = self.env.action_space.spaces
        out = {}
        for k, sl in self.slices.items():
            s, x = space[k], v[sl]
            if k == "shot":
                out[k] = decode_shot(x.copy(), self.shot_low, self.shot_high).astype(np.float32)
            elif self._kinds[k] == "box":
                lo, hi = s.low.astype(float), s.high.astype(float)
                out[k] = (lo + (x + 1.0) / 2.0 * (hi - lo)).astype(s.dtype)
            else:
                n = int(s.n)
                out[k] = int(s.start) + min(int(math.floor((x[0] + 1.0) / 2.0 * n)), n - 1)
        return out

    def encode(self, action: dict) -> np.ndarray:
        """The (D,) float32 vector that decodes to ``action`` (a Dict action)."""
        space = self.env.action_space.spaces
        v = np.zeros(self.action_space.shape, float)
        for k, sl in self.slices.items():
            s = space[k]
            if k not in action:
                raise ValueError(f"action: key {k!r} missing")
            if k == "shot":
                v[sl] = encode_shot(action[k], self.shot_low, self.shot_high)
            elif self._kinds[k] == "box":
                lo, hi = s.low.astype(float), s.high.astype(float)
                v[sl] = 2.0 * (np.asarray(action[k], float) - lo) / (hi - lo) - 1.0
            else:
                n, idx = int(s.n), int(action[k]) - int(s.start)
                if not 0 <= idx < n:
                    raise ValueError(f"action.{k}: in [{int(s.start)}, {int(s.start) + n - 1}], got {action[k]}")
                v[sl] = -1.0 + (2 * idx + 1) / n
        return np.clip(v, -1.0, 1.0).astype(np.float32)


# ----------------------------------------------------------------------------- shot menu


def menu_index(action, legal) -> tuple:
    """The candidate a learner's ``action`` plays on a menu whose mask is ``legal`` (K,):
    the index itself when legal, else K - 1, the ghost agent's decision (always legal: the
    menu's masked slots repeat it anyway). Returns (index, replaced). ValueError naming
    ``action`` for a non-integer or an index out of [0, K)."""
    k = len(legal)
    a = np.asarray(action)
    if a.shape != () or not (np.issubdtype(a.dtype, np.integer)
                             or (np.issubdtype(a.dtype, np.floating) and np.isfinite(a) and float(a) == int(a))):
        raise ValueError(f"action: a menu index, an integer in [0, {k}), got {action!r}")
    i = int(a)
    if not 0 <= i < k:
        raise ValueError(f"action: a menu index in [0, {k}), got {i}")
    return (i, False) if legal[i] else (k - 1, True)


class MenuMasks(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """A menu env (``gymnasium.make(id, action="menu")``) for stable-baselines3:
    ``action_masks()`` is the (K,) bool legal mask of the latest observation (what
    sb3-contrib's ``MaskablePPO`` asks for), and a masked index plays the ghost's candidate,
    the last (:func:`menu_index`), instead of raising, so that plain PPO, which cannot mask,
    trains on it too; ``info["fallback"]`` says when that happened. Apply
    :class:`FlatObservation` outside this one."""

    def __init__(self, env: gym.Env):
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.Wrapper.__init__(self, env)
        obs_space = env.observation_space
        if not (isinstance(env.action_space, spaces.Discrete) and isinstance(obs_space, spaces.Dict)
                and "menu_legal" in obs_space.spaces):
            raise ValueError("env: MenuMasks wraps a menu env, gymnasium.make(id, action='menu'); got action space "
                             f"{env.action_space}")
        self.action_space = spaces.Discrete(int(env.action_space.n))  # plain: any index is playable here
        self._legal = None

    def action_masks(self) -> np.ndarray:
        if self._legal is None:
            raise RuntimeError("call reset() before action_masks()")
        return self._legal.copy()

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        self._legal = np.asarray(obs["menu_legal"], bool)
        return obs, info

    def step(self, action):
        if self._legal is None:
            raise RuntimeError("call reset() before step()")
        i, replaced = menu_index(action, self._legal)
        obs, reward, terminated, truncated, info = self.env.step(i)
        self._legal = np.asarray(obs["menu_legal"], bool)
        return obs, reward, terminated, truncated, {**info, "fallback": replaced}


# ----------------------------------------------------------------------------- observation


def _symlog(x):
    return np.sign(x) * np.log1p(np.abs(x))


def flat_plan(space: spaces.Dict):
    """How :class:`FlatObservation` flattens the Dict ``space``: returns (plan, a list of
    (key, kind) with kind ("linear", low, span), ("symlog",), ("onehot", n, start),
    ("binary",) or ("multionehot", nvec, start); slices, key -> slice of the vector; the
    flat Box space). Shared with the JAX flattening of :mod:`cuegym.learn.observations`."""
    plan, slices = [], {}
    lows, highs = [], []
    at = 0
    for k, s in space.spaces.items():
        if isinstance(s, spaces.Box):
            lo, hi = s.low.astype(float).ravel(), s.high.astype(float).ravel()
            if np.all(np.isfinite(lo)) and np.all(np.isfinite(hi)) and np.all(hi - lo <= BOX_LINEAR_SPAN):
                kind = ("linear", lo, np.where(hi > lo, hi - lo, 1.0))
                lows.append(np.zeros(lo.size))
                highs.append(np.ones(lo.size))
            else:
                kind = ("symlog",)
                lows.append(_symlog(lo))
                highs.append(_symlog(hi))
            size = lo.size
        elif isinstance(s, spaces.Discrete):
            kind, size = ("onehot", int(s.n), int(s.start)), int(s.n)
            lows.append(np.zeros(size))
            highs.append(np.ones(size))
        elif isinstance(s, spaces.MultiBinary):
            kind, size = ("binary",), int(np.prod(s.shape))
            lows.append(np.zeros(size))
            highs.append(np.ones(size))
        elif isinstance(s, spaces.MultiDiscrete):
            nvec = s.nvec.ravel().astype(int)
            kind, size = ("multionehot", nvec, s.start.ravel().astype(int)), int(nvec.sum())
            lows.append(np.zeros(size))
            highs.append(np.ones(size))
        else:
            raise ValueError(f"env.observation_space[{k!r}]: cannot flatten {s}")
        plan.append((k, kind))
        slices[k] = slice(at, at + size)
        at += size
    box = spaces.Box(np.concatenate(lows).astype(np.float32), np.concatenate(highs).astype(np.float32),
                     dtype=np.float32)
    return plan, slices, box


class FlatObservation(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """The Dict observation as one Box float32 vector, key by key in the space's order
    (``slices`` maps each key to its part; ``Dict`` spaces keep their keys sorted):

    * a Box with finite bounds and every span ≤ :data:`BOX_LINEAR_SPAN`: each element scaled
      to [0, 1] by its bounds, (x − low) / (high − low) — ``balls`` becomes x / W, y / L and
      the on-table flag;
    * any other Box (``scores``, counters such as ``debt``): symlog, sign(x) ln(1 + |x|),
      so a point matters as much at 0:0 as the bounds allow;
    * Discrete(n) (``phase``, ``to_play``): one-hot of n;
    * MultiBinary(n) (the legal masks): 0 / 1;
    * MultiDiscrete: a one-hot per entry.

    The layout follows the env's observation space, so read ``slices`` for any id (for
    ``cuegym/RussianPyramid-v0``, N = 16: ``balls`` 48, ``debt`` 2, ``foul_run`` 1, the
    three legal masks 16 each, ``owner`` 16 (-1, 0, 1 read 0, 0.5, 1), ``phase`` 6,
    ``scores`` 2, ``sudden_death`` 2, ``to_play`` 2: 127 values)."""

    def __init__(self, env: gym.Env):
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.ObservationWrapper.__init__(self, env)
        if not isinstance(env.observation_space, spaces.Dict):
            raise ValueError(f"env: FlatObservation needs a Dict observation space, got {env.observation_space}")
        self._plan, self.slices, self.observation_space = flat_plan(env.observation_space)

    def observation(self, obs) -> np.ndarray:
        out = np.zeros(self.observation_space.shape, np.float32)
        for k, kind in self._plan:
            x = np.asarray(obs[k])
            sl = self.slices[k]
            if kind[0] == "linear":
                out[sl] = (x.astype(float).ravel() - kind[1]) / kind[2]
            elif kind[0] == "symlog":
                out[sl] = _symlog(x.astype(float).ravel())
            elif kind[0] == "onehot":
                hot = np.zeros(kind[1])
                hot[int(x) - kind[2]] = 1.0
                out[sl] = hot
            elif kind[0] == "binary":
                out[sl] = x.astype(float).ravel()
            else:
                nvec, start = kind[1], kind[2]
                hot = np.zeros(int(nvec.sum()))
                offs = np.concatenate([[0], np.cumsum(nvec)[:-1]])
                hot[offs + x.astype(int).ravel() - start] = 1.0
                out[sl] = hot
        return np.clip(out, self.observation_space.low, self.observation_space.high)


# ----------------------------------------------------------------------------- factory


def make_sb3_env(env_id: str, mode: str = "shot_only", *, shot_low=None, shot_high=None, **kwargs) -> gym.Env:
    """``gymnasium.make(env_id, **kwargs)`` with a Box observation and the learner's action:
    ``mode="shot_only"``: ``FlatObservation(ShotOnly(env))``; ``mode="flatten"``:
    ``FlatObservation(FlattenDictAction(env))``; ``mode="menu"``: the shot menu,
    ``FlatObservation(MenuMasks(gymnasium.make(env_id, action="menu", **kwargs)))``, a
    Discrete action. ``shot_low`` / ``shot_high`` narrow the shot ranges (module
    docstring; not with the menu). Ready for ``PPO("MlpPolicy", env)``, ``SAC`` (a Box
    action) or ``MaskablePPO`` (the menu)."""
    import cuegym  # noqa: F401  (registers the ids)

    if mode not in ("shot_only", "flatten", "menu"):
        raise ValueError(f"mode: 'shot_only', 'flatten' or 'menu', got {mode!r}")
    if mode == "menu":
        for name, value in (("shot_low", shot_low), ("shot_high", shot_high)):
            if value is not None:
                raise ValueError(f"{name}: the menu's strokes are its own; leave it out with mode='menu'")
        if "action" in kwargs:
            raise ValueError(f"action: mode='menu' sets it; got action={kwargs['action']!r} too")
        return FlatObservation(MenuMasks(gym.make(env_id, action="menu", **kwargs)))
    env = gym.make(env_id, **kwargs)
    inner = ShotOnly(env, shot_low, shot_high) if mode == "shot_only" else FlattenDictAction(env, shot_low, shot_high)
    return FlatObservation(inner)
