"""Golf as a game module (task ``golf``), 2..6 players.

A round under :mod:`cuegym.rules.golf` (``EnvState.game`` is a
:class:`~cuegym.rules.golf.GolfState`) on ``snooker-12ft`` (GF-01), pure JAX, one table per
call; 7 balls: 0 the cue ball, ball p + 1 player p's. The number of players is the traced
option ``num_players``, so one compiled program serves 2..6; the per-player arrays always
have P = 6 entries (players >= ``num_players`` take no part). Decisions: strokes (from the
house in ``in_hand_house``, the placement projected into it) and GF-23's set-up
(``house_choice``). The reward of a decision, for each player, is minus the strokes charged
to him (GF-06/07) x ``reward_scale``. Phases and the action: docs/envs.md, "Golf-v0".
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from cuegym.envs import functional as F
from cuegym.envs import ghost
from cuegym.envs.registry import game
from cuegym.physics.strike import Shot
from cuegym.rules import golf as gf
from cuegym.rules import pool
from cuegym.rules.base import FRAME_OVER, IN_HAND_HOUSE, NORMAL

N = gf.N_BALLS
P = gf.MAX_PLAYERS
CUE = gf.CUE
CHOICES = len(gf.CHOICE_NAMES)
HOUSE_GRID = (64, 32)  # across x along: the free spots tried when a placement touches a ball
GHOST_SAFETY_SPEED = 2.0  # m/s: the ghost's full hit on its ball when it sees no pot

assert game(gf.GAME).players == P and game(gf.GAME).n_balls == N  # the env's widths are the referee's


def init(env, key, opts) -> F.EnvState:
    """A new game of ``opts.num_players`` players: the first player drawn by lot from
    ``key`` (AMB-51), the cue ball on the centre spot and his ball on the rear spot, the
    other balls off the table (GF-04/08, AMB-48)."""
    k_first, _ = jax.random.split(key)
    n = opts.num_players
    first = jax.random.randint(k_first, (), 0, n).astype(jnp.int32)
    cue, ball = gf.start_spots(env.spec)
    ids = jnp.arange(N)
    xy = jnp.zeros((N, 2)).at[CUE].set(jnp.asarray(cue)).at[first + 1].set(jnp.asarray(ball))
    on = (ids == CUE) | (ids == first + 1)
    active = jnp.arange(P) < n
    game = gf.initial_state(2, 0)._replace(
        to_play=first, num_players=n.astype(jnp.int32), first=first,
        next_pocket=jnp.where(active, 1, gf.N_POCKETS + 1).astype(jnp.int32))
    return F.new_episode(xy, on, game, P)


# ----------------------------------------------------------------------------- the house


def house_grid(spec):
    """(M, 2) [m] points covering the ball-in-hand region (:func:`cuegym.rules.golf.in_hand_region`)."""
    lo, hi = gf.in_hand_region(spec)
    nx, ny = HOUSE_GRID
    gx = jnp.linspace(lo[0], hi[0], nx)
    gy = jnp.linspace(lo[1], hi[1], ny)
    return jnp.stack(jnp.meshgrid(gx, gy, indexing="ij"), -1).reshape(-1, 2)


def project_house(spec, xy, on, place):
    """The legal spot for the cue ball in hand nearest ``place`` (2,) [m]: clamped into the
    house (GF-27, POOL-GEN-15/30), then, if it touches a ball, the nearest free point of
    :func:`house_grid`. ``xy`` (N, 2) [m], ``on`` (N,). Returns (place (2,), projected () bool)."""
    lo, hi = (jnp.asarray(v) for v in gf.in_hand_region(spec))
    p = jnp.clip(place, lo, hi)
    ok = gf.placement_ok(spec, xy, on, p, IN_HAND_HOUSE)
    out = F.nearest_free(lambda q, xy, on: gf.placement_ok(spec, xy, on, q, IN_HAND_HOUSE), ok, p, place,
                         house_grid(spec), xy, on)
    return out, jnp.any(out != place)


# ----------------------------------------------------------------------------- masks


def legal_masks(env, state: F.EnvState):
    """Each (N,) bool: ``cue_ball`` the cue ball (0) when a stroke is due; ``ball`` the
    player's own ball, the one to hit first (GF-21; informative only, golf reads no call);
    ``choice`` in ``house_choice`` the GF-23 set-ups open, entries 0..1 in CHOICE_NAMES
    order (:func:`cuegym.rules.golf.legal_choices`)."""
    g = state.game
    ids = jnp.arange(N)
    stroke = (g.phase == NORMAL) | (g.phase == IN_HAND_HOUSE)
    cue = (ids == CUE) & stroke
    ball = gf.legal_targets(g) & state.on & stroke
    choice = jnp.zeros(N, bool).at[:CHOICES].set(gf.legal_choices(g))
    return {"cue_ball": cue, "ball": ball, "choice": choice}


# ----------------------------------------------------------------------------- step


def step(env, state: F.EnvState, action, key, opts) -> F.EnvState:
    """Play one decision: a stroke (from hand or not) or the set-up of GF-23."""
    spec = env.spec
    g = state.game
    phase = g.phase
    xy, on = state.xy, state.on
    in_hand = phase == IN_HAND_HOUSE
    choosing = phase == gf.HOUSE_CHOICE
    over = phase == FRAME_OVER
    stroke = (phase == NORMAL) | in_hand
    shot, clipped = F.sanitize_shot(jnp.asarray(action["shot"], jnp.float64))
    place = jnp.asarray(action["place"], jnp.float64)

    # The layout the stroke starts from: the cue ball placed in the house.
    p_hand, proj_hand = project_house(spec, xy, on, place)
    xy_s = jnp.where(in_hand, xy.at[CUE].set(p_hand), xy)
    on_s = jnp.where(in_hand, on.at[CUE].set(True), on)
    projected = in_hand & proj_hand
    cue = jnp.asarray(CUE, jnp.int32)
    final, log, summ, played = F.strike(env, key, cue, shot, stroke, xy_s, on_s, opts)

    # A stroke: the referee, with the stroke as played (its elevation and tip height
    # decide whether a jump was proper, POOL-GEN-43..45).
    struck = Shot(cue, played[1], played[2], played[3], played[4], played[5])
    ruling, after = gf.judge(spec, g, pool.declare(), summ, xy_s, on_s, final, struck)
    # The set-up after the cue ball left the table with the own ball in the house (GF-23).
    r_c, g_c = gf.choose(spec, g, xy, on, jnp.asarray(action["choice"], jnp.int32))
    new_game = F.pick(choosing, g_c, after)
    new_xy = jnp.where(choosing, r_c.xy, ruling.xy)
    new_on = jnp.where(choosing, r_c.on, ruling.on)
    clauses = jnp.where(choosing, r_c.clauses, ruling.clauses)

    # minus the strokes charged (old - new: a zero stays +0.0)
    rewards = (g.strokes - new_game.strokes).astype(jnp.float64) * opts.reward_scale
    shots = state.shots + 1
    terminated = new_game.phase == FRAME_OVER
    truncated = ~terminated & (shots >= opts.max_shots)
    z = jnp.asarray(False)
    nxt = F.EnvState(new_xy, new_on, new_game, shots, rewards, terminated, truncated, clipped & ~choosing, projected,
                     ruling.foul & stroke, log.truncated, g.to_play, z, clauses, state.lag,
                     jnp.asarray(-1, jnp.int32), xy_s, on_s, played,
                     ruling.counted & stroke)  # the own ball potted legally (a set-up pockets none)
    frozen = state._replace(rewards=jnp.zeros(P), terminated=jnp.asarray(True), truncated=z, potted=jnp.zeros(N, bool))
    return F.pick(over, frozen, nxt)


# ----------------------------------------------------------------------------- observe


def target_pockets(state: F.EnvState):
    """(P,) int32: each player's next pocket as a physics pocket id
    (``cuegym.physics.POCKETS`` order, the action's ``pocket`` indices); -1 for a player
    who has finished (pocket 6 done) or takes no part."""
    g = state.game
    ids = jnp.asarray(gf.POCKET_IDS)[jnp.clip(g.next_pocket - 1, 0, gf.N_POCKETS - 1)]
    playing = (jnp.arange(P) < g.num_players) & (g.next_pocket <= gf.N_POCKETS)
    return jnp.where(playing, ids, -1).astype(jnp.int32)


def observe(env, state: F.EnvState) -> dict:
    """The observation dict (N = 7 balls, P = 6 players):

    * ``balls`` (N, 3) float32: x, y [m], on-table flag (balls off the table read 0, 0, 0);
    * ``phase`` () int32 (:data:`cuegym.rules.golf.GOLF_PHASE_NAMES`), ``to_play`` () int32;
    * ``scores`` (P,) float32: each player's strokes so far (GF-06/07; lowest wins);
    * ``legal_ball``, ``legal_cue_ball``, ``legal_choice`` (N,) int8: :func:`legal_masks`;
    * ``target_pocket`` (P,) int32: :func:`target_pockets` (the player to play aims at
      entry ``to_play``);
    * ``opening`` () int32: 1 when the next stroke must take the own ball to the rear
      cushion (GF-09);
    * ``num_players`` () int32: the players in the game, 2..6.
    """
    g = state.game
    return {
        **F.table_observation(state, legal_masks(env, state), g.strokes),
        "target_pocket": target_pockets(state),
        "opening": g.opening.astype(jnp.int32),
        "num_players": g.num_players.astype(jnp.int32),
    }


# ----------------------------------------------------------------------------- opponents


def random_action(env, state: F.EnvState, key) -> dict:
    """A uniformly random legal action from ``key``: the shot uniform over its limits, the
    placement uniform over the house, the set-up uniform over those open (``rear_spot``
    when none is); ``ball`` the own ball, ``pocket`` uniform (neither is read)."""
    spec = env.spec
    k = jax.random.split(key, 4)
    masks = legal_masks(env, state)
    lo, hi = (jnp.asarray(v) for v in gf.in_hand_region(spec))
    ids = jnp.arange(N)
    return {
        "shot": jax.random.uniform(k[0], (5,), jnp.float64, jnp.asarray(F.SHOT_LOW), jnp.asarray(F.SHOT_HIGH)),
        "place": jax.random.uniform(k[1], (2,), jnp.float64, lo, hi),
        "cue_ball": jnp.asarray(CUE, jnp.int32),
        "ball": (state.game.to_play + 1).astype(jnp.int32),
        "pocket": jax.random.randint(k[2], (), 0, 6).astype(jnp.int32),
        "choice": F.categorical(k[3], jnp.where(jnp.any(masks["choice"]), masks["choice"], ids == gf.REAR_SPOT)),
    }


def ghost_spot(spec):
    """Where the ghost puts the cue ball in hand: on the long string halfway between the
    head cushion and the front line (the step moves it off any ball)."""
    return jnp.asarray([spec.width / 2, spec.head_line / 2])


def ghost_action(env, state: F.EnvState) -> dict:
    """The ghost-ball heuristic (deterministic; the step adds the noise): the ghost-ball pot
    of the player's own ball into the round's pocket (:func:`cuegym.envs.ghost.pots`, only that
    pocket considered), struck below centre; with none kept, a full hit on the own ball at
    ``GHOST_SAFETY_SPEED`` (meant to reach a cushion after the contact, GF-21; ghost
    against ghost, 2 players, seed 0/1: 38 fouls in 400 decisions, pocket 5 reached). In
    hand the cue ball goes to :func:`ghost_spot`;
    in ``house_choice`` it takes ``rear_spot`` (always open)."""
    spec = env.spec
    ids = jnp.arange(N)
    g = state.game
    in_hand = g.phase == IN_HAND_HOUSE
    spot, _ = project_house(spec, state.xy, state.on, ghost_spot(spec))
    xy = jnp.where(in_hand, state.xy.at[CUE].set(spot), state.xy)
    on = jnp.where(in_hand, state.on.at[CUE].set(True), state.on)
    own = (g.to_play + 1).astype(jnp.int32)
    pot = ghost.pots(env.table, spec.ball_radius, xy, on, ids == CUE, ids == own)
    p = gf.target_pocket(g)
    found = jnp.isfinite(pot.score[CUE, own, p])
    phi0 = jnp.arctan2(xy[own, 1] - xy[CUE, 1], xy[own, 0] - xy[CUE, 0])
    phi = jnp.where(found, pot.phi[CUE, own, p], phi0)
    speed = jnp.where(found, pot.speed[CUE, own, p], GHOST_SAFETY_SPEED)
    b = jnp.where(found, F.GHOST_DRAW, 0.0)
    return {
        "shot": jnp.stack([jnp.mod(phi, 2 * jnp.pi), speed, 0.0, b, 0.0]),
        "place": spot,
        "cue_ball": jnp.asarray(CUE, jnp.int32),
        "ball": own,
        "pocket": p.astype(jnp.int32),
        "choice": jnp.asarray(gf.REAR_SPOT, jnp.int32),
    }



def from_observation(env: F.FuncEnv, obs: dict) -> F.EnvState:
    """(traceable) Golf's state from an observation (the arrays of
    :func:`cuegym.agents.base.observation_arrays`). Each player's next pocket is read back from
    ``target_pocket`` (a physics pocket id; -1: done, or not playing), the round's pocket is
    the striker's, and the first player of the order is the striker counted back over the
    players who have already finished this round (they are first, first + 1, ..., the
    striker - 1: GF-11..18); the GF-23 set-ups open from ``legal_choice``. What the
    observation lacks: the score sheet (zeros; the totals are ``scores``) and the strokes
    played (0); neither changes a ruling."""
    base = F.init(env, jax.random.PRNGKey(0))
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

__all__ = [
    "from_observation",
    "ghost_action",
    "ghost_spot",
    "house_grid",
    "init",
    "legal_masks",
    "observe",
    "project_house",
    "random_action",
    "step",
    "target_pockets",
]
