"""Every agent returns a legal action in every phase of every game: a property test over
random reachable states of each id, and the agents on golf.

The states: for each id one batch of B = 64 tables is dealt and played STEPS decisions
inside the env's own batched program (:func:`cuegym.envs.functional.batched`), even lanes by the
built-in random opponent, odd lanes by the built-in ghost (which gets deeper into a frame);
the two-player games' lag is the deal of a second batch with ``lag_break``; golf's lanes
have 3 and 6 players (a traced option). B is the search's 16 x 4 lanes of
tests/agents/test_agents.py, so the step is one compiled program shared with the search of both
files. From the states met, up to PER_PHASE of each phase are drawn (seeded); the phases a
game must have reached are asserted (EXPECTED), so the test cannot pass on an empty sample.
Golf's ``house_choice`` is rare in such play (one lane in 64 after 60 decisions), so it is
also made from reached states as GF-23 leaves it: the cue ball off the table and the own
ball in the house.

Legal, judged from the observation and the rulebook, not from the agents' code: inside the
action space; ``cue_ball``, ``ball`` and ``choice`` allowed by the observation's masks
whenever a mask is open; a ball in hand inside the phase's region (the house or temporary
house, RU-GEN-14/20; the D, SN-17; golf's house strictly behind the front line, GF-27,
POOL-GEN-15/30) and, except for the random agent (which draws over the region and lets the
env move it), not touching a ball; a lag ball in the player's half of the house.

Cheap by construction: one batched program per id, random and ghost decisions are
milliseconds, the search runs its tiny budget (one round of 16 x 4 lanes) on SEARCH_STATES
states per id only."""

import functools

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import cuegym
from cuegym.agents import GhostBallAgent, RandomAgent, SearchAgent, make_func_env, state_from_observation
from cuegym.agents.base import observation_arrays
from cuegym.envs import functional as F
from cuegym.physics import get_table
from cuegym.rules import golf as gf
from cuegym.rules import russian as ru
from cuegym.rules import snooker as sn
from cuegym.rules.base import IN_HAND_HOUSE, IN_HAND_REAR, LAG, NORMAL
from cuegym.rules.snooker_sight import in_d

B = 64
# decisions played: a Russian rack's batch step takes about a second; golf's two-ball tables
# less, and golf reaches a ball in hand only after a few fouls; PotShot and Lag-v0 end after
# one. A snooker batch step takes about a minute on the shared 2-core machine, and every
# break of the batch fouls: snooker plays on to the answer (normal play), American snooker,
# whose agents run the same code (cuegym.envs.games.snooker_frame), stops at the foul
STEPS = {"pot-shot": 1, "lag": 1, "golf": 24, "snooker": 2, "american-snooker": 1}
DEFAULT_STEPS = 6
PER_PHASE = 4
# the search's stroke decisions (one batch step each); the snooker strokes' search is
# tests/agents/test_agents.py's; decisions without a stroke (a foul's answer, a set-up) are all tried
SEARCH_STROKES = {"snooker": 0, "american-snooker": 0}
DEFAULT_SEARCH_STROKES = 2
TINY = dict(candidates=16, samples=4, rounds=1, time_budget=None)
# the phases each game must reach in that play (remove_ball, the temporary house and the end
# of a frame are too rare for a few decisions; tests/agents/test_agents.py builds the first two)
EXPECTED = {
    "pot-shot": {NORMAL},
    "lag": {LAG},
    "russian-pyramid": {LAG, IN_HAND_HOUSE, NORMAL},
    "americanka": {LAG, IN_HAND_HOUSE, NORMAL},
    "moscow-pyramid": {LAG, IN_HAND_HOUSE, NORMAL},
    "snooker": {LAG, sn.IN_HAND_D, NORMAL, sn.FOUL_CHOICE},
    "american-snooker": {LAG, sn.IN_HAND_D, sn.FOUL_CHOICE},
    "golf": {NORMAL, IN_HAND_HOUSE, gf.HOUSE_CHOICE},
}


def lanes(tree, idx):
    return jax.tree_util.tree_map(lambda x: np.asarray(x)[idx], tree)


