"""Properties every ruling keeps, over long random sequences of strokes.

The strokes are random event summaries (which balls were hit, fell, left the table; random
cushions and close-ball flags) on random layouts, fed through each game's jitted referee,
with the ruling's layout and state carried into the next stroke. Checked after every stroke:

* Russian pyramid: fouls move exactly 5 points from the offender to the opponent, so the sum
  of the two scores equals the value of the object balls no longer on the table (plus the
  last-ball bonus once the table is cleared; RP-05/06/16, AMB-21). A stroke changes a score
  only by the clause amounts: the balls counted (+10 bonus) and ±5.
* Americanka / Moscow pyramid: balls are never created or lost. Every ball is on the table,
  credited to exactly one player, or (Moscow) the cue ball in hand; a player's score is the
  number of balls credited to him; debt never goes negative (AM-16/17, MP-13/14).
* Every layout is legal: no two balls on the table overlap, and every ball is on the bed.
* A jitted, vmapped batch of rulings equals the same rulings one by one, bit for bit.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from cuegym.envs.registry import position_games
from cuegym.physics import at_rest, get_spec
from cuegym.physics.balls import OFF_TABLE, POCKETED
from cuegym.physics.summary import start_summary
from cuegym.positions import check_layout
from cuegym.rules import declare
from cuegym.rules.base import FRAME_OVER, IN_HAND_HOUSE, IN_HAND_REAR, LAG, REMOVE_BALL
from cuegym.rules.catalogue import code
from cuegym.rules.russian_pyramid import VALUES

GAMES = {name: g.referee for name, g in position_games().items() if g.family in ("russian", "snooker")}
"""The referees these properties cover (golf has its own tests)."""

SPEC = get_spec("pyramid-12ft")
R = SPEC.ball_radius
N = 16


def random_layout(rng, n_on):
    """Non-overlapping centres for ``n_on`` balls in the open bed (away from pockets)."""
    xy = np.zeros((N, 2))
    on = np.zeros(N, bool)
    placed = []
    while len(placed) < n_on:
        p = rng.uniform([0.1, 0.1], [SPEC.width - 0.1, SPEC.length - 0.1])
        if all(np.hypot(*(p - q)) > 2 * R + 1e-3 for q in placed):
            placed.append(p)
    idx = rng.permutation(N)[:n_on]
    for i, p in zip(idx, placed):
        xy[i] = p
        on[i] = True
    return xy, on


def random_stroke(rng, xy, on, struck, events_scale=1.0):
    """A random ShotSummary and final BallState for a stroke by ``struck``."""
    balls = at_rest(xy, on)
    summ = start_summary(balls, struck, rng.uniform(-np.pi, np.pi), False, R)
    present = np.nonzero(on)[0]
    others = [i for i in present if i != struck]
    first = int(rng.choice(others)) if others and rng.random() < 0.9 else -1
    pocket = np.full(N, -1, np.int32)
    order = np.full(N, -1, np.int32)
    off = np.zeros(N, bool)
    k = 0
    for i in present:
        u = rng.random()
        if u < 0.12 * events_scale:
            pocket[i] = rng.integers(0, 6)
            order[i] = k
            k += 1
        elif u < 0.15 * events_scale:
            off[i] = True
    cushion_first = np.where(rng.random((N, 6)) < 0.2, rng.uniform(0, 5, (N, 6)), np.inf)
    cushion_last = np.where(np.isfinite(cushion_first), cushion_first + rng.uniform(0, 1, (N, 6)), -np.inf)
    cross = np.where(rng.random(N) < 0.3, rng.uniform(0, 5, N), np.inf)
    contact = np.full((N, N), np.inf)
    if first >= 0:
        contact[struck, first] = contact[first, struck] = 0.5
    summ = summ._replace(
        first_contact=jnp.asarray(first, jnp.int32),
        first_contact_t=jnp.asarray(0.5 if first >= 0 else np.inf),
        pocket=jnp.asarray(pocket),
        pocket_order=jnp.asarray(order),
        pocket_t=jnp.asarray(np.where(pocket >= 0, 1.0 + order, np.inf)),
        off_table=jnp.asarray(off),
        touched=jnp.asarray(np.isfinite(contact).any(1)),
        contact_t=jnp.asarray(contact),
        cushion_first_t=jnp.asarray(cushion_first),
        cushion_last_t=jnp.asarray(cushion_last),
        crossed_centre=jnp.asarray(np.isfinite(cross)),
        cross_t=jnp.asarray(cross),
        follow=jnp.asarray(rng.random() < 0.3),
        end_t=jnp.asarray(6.0),
    )
    state = np.where(pocket >= 0, POCKETED, np.where(off, OFF_TABLE, np.asarray(balls.state)))
    final = balls._replace(state=jnp.asarray(state, jnp.int32), pocket=jnp.asarray(pocket))
    return summ, final


@functools.lru_cache(maxsize=None)
def judge_fn(game):
    return jax.jit(functools.partial(GAMES[game].judge, SPEC))


@functools.lru_cache(maxsize=None)
def choose_fn():
    return jax.jit(functools.partial(GAMES["moscow-pyramid"].choose, SPEC))


def place_in_hand(rng, spec, xy, on, phase, cue):
    """A legal random place for the ball in hand (the env's job; here: rejection sampling)."""
    lo, hi = (0.04, spec.head_line - 0.01) if phase == IN_HAND_HOUSE else (spec.length - spec.head_line + 0.01, spec.length - 0.04)
    for _ in range(1000):
        p = rng.uniform([0.05, lo], [spec.width - 0.05, hi])
        d = np.hypot(*(xy[on] - p).T)
        if np.all(d > 2 * R + 1e-4):
            return p
    raise AssertionError("no room for the ball in hand")


def check_layout_ok(xy, on):
    balls = {str(i): (float(xy[i, 0]), float(xy[i, 1])) for i in np.nonzero(on)[0]}
    check_layout("pyramid-12ft", balls)


def play_random_frame(game, seed, strokes=60):
    """Yield (state before, ruling, state after, layout before) for random strokes."""
    rng = np.random.default_rng(seed)
    mod = GAMES[game]
    judge = judge_fn(game)
    xy, on = random_layout(rng, int(rng.integers(6, 16)))
    if game != "americanka":
        # the cue ball (index 0) starts in hand
        on[0] = False
    state = mod.initial_state(int(rng.integers(0, 2)))
    if game != "russian-pyramid":
        # balls already off the table were won earlier: credit them to the players
        in_hand = 15 if game == "americanka" else 0  # ball 16 / the cue ball starts in hand
        on[in_hand] = False
        gone = [i for i in range(N) if not on[i] and i != in_hand]
        owner = np.full(N, -1, np.int32)
        owned_at = np.full(N, -1, np.int32)
        for k, i in enumerate(rng.permutation(gone)):
            owner[i] = k % 2  # at most 10 balls gone: at most 5 each, no winner yet
            owned_at[i] = k
        scores = [int(np.sum(owner == 0)), int(np.sum(owner == 1))]
        state = state._replace(owner=jnp.asarray(owner), owned_at=jnp.asarray(owned_at),
                               credits=jnp.asarray(len(gone), jnp.int32), scores=jnp.asarray(scores, jnp.int32))
    for _ in range(strokes):
        phase = int(state.phase)
        if phase == FRAME_OVER:
            return
        if phase == LAG:
            state = state._replace(phase=jnp.asarray(IN_HAND_HOUSE, jnp.int32))
            continue
        if phase == REMOVE_BALL:
            objects = np.nonzero(np.asarray(on) & (np.arange(N) != 0))[0]
            choice = int(rng.choice(objects)) if objects.size else -1
            ruling, new = choose_fn()(state, jnp.asarray(xy), jnp.asarray(on), jnp.asarray(choice, jnp.int32))
            yield state, ruling, new, (xy, on)
            state, xy, on = new, np.asarray(ruling.xy), np.asarray(ruling.on)
            continue
        xy, on = np.asarray(xy).copy(), np.asarray(on).copy()
        if game == "americanka":
            if phase in (IN_HAND_HOUSE, IN_HAND_REAR):
                struck = 15
                if not on[15]:
                    xy[15] = place_in_hand(rng, SPEC, xy, on, phase, 15)
                    on[15] = True
            else:
                struck = int(rng.choice(np.nonzero(on)[0]))
        else:
            struck = 0
            if phase in (IN_HAND_HOUSE, IN_HAND_REAR):
                xy[0] = place_in_hand(rng, SPEC, xy, on, phase, 0)
                on[0] = True
        if on.sum() < 2:
            return
        summ, final = random_stroke(rng, xy, on, struck)
        objects = np.nonzero(on & (np.arange(N) != struck))[0]
        call = int(rng.choice(objects)) if objects.size else -1
        decl = declare(struck=struck, call_ball=call, call_pocket=int(rng.integers(0, 6)))
        ruling, new = judge(state, decl, summ, jnp.asarray(xy), jnp.asarray(on), final)
        yield state, ruling, new, (xy, on)
        state, xy, on = new, np.asarray(ruling.xy), np.asarray(ruling.on)


@pytest.mark.parametrize("seed", range(6))
def test_russian_pyramid_points_follow_the_clauses(seed):
    offset = None
    for before, ruling, after, (_, on) in play_random_frame("russian-pyramid", seed):
        if offset is None:  # the frame starts with some balls already gone and 0:0
            offset = -int(VALUES[1:][~on[1:]].sum())
        new_on = np.asarray(ruling.on)
        check_layout_ok(np.asarray(ruling.xy), new_on)
        points = np.asarray(ruling.points)
        counted = np.asarray(ruling.counted)
        gained = int(VALUES[counted].sum())
        striker = int(before.to_play)
        cleared = not new_on[1:].any()
        bonus = 10 if (counted.any() and cleared) else 0
        if bool(np.asarray(ruling.clauses)[code("RP-20")]):  # stalemate: 70:70 by RP-21
            assert list(np.asarray(ruling.scores)) == [70, 70]
            return
        # zero-sum fouls: the scores' sum moves by exactly the points pocketed
        assert int(points.sum()) == gained + bonus
        foul_shift = {0, 5, -5, 10, -10}
        assert int(points[striker]) - gained - bonus in foul_shift
        assert int(points[1 - striker]) in foul_shift
        if bool(ruling.foul):
            assert gained == 0 and int(points[striker]) <= 0
        # the score sum equals the value of the object balls gone from the table
        if bool(after.sudden_death):
            return
        total = int(VALUES[1:][~new_on[1:]].sum()) + (10 if cleared else 0) + offset
        assert int(np.asarray(ruling.scores).sum()) == total


def _conservation(game, seed):
    for _, ruling, after, _ in play_random_frame(game, seed):
        on = np.asarray(ruling.on)
        owner = np.asarray(after.owner)
        check_layout_ok(np.asarray(ruling.xy), on)
        assert not np.any(on & (owner >= 0)), "a credited ball is on the table"
        balls = np.arange(N) if game == "americanka" else np.arange(1, N)
        unaccounted = [int(i) for i in balls if not on[i] and owner[i] < 0]
        assert not unaccounted, f"balls lost: {unaccounted}"
        for p in (0, 1):
            assert int(after.scores[p]) == int(np.sum(owner == p))
        assert np.all(np.asarray(after.debt) >= 0)
        assert list(np.asarray(ruling.scores)) == list(np.asarray(after.scores))


@pytest.mark.parametrize("seed", range(4))
def test_americanka_balls_are_never_created_or_lost(seed):
    _conservation("americanka", seed)


@pytest.mark.parametrize("seed", range(4))
def test_moscow_pyramid_balls_are_never_created_or_lost(seed):
    _conservation("moscow-pyramid", seed)


@pytest.mark.parametrize("game", sorted(g for g in GAMES if g not in ("snooker", "american-snooker")))
def test_vmapped_batch_equals_one_by_one(game):
    rng = np.random.default_rng(7)
    mod = GAMES[game]
    items = []
    for b in range(16):
        xy, on = random_layout(rng, int(rng.integers(4, 16)))
        struck = int(np.nonzero(on)[0][0]) if game == "americanka" else 0
        on[struck] = True
        if not on[0] and game != "americanka":
            xy[0] = place_in_hand(rng, SPEC, xy, on, IN_HAND_HOUSE, 0)
        summ, final = random_stroke(rng, xy, on, struck, events_scale=2.0)
        state = mod.initial_state(b % 2)._replace(phase=jnp.asarray(b % 2, jnp.int32), scores=jnp.asarray([b, 3], jnp.int32))
        objects = np.nonzero(on & (np.arange(N) != struck))[0]
        decl = declare(struck=struck, call_ball=int(objects[0]), call_pocket=b % 6, choice=-1)
        items.append((state, decl, summ, jnp.asarray(xy), jnp.asarray(on), final))
    batch = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *items)
    judged = jax.jit(jax.vmap(functools.partial(mod.judge, SPEC)))(*batch)
    single = judge_fn(game)
    for b, item in enumerate(items):
        one = single(*item)
        for x, y in zip(jax.tree_util.tree_leaves(one), jax.tree_util.tree_leaves(judged)):
            assert np.asarray(x).tobytes() == np.asarray(y[b]).tobytes()
