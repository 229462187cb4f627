"""The engine of ``cuegym suggest`` (:mod:`cuegym.tools.coach`): a position file to its env and
state, the search's candidates ranked, and each suggestion played again under noise and
once without it.

The position's ``game`` names the env task (a position without one, holding the cue ball
and one object ball, is the ``pot-shot`` task); the referee state is read as ``cuegym
simulate`` reads it. :meth:`cuegym.agents.search.SearchAgent.search_candidates` scores the
candidates, grouped by what the player decides; the best groups are replayed with fresh
noise on the search's lanes, ranked by the replays (the search's own draws chose the
strokes and so flatter them), and played once without noise for the ruling, the finish and
the paths. The method and its figures: docs/coach.md, "How the strokes are found".
"""

from __future__ import annotations

import collections
import dataclasses
import math

import jax
import jax.numpy as jnp
import numpy as np

from cuegym.envs import functional as F
from cuegym.envs.registry import GAMES
from cuegym.physics import POCKETS, at_rest, get_spec, get_table, make_shot, simulate
from cuegym.physics.balls import POCKETED
from cuegym.positions import Position, PositionError
from cuegym.rules.base import PHASE_NAMES
from cuegym.rules.catalogue import CLAUSES, get
from cuegym.tools import coach_words as W

SUGGEST_FAMILIES = ("russian", "snooker")  # the registry families whose positions suggest plays
PLACE_GRID = 0.05  # m: two places in hand closer than this are one decision


@dataclasses.dataclass
class Suggestion:
    """One suggested stroke (see docs/coach.md for every field's meaning and units).

    ``action``: the stroke as a position file's shot reads it (``cue_ball`` id, ``phi``
    [rad], ``speed`` [m/s], ``a``, ``b`` [R], ``theta`` [rad], ``place`` [x, y] m or None,
    ``call`` {ball, pocket} or None, ``nominate`` id or None (snooker), ``choice`` id or
    None); ``target``: {ball, pocket} the stroke was built around (None for a random stroke
    of a game without a call); ``aim``, ``pace``, ``tip``: :mod:`cuegym.tools.coach_words`;
    ``probability``: share of the noisy replays that scored; ``samples``: their number;
    ``expected_points``: mean net points (own minus opponent's) of the stroke; ``value``:
    the replays' mean value (points plus the search's value of the position left);
    ``failure``: the most frequent ruling of the replays that did not score (None if all
    scored); ``noise_free``: the stroke without noise (``points``, ``scored``, ``foul``,
    ``clauses``, ``pocketed`` {id: pocket}); ``cue_finish``: {``expected`` [x, y] mean
    finish of the struck ball over the replays where it stayed on the table,
    ``noise_free``, ``scatter`` [[x, y], ...], ``lost_share`` the share where it was
    pocketed or left the table}; ``paths``: {id: [[x, y], ...]} of the balls that moved in
    the noise-free stroke [m]."""

    rank: int
    action: dict
    target: dict | None
    aim: dict
    pace: dict
    tip: dict
    probability: float
    samples: int
    expected_points: float
    value: float
    failure: dict | None
    noise_free: dict
    cue_finish: dict
    paths: dict

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class Setup:
    """A position as the env sees it: ``env``, ``state`` (EnvState), ``ids`` the ball ids
    in the env's index order, ``game`` (the position's, None for pot-shot)."""

    env: F.FuncEnv
    state: F.EnvState
    ids: tuple
    position: Position

    @property
    def names_ball(self) -> bool:
        """Whether the stroke names a ball (the action's ``ball`` is read): Russian
        pyramid's call (with a pocket), snooker's nomination."""
        return self.env.task != "pot-shot" and bool(np.any(np.asarray(F.legal_masks(self.env, self.state)["ball"])))

    @property
    def has_call(self) -> bool:
        """A call of ball and pocket (Russian pyramid, RP-08)."""
        return self.names_ball and self.env.task not in getattr(F, "SNOOKER_GAMES", ())


def _games() -> list[str]:
    return [g for g in GAMES if g not in ("pot-shot", "lag")]