def reached(env: F.FuncEnv, steps: int, seed: int = 0):
    """The states of a batch played ``steps`` decisions (module docstring): a list of
    (EnvState, observation) of single tables, NumPy, every lane at every step; the
    two-player games' lanes dealt with a lag for the break come first (their starts only)."""
    prog = F.batched(env)
    opts = F.options(env)
    keys = jax.random.split(jax.random.PRNGKey(seed), B)
    met = []
    if env.task in F.REFEREES or env.task in F.SNOOKER_GAMES:  # the lag: the deal alone reaches it
        met.append(prog.reset(keys, opts._replace(lag_break=jnp.asarray(True)))[:2])
    if env.task == F.GOLF:  # half the lanes with 3 players, half with 6 (a traced option)
        three = prog.reset(keys, opts._replace(num_players=jnp.asarray(3, jnp.int32)))
        six = prog.reset(keys, opts._replace(num_players=jnp.asarray(6, jnp.int32)))
        half = lambda a, b: jnp.where((jnp.arange(B) < B // 2).reshape((B,) + (1,) * (a.ndim - 1)), a, b)  # noqa: E731
        state, obs, keys = jax.tree_util.tree_map(half, three, six)
    else:
        state, obs, keys = prog.reset(keys, opts)
    action = {"shot": jnp.zeros((B, 5)), "place": jnp.zeros((B, 2)),
              **{k: jnp.zeros(B, jnp.int32) for k in ("cue_ball", "ball", "pocket", "choice")}}
    codes = jnp.where(jnp.arange(B) % 2 == 0, 1, 2).astype(jnp.int32)  # random, ghost
    every, none = jnp.ones(B, bool), jnp.zeros(B, bool)
    met.append((state, obs))
    for _ in range(steps):
        state, obs, keys = prog.step(state, action, keys, none, every, codes, opts)
        met.append((state, obs))
    met = [jax.tree_util.tree_map(np.asarray, pair) for pair in met]
    return [lanes(pair, i) for pair in met for i in range(B)]


@functools.lru_cache(maxsize=None)
def played(env_id):
    """(FuncEnv, every state :func:`reached`) of ``env_id``, played once per test run."""
    env = make_func_env(env_id)
    return env, reached(env, STEPS.get(env.task, DEFAULT_STEPS))


def sample(met, seed=0):
    """Up to PER_PHASE states of each phase met, drawn with a seeded Generator."""
    rng = np.random.default_rng(seed)
    by_phase = {}
    for s, o in met:
        by_phase.setdefault(int(o["phase"]), []).append((s, o))
    out = []
    for phase in sorted(by_phase):
        group = by_phase[phase]
        out += [group[i] for i in rng.choice(len(group), min(PER_PHASE, len(group)), replace=False)]
    return out


def house_choice(env: F.FuncEnv, state, own_xy):
    """A reached golf state as GF-23 leaves it: the cue ball off the table, the striker's ball
    at ``own_xy`` in the house; ``rear_spot`` open, ``front_spot`` when a cue ball on the
    front spot would touch no ball (AMB-52). Returns (EnvState, observation)."""
    spec = env.spec
    g = state.game
    own = int(g.to_play) + 1
    xy = np.asarray(state.xy).copy()
    on = np.asarray(state.on).copy()
    xy[own], on[own], on[gf.CUE] = own_xy, True, False
    assert 0 < own_xy[1] < spec.head_line
    front = np.asarray(spec.spots()["front"])
    front_free = np.hypot(*(np.asarray(own_xy) - front)) >= 2 * spec.ball_radius
    g = g._replace(phase=np.int32(gf.HOUSE_CHOICE), choices=np.int32(1 | (2 if front_free else 0)))
    s = state._replace(xy=xy, on=on, game=g)
    return s, lanes(F.observe(env, jax.tree_util.tree_map(jnp.asarray, s)), ())


def states_of(env_id):
    """(FuncEnv, the sampled states (EnvState, observation)) of ``env_id``; golf's with two
    made ``house_choice`` states."""
    env, met = played(env_id)
    out = sample(met)
    if env.task == F.GOLF:
        normal = [s for s, o in out if int(o["phase"]) == NORMAL]
        front = np.asarray(env.spec.spots()["front"])
        r = env.spec.ball_radius
        # one with both set-ups open, one with the front spot blocked by the own ball
        out += [house_choice(env, normal[0], (0.4, 0.35)), house_choice(env, normal[-1], front + (1.5 * r, -1.5 * r))]
    return env, out


def in_golf_house(spec, place):
    """GF-27, POOL-GEN-15/30: centred on the bed, strictly behind the front line."""
    off = float(ru.contact_offset(spec))
    return off <= place[0] <= spec.width - off and off <= place[1] < spec.head_line


def off_the_balls(xy, on, place, r, hand):
    """No ball on the table (other than the ball in hand) within 2R of ``place``."""
    d = np.hypot(*(xy - place).T)
    others = on & (np.arange(len(on)) != hand)
    return bool(np.all(d[others] >= 2 * r * (1 - 1e-9)))


def check_legal(env: F.FuncEnv, space, obs, action, name):
    """The action is in the space and names only what the observation's masks and the
    placement rules allow (module docstring)."""
    assert space.contains(action), (name, action)
    spec = env.spec
    phase, player = int(obs["phase"]), int(obs["to_play"])
    for field, mask in (("cue_ball", "legal_cue_ball"), ("ball", "legal_ball"), ("choice", "legal_choice")):
        if obs[mask].any():
            assert obs[mask][action[field]], (name, phase, field, action[field], obs[mask])
    place = np.asarray(action["place"], np.float64)
    xy, on = obs["balls"][:, :2].astype(np.float64), obs["balls"][:, 2] > 0.5
    hand = F.HAND_BALL[env.task]
    r = spec.ball_radius
    if phase == LAG:
        lo, hi = (np.asarray(x) for x in F.lag_region(spec, player))
        assert np.all(place >= lo - 1e-6) and np.all(place <= hi + 1e-6), (name, "lag place", place)
    elif env.task == F.GOLF and phase == IN_HAND_HOUSE:
        assert in_golf_house(spec, place), (name, "in-hand place outside the house", place)
        assert name == "random" or off_the_balls(xy, on, place, r, hand), (name, "place on a ball", place)
    elif env.task in F.SNOOKER_GAMES and phase == sn.IN_HAND_D:
        assert bool(in_d(spec, place)), (name, "place outside the D", place)
        assert name == "random" or bool(sn.placement_ok(spec, xy, on, place)), (name, "place on a ball", place)
    elif env.task in F.REFEREES and phase in (IN_HAND_HOUSE, IN_HAND_REAR):
        inside = bool(ru.in_region(spec, phase, jnp.asarray(place[None]))[0])
        assert inside, (name, "in-hand place outside the region", place)
        assert name == "random" or bool(ru.placement_ok(spec, phase, xy, on, hand, place)), (name, "on a ball", place)


@pytest.mark.parametrize("env_id", list(cuegym.ENV_TASKS))
def test_every_agent_is_legal_in_every_phase_reached(env_id):
    env, states = states_of(env_id)
    phases = {int(o["phase"]) for _, o in states}
    assert EXPECTED[env.task] <= phases, (env.task, sorted(phases))
    space = gym.make(env_id).action_space
    rnd, ghost = RandomAgent(env_id), GhostBallAgent(env_id)
    for i, (_, obs) in enumerate(states):
        for name, agent in (("random", rnd), ("ghost", ghost)):
            check_legal(env, space, obs, agent.act(obs, jax.random.PRNGKey(i)), name)
    # the search: a stroke in each of a few phases (the lag last: tests/agents/test_agents.py plays
    # it), every decision without a stroke (no simulation)
    strokes = [o for _, o in states if o["legal_cue_ball"].any()]
    firsts = sorted({int(o["phase"]): o for o in strokes}.items(), key=lambda item: item[0] == LAG)
    search = SearchAgent(env_id, **TINY)
    for i, (_, obs) in enumerate(firsts[: SEARCH_STROKES.get(env.task, DEFAULT_SEARCH_STROKES)]):
        check_legal(env, space, obs, search.act(obs, jax.random.PRNGKey(i)), "search")
        assert 0.0 <= search.last_info["success"] <= 1.0
    for obs in (o for _, o in states if not o["legal_cue_ball"].any()):
        check_legal(env, space, obs, search.act(obs, jax.random.PRNGKey(0)), "search")


def test_golf_state_from_observation_reads_back_the_referee_state():
    """On every golf state met in play (3 and 6 players, series passed on) and the made
    ``house_choice`` ones, the state the agents rebuild from the observation has the
    referee's striker, phase, players, playing order (``first``), round pocket, each
    player's next pocket, totals, opening and set-ups open (the fields a ruling reads), and
    the layout."""
    env, met = played("cuegym/Golf-v0")
    _, made = states_of("cuegym/Golf-v0")
    rebuild = jax.jit(lambda o: state_from_observation(env, o))
    fields = ("to_play", "phase", "num_players", "first", "pocket", "next_pocket", "strokes", "opening", "choices")
    players, passed = set(), 0
    for s, obs in met + made:
        got = rebuild(observation_arrays(env, obs))
        for f in fields:
            assert np.array_equal(np.asarray(getattr(got.game, f)), getattr(s.game, f)), (f, got.game, s.game)
        np.testing.assert_array_equal(np.asarray(got.on), s.on)
        np.testing.assert_array_equal(np.asarray(got.xy)[s.on], s.xy.astype(np.float32)[s.on])
        players.add(int(s.game.num_players))
        passed += int(s.game.to_play) != int(s.game.first)  # some series were over: first is read back
    assert players == {3, 6} and passed > 0, (players, passed)


def test_golf_ghost_pots_its_own_ball_into_the_rounds_pocket_only():
    """A straight pot of the striker's ball into the round's pocket (golf pocket 2, the right
    middle, GF-05, AMB-47): the ghost aims the cue ball at the closed-form ghost ball (the
    ball's centre 2R back from the pocket) and names that pocket. The same layout with the
    round at pocket 5 (the opposite middle pocket, behind the cue ball): no pot into pocket 2
    is tried (GF-20: a pot elsewhere is a foul); the stroke is the full hit on the own ball
    (GF-21: the own ball first)."""
    env_id = "cuegym/Golf-v0"
    env = make_func_env(env_id)
    spec = env.spec
    r = spec.ball_radius
    mr = np.asarray(get_table(env.table).pocket_xy)[gf.POCKET_IDS[1]]  # golf pocket 2: MR
    ball = np.array([spec.width - 0.35, mr[1]])
    cue = ball - np.array([0.4, 0.0])
    _, states = states_of(env_id)
    base = next(s for s, o in states if int(o["phase"]) == NORMAL)
    own = int(base.game.to_play) + 1
    xy = np.zeros((gf.N_BALLS, 2))
    xy[gf.CUE], xy[own] = cue, ball
    on = np.isin(np.arange(gf.N_BALLS), [gf.CUE, own])
    ghost = GhostBallAgent(env_id)
    for pocket, pots in ((2, True), (5, False)):
        nxt = np.where(np.arange(gf.MAX_PLAYERS) == base.game.to_play, pocket, base.game.next_pocket)
        g = base.game._replace(pocket=np.int32(pocket), next_pocket=nxt.astype(np.int32), opening=np.asarray(False))
        s = jax.tree_util.tree_map(jnp.asarray, base._replace(xy=xy, on=on, game=g))
        obs = lanes(F.observe(env, s), ())
        action = ghost.act(obs, None)
        if pots:
            ghost_ball = ball - 2 * r * (mr - ball) / np.hypot(*(mr - ball))
            aim = np.arctan2(*(ghost_ball - cue)[::-1])
            assert abs(np.angle(np.exp(1j * (float(action["shot"][0]) - aim)))) < 1e-4
            assert int(action["pocket"]) == gf.POCKET_IDS[1] == obs["target_pocket"][int(obs["to_play"])]
            assert ghost.last_info["found"]
        else:
            assert not ghost.last_info["found"]
            full = np.arctan2(*(ball - cue)[::-1])
            assert abs(np.angle(np.exp(1j * (float(action["shot"][0]) - full)))) < 1e-4
            assert int(action["pocket"]) == gf.POCKET_IDS[4]
