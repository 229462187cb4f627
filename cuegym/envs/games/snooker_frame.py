"""Snooker and American snooker as a game module (tasks ``snooker`` and ``american-snooker``).

A whole frame under :mod:`cuegym.rules.snooker` or :mod:`cuegym.rules.american_snooker`
(``EnvState.game`` is a :class:`~cuegym.rules.snooker.SnookerState`), pure JAX, one table
per call; 22 balls: 0 the cue ball, 1..15 the reds, 16..21 yellow, green, brown, blue, pink,
black. Decisions: strokes (from the D in ``in_hand_d``, the placement projected into it),
the answer to a foul (``foul_choice``) and the lag (played as the Russian games' lag
stroke, the core's lag machinery), judged under the env's rule options
(:attr:`cuegym.envs.functional.FuncEnv.snooker_rules`). The reward of a decision, for each
player, is the change in (own score - opponent's score) x ``reward_scale``. Phases,
nominations and the action: docs/envs.md, "Snooker-v0 and AmericanSnooker-v0".
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from cuegym.envs import functional as F
from cuegym.envs import ghost
from cuegym.rules import american_snooker as asn
from cuegym.rules import russian as ru
from cuegym.rules import snooker as sn
from cuegym.rules.base import FRAME_OVER, LAG, NORMAL, Clauses, declare

REFEREES = {sn.GAME: (sn.judge, sn.choose), asn.GAME: (asn.judge, asn.choose)}
PHASES = len(sn.SNOOKER_PHASE_NAMES)
N = sn.N_BALLS
CHOICES = len(sn.CHOICE_NAMES)
D_GRID = (12, 24)  # radii x angles of the free spots tried when a placement touches a ball


def init(env, key, opts) -> F.EnvState:
    """A new frame: the balls set up (SN-07), the breaker drawn from ``key`` with the cue
    ball in hand in the D (SN-17); with ``lag_break`` a lag first (SN-16), player 0 first."""
    xy, on = sn.initial_layout(env.spec)
    k_first, _ = jax.random.split(key)
    breaker = jax.random.bernoulli(k_first).astype(jnp.int32)
    first = jnp.where(opts.lag_break, 0, breaker).astype(jnp.int32)
    phase = jnp.where(opts.lag_break, LAG, sn.IN_HAND_D).astype(jnp.int32)
    game = sn.initial_state(0)._replace(to_play=first, phase=phase)
    return F.new_episode(xy, on, game)


# ----------------------------------------------------------------------------- the D


def project_d(spec, xy, on, place):
    """The legal spot for the cue ball in hand nearest ``place`` (2,) [m]: moved into the D
    (SN-10: onto its arc or its line when outside), then, if it touches a ball, the nearest
    free point of a polar grid over the D. Returns (place (2,), projected () bool)."""
    c = jnp.asarray([spec.width / 2, spec.head_line])
    d = place - c
    d = d.at[1].set(jnp.minimum(d[1], 0.0))
    rho = jnp.sqrt(jnp.sum(d * d))
    inner = spec.d_radius * (1 - 1e-9)
    p = c + d * jnp.minimum(1.0, inner / jnp.maximum(rho, 1e-12))
    ok = sn.placement_ok(spec, xy, on, p)
    out = F.nearest_free(lambda q, xy, on: sn.placement_ok(spec, xy, on, q), ok, p, place, d_grid(spec), xy, on)
    return out, jnp.any(out != place)


def d_grid(spec):
    """(M, 2) [m] points covering the D: radii up to just inside the arc, angles over the
    half toward the baulk cushion (line included)."""
    nr, na = D_GRID
    rad = jnp.linspace(0.0, spec.d_radius * (1 - 1e-9), nr)
    ang = jnp.linspace(jnp.pi, 2 * jnp.pi, na)
    pts = jnp.stack([spec.width / 2 + rad[:, None] * jnp.cos(ang), spec.head_line + rad[:, None] * jnp.sin(ang)], -1)
    return pts.reshape(-1, 2)


# ----------------------------------------------------------------------------- masks


def balls_on(state: F.EnvState):
    """(N,) bool: the object balls on for the next stroke (every colour on the table when a
    colour is to be nominated; none outside a stroke)."""
    g = state.game
    ids = jnp.arange(N)
    on = state.on
    colours = on & (ids >= sn.FIRST_COLOUR)
    named = sn.on_set(g.ball_on, on, ids, jnp.asarray(-1))
    mask = jnp.where(g.ball_on == sn.COLOUR_ON, colours, named)
    return mask & ((g.phase == NORMAL) | (g.phase == sn.IN_HAND_D))


def legal_masks(env, state: F.EnvState):
    """Each (N,) bool: ``cue_ball`` the cue ball (0) when a stroke or lag stroke is due;
    ``ball`` the nominations open (:func:`cuegym.rules.snooker.legal_nominations`: the
    colours with a colour on, the free balls after a foul; none otherwise); ``choice`` in
    ``foul_choice`` the options open, entries 0..4 in CHOICE_NAMES order."""
    g = state.game
    ids = jnp.arange(N)
    stroke = (g.phase == NORMAL) | (g.phase == sn.IN_HAND_D)
    cue = (ids == 0) & (stroke | (g.phase == LAG))
    noms = sn.legal_nominations(g, state.on) & stroke
    open_ = sn.legal_choices(g)
    choice = jnp.zeros(N, bool).at[:CHOICES].set(open_)
    return {"cue_ball": cue, "ball": noms, "choice": choice}


# ----------------------------------------------------------------------------- step


def step(env, state: F.EnvState, action, key, opts) -> F.EnvState:
    """Play one decision: a stroke, a lag stroke or the answer to a foul."""
    spec = env.spec
    judge, choose = REFEREES[env.task]
    ids = jnp.arange(N)
    g = state.game
    phase = g.phase
    xy, on = state.xy, state.on
    in_hand = phase == sn.IN_HAND_D
    lag = phase == LAG
    choosing = phase == sn.FOUL_CHOICE
    over = phase == FRAME_OVER
    stroke = (phase == NORMAL) | in_hand | lag
    shot, clipped = F.sanitize_shot(jnp.asarray(action["shot"], jnp.float64))
    place = jnp.asarray(action["place"], jnp.float64)

    # The layout the stroke starts from: the cue ball placed in the D; a lag ball alone.
    p_hand, proj_hand = project_d(spec, xy, on, place)
    xy_s = jnp.where(in_hand, xy.at[0].set(p_hand), xy)
    on_s = jnp.where(in_hand, on.at[0].set(True), on)
    p_lag, proj_lag = F.project_lag(spec, g.to_play, place)
    xy_s = jnp.where(lag, jnp.zeros((N, 2)).at[0].set(p_lag), xy_s)
    on_s = jnp.where(lag, ids == 0, on_s)
    projected = (in_hand & proj_hand) | (lag & proj_lag)
    final, log, summ, played = F.strike(env, key, jnp.asarray(0, jnp.int32), shot, stroke, xy_s, on_s, opts)

    # A stroke: the referee. The nomination is read only where one is open.
    noms = sn.legal_nominations(g, on)
    nominated = jnp.where(jnp.any(noms), jnp.asarray(action["ball"], jnp.int32), -1)
    ruling, after = judge(spec, g, declare(struck=0, call_ball=nominated), summ, xy_s, on_s, final,
                          opts=env.snooker_rules)
    zero = jnp.asarray(0, jnp.int32)
    after = F.pick(after.phase == LAG, after._replace(to_play=zero), after)  # player 0 lags first
    new_game, new_xy, new_on, clauses = after, ruling.xy, ruling.on, ruling.clauses

    # The answer to a foul.
    r_c, g_c = choose(spec, g, xy, on, jnp.asarray(action["choice"], jnp.int32), opts=env.snooker_rules)
    new_game = F.pick(choosing, g_c, new_game)
    new_xy = jnp.where(choosing, r_c.xy, new_xy)
    new_on = jnp.where(choosing, r_c.on, new_on)
    clauses = jnp.where(choosing, r_c.clauses, clauses)

    # The lag: the first stroke is kept; the second is judged with it.
    memo = state.lag
    first = lag & (g.to_play == 0)
    summ_a, final_a = F.lag_replay(memo, summ, final)
    winner, lost = ru.judge_lag(spec, summ_a, final_a, summ, final)
    decided = winner >= 0
    w = jnp.maximum(winner, 0).astype(jnp.int32)
    opening = g.strokes == 0  # the lag for the break (SN-16), else the tie on the black (SN-15)
    resolved = F.pick(opening, g._replace(to_play=w, phase=jnp.asarray(sn.IN_HAND_D, jnp.int32)), sn.after_lag(g, w))
    one = jnp.asarray(1, jnp.int32)
    g_lag = F.pick(first, g._replace(to_play=one), F.pick(decided, resolved, g._replace(to_play=zero)))
    # cited when the second stroke decides; AS names the lag only for the tie (AS-12), its
    # break has no lag clause to cite
    c = Clauses()
    if env.task == asn.GAME:
        c.add("AS-12", ~opening & ~first)
    else:
        c.add("SN-16", opening & ~first).add("SN-15", ~opening & ~first)
    new_game = F.pick(lag, g_lag, new_game)
    new_xy = jnp.where(lag, xy, new_xy)
    new_on = jnp.where(lag, on, new_on)
    clauses = jnp.where(lag, c.mask, clauses)
    foul = ruling.foul & stroke & ~lag
    lag_winner = jnp.where(lag & ~first, winner, -1).astype(jnp.int32)
    memo = F.pick(first, F.lag_memo(summ, final), memo)

    diff = (new_game.scores - g.scores).astype(jnp.float64) * opts.reward_scale
    rewards = jnp.stack([diff[0] - diff[1], diff[1] - diff[0]])
    shots = state.shots + 1
    terminated = new_game.phase == FRAME_OVER
    truncated = ~terminated & (shots >= opts.max_shots)
    z = jnp.asarray(False)
    nxt = F.EnvState(new_xy, new_on, new_game, shots, rewards, terminated, truncated, clipped & ~choosing, projected,
                     foul, log.truncated, g.to_play, z, clauses, memo, lag_winner, xy_s, on_s, played,
                     ruling.counted & stroke & ~lag)  # the balls that scored (a foul answer pockets none)
    frozen = state._replace(rewards=jnp.zeros(2), terminated=jnp.asarray(True), truncated=z, potted=jnp.zeros(N, bool))
    return F.pick(over, frozen, nxt)


# ----------------------------------------------------------------------------- observe


def points_left(state: F.EnvState):
    """() int32: the most points the balls on the table can still give (each red followed
    by the black: 8 a red, plus the colours' values; 7 more when a colour is on after a red
    with no red left to follow)."""
    g = state.game
    ids = jnp.arange(N)
    reds = jnp.sum(state.on & (ids >= 1) & (ids < sn.FIRST_COLOUR))
    colours = jnp.sum(jnp.where(state.on & (ids >= sn.FIRST_COLOUR), jnp.asarray(sn.VALUES), 0))
    extra = jnp.where((g.ball_on == sn.COLOUR_ON) & (reds == 0), 7, 0)
    return (8 * reds + colours + extra).astype(jnp.int32)


def observe(env, state: F.EnvState) -> dict:
    """The observation dict (N = 22 balls):

    * ``balls`` (N, 3) float32: x, y [m], on-table flag (balls off the table read 0, 0, 0);
    * ``phase`` () int32 (:data:`cuegym.rules.snooker.SNOOKER_PHASE_NAMES`), ``to_play``;
    * ``scores`` (2,) float32: points;
    * ``legal_ball``, ``legal_cue_ball``, ``legal_choice`` (N,) int8: :func:`legal_masks`;
    * ``ball_on`` (N,) int8: the object balls on for the next stroke (:func:`balls_on`);
    * ``free_ball`` () int32: 1 when a free ball is announced (SN-60);
    * ``breaking`` () int32: 1 when the next stroke is the break (or its foul awaits the
      choice, SN-19);
    * ``remaining`` (2,) int32: the reds on the table and :func:`points_left`.
    """
    on = state.on
    g = state.game
    ids = jnp.arange(N)
    reds = jnp.sum(on & (ids >= 1) & (ids < sn.FIRST_COLOUR)).astype(jnp.int32)
    return {
        **F.table_observation(state, legal_masks(env, state), g.scores),
        "ball_on": balls_on(state).astype(jnp.int8),
        "free_ball": g.free_ball.astype(jnp.int32),
        "breaking": g.breaking.astype(jnp.int32),
        "remaining": jnp.stack([reds, points_left(state)]),
    }


# ----------------------------------------------------------------------------- opponents


def random_action(env, state: F.EnvState, key) -> dict:
    """A uniformly random legal action from ``key``: the shot uniform over its limits, the
    placement uniform over the D (over the player's half of the lag area in a lag), the
    nomination and the foul choice uniform over their masks (any object ball, and "play",
    when none is open)."""
    spec = env.spec
    k = jax.random.split(key, 6)
    masks = legal_masks(env, state)
    g = state.game
    rad = spec.d_radius * jnp.sqrt(jax.random.uniform(k[1], ()))
    ang = jax.random.uniform(k[2], (), minval=jnp.pi, maxval=2 * jnp.pi)
    in_d_place = jnp.stack([spec.width / 2 + rad * jnp.cos(ang), spec.head_line + rad * jnp.sin(ang)])
    lo, hi = F.lag_region(spec, g.to_play)
    lag_place = jax.random.uniform(k[1], (2,), jnp.float64, lo, hi)
    ids = jnp.arange(N)
    noms = masks["ball"]
    return {
        "shot": jax.random.uniform(k[0], (5,), jnp.float64, jnp.asarray(F.SHOT_LOW), jnp.asarray(F.SHOT_HIGH)),
        "place": jnp.where(g.phase == LAG, lag_place, in_d_place),
        "cue_ball": jnp.asarray(0, jnp.int32),
        "ball": F.categorical(k[3], jnp.where(jnp.any(noms), noms, ids != 0)),
        "pocket": jax.random.randint(k[4], (), 0, 6).astype(jnp.int32),
        "choice": F.categorical(k[5], jnp.where(jnp.any(masks["choice"]), masks["choice"], ids == sn.PLAY)),
    }


def ghost_spot(spec):
    """Where the ghost puts the cue ball in hand: on the D's centre line, halfway between
    the baulk line and the arc (the step moves it off any ball)."""
    return jnp.asarray([spec.width / 2, spec.head_line - spec.d_radius / 2])


def ghost_action(env, state: F.EnvState) -> dict:
    """The ghost-ball heuristic (deterministic; the step adds the noise): the easiest
    ghost-ball pot of a ball on (:func:`cuegym.envs.ghost.pots`), nominating it when a
    nomination is open (a colour on; with a free ball, the ghost plays only the balls
    on); with no pot kept, a full hit at 2.5 m/s on the nearest ball on. In hand the cue
    ball goes to :func:`ghost_spot`. After a foul it plays on (``play``). The lag as the
    Russian games' ghost (:func:`cuegym.envs.games.pyramid.ghost_action`)."""
    spec = env.spec
    ids = jnp.arange(N)
    g = state.game
    in_hand = g.phase == sn.IN_HAND_D
    spot, _ = project_d(spec, state.xy, state.on, ghost_spot(spec))
    xy = jnp.where(in_hand, state.xy.at[0].set(spot), state.xy)
    on = jnp.where(in_hand, state.on.at[0].set(True), state.on)
    targets = balls_on(state)
    pot = ghost.pots(env.table, spec.ball_radius, xy, on, ids == 0, targets)
    flat = pot.score[0].reshape(-1)  # the cue ball's row: (J x P)
    best = jnp.argmax(flat)
    j, p = best // 6, best % 6
    found = jnp.isfinite(flat[best])
    dd = jnp.where(targets, jnp.sum((xy - xy[0]) ** 2, -1), jnp.inf)
    j0 = jnp.argmin(dd)
    phi0 = jnp.arctan2(xy[j0, 1] - xy[0, 1], xy[j0, 0] - xy[0, 0])
    j = jnp.where(found, j, j0)
    phi = jnp.where(found, pot.phi[0, j, p], phi0)
    speed = jnp.where(found, pot.speed[0, j, p], 2.5)
    shot = jnp.stack([jnp.mod(phi, 2 * jnp.pi), speed, 0.0, F.GHOST_DRAW, 0.0])
    lag = g.phase == LAG
    lag_place, lag_shot = F.ghost_lag(spec, g.to_play)
    return {
        "shot": jnp.where(lag, lag_shot, shot),
        "place": jnp.where(lag, lag_place, spot),
        "cue_ball": jnp.asarray(0, jnp.int32),
        "ball": j.astype(jnp.int32),
        "pocket": p.astype(jnp.int32),
        "choice": jnp.asarray(sn.PLAY, jnp.int32),
    }


def in_hand_box(spec):
    """(low (2,), high (2,)) [m]: the bounding box of the D."""
    return (jnp.asarray([spec.width / 2 - spec.d_radius, spec.head_line - spec.d_radius]),
            jnp.asarray([spec.width / 2 + spec.d_radius, spec.head_line]))



def from_observation(env: F.FuncEnv, obs: dict) -> F.EnvState:
    """(traceable) The snooker games' state from an observation (the arrays of
    :func:`cuegym.agents.base.observation_arrays`). The ball on is read from the
    ``ball_on`` mask (a red; several colours: a colour to nominate; one colour with no red
    left: that colour in sequence); outside a stroke, where the mask is empty, a red while
    reds remain, else the lowest colour. What the observation lacks: the position before
    the last stroke (taken as the current one), the touching ball (none)."""
    base = F.init(env, jax.random.PRNGKey(0))
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

__all__ = [
    "balls_on",
    "d_grid",
    "from_observation",
    "ghost_action",
    "ghost_spot",
    "in_hand_box",
    "init",
    "legal_masks",
    "observe",
    "points_left",
    "project_d",
    "random_action",
    "step",
]