def task_of(position: Position) -> tuple[str, tuple]:
    """(the FuncEnv task, the ball ids in the env's index order) of ``position``;
    PositionError naming ``game`` when suggest has no environment for it."""
    game = position.game
    if game is None:
        others = [i for i in position.balls if i != "cue"]
        if "cue" not in position.balls or len(others) != 1:
            raise PositionError("game", "a position without a game is played as a pot shot and must hold the ball "
                                        f"\"cue\" and exactly one object ball; got {sorted(position.balls)}. "
                                        f"Name a game ({', '.join(_games())})")
        return "pot-shot", ("cue", others[0])
    if game in GAMES and game not in ("pot-shot", "lag"):
        return game, position.ids
    have = ", ".join(_games())
    raise PositionError("game", f"suggest has no environment for {game!r}; games it plays: {have} "
                                "(or no game: a cue ball and one object ball)")


def setup(position: Position) -> Setup:
    """The env task and state of ``position``; PositionError naming ``game``, ``balls`` or
    ``state.phase`` when suggest cannot play it. The env keeps its default options: the
    noise travels in the traced options, so every level shares the compiled programs."""
    task, ids = task_of(position)
    game = position.game
    try:
        env = F.FuncEnv(task=task, table=position.table)
    except ValueError as e:
        raise PositionError("table", f"{position.table!r} cannot host {task}: {e}") from None
    if len(ids) != env.n_balls:
        raise PositionError("balls", f"{task} has {env.n_balls} balls, the position's game has {len(ids)}")
    base = F.init(env, jax.random.PRNGKey(0))
    xy = np.array([position.balls.get(i, (0.0, 0.0)) for i in ids], float)
    on = np.array([i in position.balls for i in ids], bool)
    game_state = base.game if game is None else _game_state(position, base.game)
    state = base._replace(xy=jnp.asarray(xy), on=jnp.asarray(on), game=game_state,
                          last_xy=jnp.asarray(xy), last_on=jnp.asarray(on))
    name = phase_name(task, int(state.game.phase))
    stroke = bool(np.any(np.asarray(F.legal_masks(env, state)["cue_ball"])))
    if not stroke or name in ("lag", "frame_over", "remove_ball", "foul_choice"):
        raise PositionError("state.phase", f"no stroke to suggest in phase {name!r} (suggest ranks strokes: "
                                           "phase normal or a ball in hand)")
    return Setup(env, state, tuple(ids), position)


def phase_name(task: str, phase: int) -> str:
    """The name of ``phase`` in ``task``'s referee (the Russian games' or snooker's)."""
    names = PHASE_NAMES
    if task in getattr(F, "SNOOKER_GAMES", ()):
        from cuegym.rules.snooker import SNOOKER_PHASE_NAMES as names
    return names[phase] if 0 <= phase < len(names) else str(phase)


def _game_state(position: Position, like):
    """The position's referee state as the env's game state (dtypes of ``like``)."""
    from cuegym.envs.registry import GAMES
    from cuegym.positions.judging import read_state

    if GAMES[position.game].family not in SUGGEST_FAMILIES:
        raise PositionError("game", f"suggest cannot read the referee state of {position.game!r} yet")
    game = read_state(position)
    if jax.tree_util.tree_structure(game) != jax.tree_util.tree_structure(like):
        raise PositionError("game", f"suggest cannot read the referee state of {position.game!r} yet")
    return jax.tree_util.tree_map(lambda b, v: jnp.asarray(v).astype(b.dtype).reshape(b.shape), like, game)


def resolved_budget(task: str, budget: dict | None):
    """The search's :class:`~cuegym.agents.search.Budget`: the task's default with ``budget``'s knobs."""
    from cuegym.agents.search import DEFAULT_BUDGETS, Budget

    base = DEFAULT_BUDGETS.get(task, Budget())
    given = dict(budget or {})
    unknown = set(given) - {"candidates", "samples", "rounds", "plans", "random_share", "elites"}
    if unknown:
        raise ValueError(f"budget: unknown knob(s) {sorted(unknown)}; knobs: candidates, samples, rounds, plans, "
                         "random_share, elites")
    # no time budget: the suggestions must not depend on the machine's speed
    return dataclasses.replace(base, time_budget=None, **given)


def _group(actions, m: int, in_hand: bool, has_call: bool) -> tuple:
    place = tuple(np.round(np.asarray(actions["place"][m]) / PLACE_GRID).astype(int)) if in_hand else None
    return (int(actions["cue_ball"][m]), int(actions["ball"][m]), int(actions["pocket"][m]), place,
            int(actions["choice"][m]) if not has_call else None)


def _clauses(mask) -> list[dict]:
    return [{"id": CLAUSES[c].id, "title": get(CLAUSES[c].id).title} for c in np.flatnonzero(mask)]


def _xy(p) -> list[float]:
    return [round(float(p[0]), 4) + 0.0, round(float(p[1]), 4) + 0.0]


def policy_candidates(policy, env, position: Position, obs: dict, noise: float):
    """The legal candidates of a trained menu policy's menu for ``obs`` and the policy's
    probability of each: (actions, each field (C, ...), value (C,)). ``policy``: a
    train_jax.py output folder, or a :class:`cuegym.learn.agent.PolicyAgent` already built
    for the position's table (the shipped one, :func:`cuegym.agents.pretrained`)."""
    from cuegym.learn.agent import PolicyAgent

    agent = policy if isinstance(policy, PolicyAgent) else PolicyAgent(policy, table=position.table,
                                                                          noise=float(noise))
    if agent.env.task != env.task:
        raise PositionError("game", f"the policy in {str(agent.path)!r} plays {agent.env.task!r}, the position "
                                    f"{env.task!r}")
    if not agent.policy_env.on_menu:
        raise ValueError(f"policy: {str(agent.path)!r} was trained with action='shot'; suggest ranks a menu policy's "
                         f"candidates")
    ranked = agent.scores(obs)
    legal = np.asarray(ranked["legal"])
    acts = {k: np.asarray(v)[legal] for k, v in ranked["actions"].items()}
    return acts, np.asarray(ranked["probs"])[legal]


def rank(position: Position, top: int = 3, noise: float = 1.0, seed: int = 0, budget: dict | None = None,
         policy=None) -> list:
    """The ``top`` best strokes of ``position`` as :class:`Suggestion` (module docstring).
    ``policy``: a trained menu policy's folder (experiments/train_jax.py), or its
    :class:`cuegym.learn.agent.PolicyAgent`, whose most probable candidates are replayed and
    ranked instead of the search's."""
    from cuegym.agents.search import DEFAULT_BUDGETS, SearchAgent

    s = setup(position)
    env, ids = s.env, s.ids
    spec = get_spec(position.table)
    b = resolved_budget(env.task, budget)
    if env.task not in DEFAULT_BUDGETS:  # the search agent does not play this game yet
        raise PositionError("game", f"suggest cannot search {env.task!r} yet: the search agent has no budget for it "
                                    f"(cuegym.agents.search.DEFAULT_BUDGETS has {', '.join(DEFAULT_BUDGETS)})")
    agent = SearchAgent(env, noise=float(noise), **{f.name: getattr(b, f.name) for f in dataclasses.fields(b)})
    key = jax.random.PRNGKey(seed)
    k_search, k_replay = jax.random.split(key)
    obs = {k: np.asarray(v) for k, v in F.observe(env, s.state).items()}
    if policy is None:
        found = agent.search_candidates(obs, k_search, state=s.state)  # setup() checked that a stroke is due
        acts, value = found["actions"], found["value"]
    else:
        acts, value = policy_candidates(policy, env, position, obs, noise)
    g = s.state.game
    in_hand = env.task != "pot-shot" and phase_name(env.task, int(g.phase)).startswith("in_hand")
    has_call = s.has_call
    order = np.argsort(-value, kind="stable")
    chosen: dict = {}
    for m in order:
        chosen.setdefault(_group(acts, int(m), in_hand, has_call), int(m))
        if len(chosen) == min(top, b.candidates):
            break
    idx = np.array(list(chosen.values()))
    k = idx.size
    # the replays: entry i of the C plays pick i mod K, so lane l plays pick (l // S) mod K
    entry = np.arange(b.candidates) % k
    replay = {name: np.asarray(v)[idx][entry] for name, v in acts.items()}
    played = agent.evaluate(s.state, replay, k_replay)
    clean = agent.evaluate(s.state, replay, k_replay, noise=0.0)["next"]
    noisy, which = played["next"], np.repeat(entry, b.samples)
    # best first by the replays' value (entry r holds pick r: identical entries share copies)
    ranking = np.argsort(-played["value"][:k], kind="stable")
    picks = {name: v[ranking] for name, v in replay.items()}
    which = np.argsort(ranking)[which]
    value = played["value"][:k][ranking]
    actor = int(g.to_play)
    choice_mask = np.asarray(F.legal_masks(env, s.state)["choice"])
    out = []
    for r in range(k):
        lanes = np.flatnonzero(which == r)
        first = int(lanes[0])
        pick = {name: v[r] for name, v in picks.items()}
        shot = np.asarray(clean.last_shot[first])  # the stroke as played without noise (after the guards)
        cue = int(shot[0])
        start_xy, start_on = clean.last_xy[first], clean.last_on[first]
        points = noisy.rewards[lanes, actor] / env.scale
        scored = points > 0
        # the struck ball's finish: on the table after the referee, at its place
        stays = noisy.on[lanes, cue]
        finish = noisy.xy[lanes, cue]
        failure = None
        fails = lanes[~scored]
        if fails.size:
            kinds = collections.Counter((bool(noisy.foul[l]), tuple(np.flatnonzero(noisy.clauses[l]))) for l in fails)
            (foul, cl), count = max(kinds.items(), key=lambda kv: (kv[1], not kv[0][0]))
            like = [l for l in fails if (bool(noisy.foul[l]), tuple(np.flatnonzero(noisy.clauses[l]))) == (foul, cl)]
            failure = {"share": count / lanes.size, "foul": foul,
                       "points": float(np.mean(noisy.rewards[like, actor] / env.scale)),
                       "clauses": _clauses(noisy.clauses[like[0]])}
        pocketed, paths = _noise_free_stroke(position.table, start_xy, start_on, shot, ids)
        target_ball, target_pocket = int(pick["ball"]), int(pick["pocket"])
        # the aim of the stroke as told (the action), not as the guards passed it on
        heading = float(pick["shot"][0]) + W.squirt(float(pick["shot"][2]), spec)
        aim = W.aim(start_xy[cue], heading, start_xy, start_on, cue, spec.ball_radius)
        aim["ball"] = ids[aim["ball"]] if aim["ball"] is not None else None
        aim["phi_deg"] = math.degrees(float(pick["shot"][0])) % 360.0
        built = has_call or (target_ball != cue and aim["ball"] == ids[target_ball])
        action = {
            "cue_ball": ids[cue],
            **{k: float(pick["shot"][i]) for i, k in enumerate(F.SHOT_KEYS)},
            "place": [float(start_xy[cue, 0]), float(start_xy[cue, 1])] if in_hand else None,
            "call": {"ball": ids[target_ball], "pocket": POCKETS[target_pocket]} if has_call else None,
            "nominate": ids[target_ball] if s.names_ball and not has_call else None,
            "choice": ids[int(pick["choice"])] if choice_mask.any() else None,
        }
        out.append(Suggestion(
            rank=r + 1,
            action=action,
            target={"ball": ids[target_ball], "pocket": POCKETS[target_pocket]} if built else None,
            aim=aim,
            pace=W.pace(float(pick["shot"][1]), spec),
            tip=W.tip(float(pick["shot"][2]), float(pick["shot"][3]), float(pick["shot"][4])),
            probability=float(np.mean(scored)),
            samples=int(lanes.size),
            expected_points=float(np.mean(points)),
            value=float(value[r]),
            failure=failure,
            noise_free={
                "points": float(clean.rewards[first, actor] / env.scale),
                "scored": bool(clean.rewards[first, actor] > 0),
                "foul": bool(clean.foul[first]),
                "clauses": _clauses(clean.clauses[first]),
                "pocketed": pocketed,
            },
            cue_finish={
                "expected": _xy(finish[stays].mean(0)) if stays.any() else None,
                "noise_free": _xy(clean.xy[first, cue]) if clean.on[first, cue] else None,
                "scatter": [_xy(p) for p in finish[stays]],
                "lost_share": float(np.mean(~stays)),
            },
            paths=paths,
        ))
    return out


def _noise_free_stroke(table: str, xy, on, shot, ids) -> tuple[dict, dict]:
    """({id: pocket} of the balls the stroke pockets, {id: path [[x, y], ...]} of the balls
    that move) for ``shot`` (6,) from the layout (xy, on)."""
    from cuegym.envs.render import stroke_paths

    final, _, _ = simulate(get_table(table), at_rest(xy, on), make_shot(int(shot[0]), *shot[1:]))
    state, pocket = np.asarray(final.state), np.asarray(final.pocket)
    pocketed = {ids[i]: POCKETS[int(pocket[i])] for i in np.flatnonzero(on) if state[i] == POCKETED}
    paths = stroke_paths(table, xy, on, shot, dt=1 / 60)
    moved = {ids[i]: [_xy(p) for p in path] for i, path in enumerate(paths) if on[i] and len(path) > 1}
    return pocketed, moved
