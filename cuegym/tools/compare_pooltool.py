"""Same-shot agreement with pooltool (docs/physics.md, "Agreement with pooltool").

    python experiments/compare_pooltool.py [--out results/compare_pooltool.json] [--only NAME]

Plays :func:`cuegym.tools.compare_shots.shot_set` in cuegym and in pooltool 0.6.0 with the
parameters matched where the models coincide (:func:`pooltool_system`: ball, cloth, ball–ball
and cushion figures, table size and pocket jaws; the same cushion model in both
(:data:`CUSHION_PAIRS`), Alciatore ball–ball friction and instantaneous-point cue with
squirt, the same cue and end mass), and
reports per shot the object-ball and cue-ball angle differences, the final-position and
distance differences and the pockets. pooltool is optional (``pip install -e .[compare]``
needs ``--no-deps`` for it, then its dependencies: docs/physics.md) and imported only here.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

from cuegym.tools.compare_shots import TABLE, Case, Played, angle_diff, measure, play_cuegym, shot_set

# pooltool pocket names in cuegym's pocket ids (HL, ML, FL, FR, MR, HR)
POCKET_IDS = {"lb": 0, "lc": 1, "lt": 2, "rt": 3, "rc": 4, "rb": 5}
POCKET_RADIUS = 0.1  # m: pooltool's capture circle, placed so its near edge is cuegym's drop line
# --cushion NAME: (cuegym's model, pooltool's model); "stronge" sets pooltool's default
# compliant model beside cuegym's default, the two models meeting nowhere
CUSHION_PAIRS = {"han_2005": ("han_2005", "han_2005"), "mathavan_2010": ("mathavan_2010", "mathavan_2010"),
                 "stronge": (None, "stronge")}
# pooltool's Mathavan integration steps: its defaults (1,000 steps of at least 1e-3 N s) land
# 0.3° from the converged rebound on a 1 m/s rolling ball; these land within 0.01°
MATHAVAN_STEPS = dict(max_steps=20000, delta_p=1e-5)


def _pooltool():
    try:
        import pooltool
    except ImportError as e:  # pragma: no cover - the optional extra is missing
        raise SystemExit("pooltool is not installed: see docs/physics.md, 'Agreement with pooltool'") from e
    return pooltool


def parameter_map() -> dict:
    """cuegym's pool-9ft figures and the pooltool parameters set from them."""
    from cuegym.physics import get_spec, get_table

    s = get_spec(TABLE)
    t = get_table(TABLE)
    drop_corner = np.asarray(t.drop_q)[0]  # HL: on the diagonal, inward of the corner
    drop_side = np.asarray(t.drop_q)[1]  # ML: outside the left nose line
    return {
        "ball": dict(m=s.ball_mass, R=s.ball_radius, u_s=s.mu_slide, u_r=s.mu_roll,
                     u_sp_proportionality=s.mu_spin / s.ball_radius, e_b=s.e_ball, e_c=s.e_cushion,
                     f_c=s.mu_cushion, g=float(t.gravity)),
        "table": dict(l=s.length, w=s.width, cushion_height=s.cushion_height,
                      corner_pocket_width=s.corner_mouth, corner_pocket_angle=0.0,
                      corner_jaw_radius=s.corner_jaw_radius, side_pocket_width=s.middle_mouth,
                      side_pocket_angle=0.0, side_jaw_radius=s.middle_jaw_radius,
                      corner_pocket_radius=POCKET_RADIUS,
                      corner_pocket_depth=POCKET_RADIUS - math.sqrt(2) * float(drop_corner[0]),
                      side_pocket_radius=POCKET_RADIUS, side_pocket_depth=POCKET_RADIUS - float(drop_side[0])),
        "cue": dict(M=s.cue_mass, end_mass=s.cue_endmass),
        "ball_ball_friction": dict(a=0.00995, b=0.108, c=1.088),
    }


def _resolver(pt, cushion: str):
    from pooltool.physics.resolve import Resolver
    from pooltool.physics.resolve.ball_ball.friction import AlciatoreBallBallFriction
    from pooltool.physics.resolve.ball_ball.frictional_inelastic import FrictionalInelastic
    from pooltool.physics.resolve.ball_cushion import (
        Han2005Circular,
        Han2005Linear,
        Mathavan2010Circular,
        Mathavan2010Linear,
        StrongeCompliantCircular,
        StrongeCompliantLinear,
    )
    from pooltool.physics.resolve.ball_pocket import CanonicalBallPocket
    from pooltool.physics.resolve.stick_ball.instantaneous_point import InstantaneousPoint
    from pooltool.physics.resolve.transition import CanonicalTransition

    linear, circular = {"han_2005": (Han2005Linear(), Han2005Circular()),
                        "mathavan_2010": (Mathavan2010Linear(**MATHAVAN_STEPS), Mathavan2010Circular(**MATHAVAN_STEPS)),
                        "stronge": (StrongeCompliantLinear(omega_ratio=1.8), StrongeCompliantCircular(omega_ratio=1.8))}[cushion]
    return Resolver(
        ball_ball=FrictionalInelastic(friction=AlciatoreBallBallFriction(**parameter_map()["ball_ball_friction"])),
        ball_linear_cushion=linear,
        ball_circular_cushion=circular,
        ball_pocket=CanonicalBallPocket(),
        stick_ball=InstantaneousPoint(english_throttle=1.0, squirt_throttle=1.0),
        transition=CanonicalTransition(),
    )


def pooltool_system(case: Case):
    """A pooltool ``System`` for ``case``: balls '0', '1', ... (ball 0 cued), the table and cue
    of :func:`parameter_map`. Conventions mapped: phi and theta in degrees, a positive to the
    striker's left (cuegym: right), ball centres at height R."""
    pt = _pooltool()
    from pooltool.objects import PocketTableSpecs
    from pooltool.objects.cue.datatypes import CueSpecs

    p = parameter_map()
    table = pt.Table.from_table_specs(PocketTableSpecs(**p["table"]))
    balls = {str(k): pt.Ball.create(str(k), xy=xy, **p["ball"]) for k, xy in enumerate(case.xy)}
    cue = pt.Cue(cue_ball_id="0", specs=CueSpecs(**p["cue"]))
    cue.set_state(V0=case.speed, phi=math.degrees(case.phi) % 360.0, theta=0.0, a=-case.a, b=case.b)
    return pt.System(cue=cue, table=table, balls=balls)


def play_pooltool(case: Case, cushion: str = "han_2005") -> Played:
    """Play ``case`` in pooltool."""
    pt = _pooltool()
    from pooltool.physics.engine import PhysicsEngine
    from pooltool.physics.evolve import evolve_ball_motion

    system = pooltool_system(case)
    t0 = time.perf_counter()
    pt.simulate(system, engine=PhysicsEngine(resolver=_resolver(pt, cushion)), inplace=True)
    wall = time.perf_counter() - t0
    kinds = {"ball_ball": "ball", "ball_linear_cushion": "cushion", "ball_circular_cushion": "cushion",
             "ball_pocket": "pocket", "sliding_rolling": "roll"}
    n = len(case.xy)
    pocket, pocket_t = np.full(n, -1), np.full(n, np.inf)
    evs = []
    for e in system.events:
        kind = kinds.get(str(e.event_type), "other")
        balls = [a for a in e.agents if a.agent_type == "ball"]
        if not balls:
            continue
        i = int(balls[0].id)
        j = int(balls[1].id) if kind == "ball" else (POCKET_IDS.get(e.agents[1].id, -1) if kind == "pocket" else -1)
        v_other = balls[1].final.state.rvw[1, :2].copy() if kind == "ball" else None
        evs.append((float(e.time), kind, i, j, balls[0].final.state.rvw[1, :2].copy(), v_other))
        if kind == "pocket":
            pocket[i], pocket_t[i] = j, float(e.time)
    hist = [system.balls[str(k)].history for k in range(n)]
    bp = system.balls["0"].params

    def positions(times):
        out = np.zeros((len(times), n, 2))
        for k, h in enumerate(hist):
            ts = np.array([s.t for s in h])
            for q, t in enumerate(times):
                s = h[max(int(np.searchsorted(ts, t, side="right")) - 1, 0)]
                rvw, _ = evolve_ball_motion(s.s, s.rvw, bp.R, bp.m, bp.u_s, bp.u_sp, bp.u_r, bp.g, max(t - s.t, 0.0))
                out[q, k] = rvw[0, :2]
        return out

    final = np.array([system.balls[str(k)].state.rvw[0, :2] for k in range(n)])
    return Played(evs, final, pocket, pocket_t, positions, wall)


def pooltool_rebound(model: str, spec, v, w, steps: dict = MATHAVAN_STEPS):
    """Velocity and spin ((3,) each) after one cushion contact by pooltool's own function of
    ``model`` ('han_2005' or 'mathavan_2010'), for a ball on the bed of table ``spec`` with
    velocity ``v`` and spin ``w`` (3,) meeting a cushion whose normal into it is +x."""
    _pooltool()
    R, m, h = spec.ball_radius, spec.ball_mass, spec.cushion_height
    if model == "han_2005":
        from pooltool.physics.resolve.ball_cushion.han_2005.model import han2005

        out = han2005(np.array([[0.0, 0.0, R], v, w]), np.array([1.0, 0.0]), R, m, h, spec.e_cushion, spec.mu_cushion)
        return out[1], out[2]
    from pooltool.physics.resolve.ball_cushion.mathavan_2010.model import solve

    # pooltool's Mathavan frame: y into the cushion, x = y cross z
    vx, vy, wx, wy, wz = solve(m, R, h, spec.e_cushion, spec.mu_slide, spec.mu_cushion, -v[1], v[0], -w[1], w[0], w[2],
                               steps["max_steps"], steps["delta_p"])
    return np.array([vy, -vx, 0.0]), np.array([wy, -wx, wz])


def cushion_cases() -> dict:
    """One cushion contact, many ways in, resolved by pooltool's Han 2005 and Mathavan 2010
    functions (the reference values of ``tests/physics/test_cushion_models.py``). The frame:
    the cushion's normal into it along +x, the ball on the bed; each case gives the table
    whose ball and cushion figures it takes, the velocity and spin in, and each model's out."""
    from cuegym.physics import get_spec

    cases = []
    for table in ("pool-9ft", "snooker-12ft"):
        s = get_spec(table)
        for speed in (0.5, 1.0, 2.5):
            for inc in (0.0, 30.0, 60.0):
                a = math.radians(inc)
                v = np.array([speed * math.cos(a), speed * math.sin(a), 0.0])
                rolling = np.array([-v[1], v[0], 0.0]) / s.ball_radius
                side = np.array([0.0, 0.0, speed / s.ball_radius])
                for spin, w in (("rolling", rolling), ("stun", 0 * rolling), ("draw", -0.5 * rolling),
                                ("running side", rolling + side), ("check side", rolling - side)):
                    case = {"table": table, "speed": speed, "incidence": inc, "spin": spin, "v": v.tolist(),
                            "w": w.tolist()}
                    for model in ("han_2005", "mathavan_2010"):
                        case[model] = [x.tolist() for x in pooltool_rebound(model, s, v, w)]
                    cases.append(case)
    return {"pooltool": _pooltool().__version__, "mathavan_steps": MATHAVAN_STEPS, "cases": cases}


def compare(case: Case, a: dict, b: dict, pa: Played, pb: Played) -> dict:
    """Differences cuegym - pooltool of one shot's measures; ``before_cushion`` [m]: the
    largest distance between a ball's two positions when the first ball meets a cushion."""
    t_c = min(a["first_cushion_t"], b["first_cushion_t"])
    gone = np.minimum(pa.pocket_t, pb.pocket_t) <= t_c
    gap = np.linalg.norm(pa.positions(np.array([t_c]))[0] - pb.positions(np.array([t_c]))[0], axis=-1)
    on = [k for k in range(len(case.xy)) if a["pocket"][k] < 0 and b["pocket"][k] < 0]
    final = [float(np.linalg.norm(np.subtract(a["final"][k], b["final"][k]))) for k in on]
    dist = [abs(x - y) for x, y in zip(a["distance"], b["distance"])]
    return {
        "ob_angle": angle_diff(a["ob_angle"], b["ob_angle"]),
        "cb_angle": angle_diff(a["cb_angle"], b["cb_angle"]),
        "cb_angle_now": angle_diff(a["cb_angle_now"], b["cb_angle_now"]),
        "before_cushion": float(np.max(np.where(gone, 0.0, gap))),
        "first_cushion_t": [a["first_cushion_t"], b["first_cushion_t"]],
        "final_max": max(final, default=float("nan")),
        "final_cb": final[0] if on and on[0] == 0 else float("nan"),
        "distance_max": max(dist),
        "distance_cb": a["distance"][0] - b["distance"][0],
        "pockets_agree": a["pocket"] == b["pocket"],
    }


def _fmt(x, spec="+.2f"):
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


def markdown(rows: list[dict]) -> str:
    """The table of docs/physics.md: each shot's cuegym angles and the differences."""
    head = ("| shot | OB angle (cuegym) | ΔOB [°] | CB angle after / leaving (cuegym) | ΔCB after / leaving [°] "
            "| Δ at 1st cushion [cm] | Δfinal CB / max [cm] | CB distance (cuegym) [m] | Δdistance CB / max [cm] "
            "| pockets cuegym / pooltool |")
    lines = [head, "|" + " --- |" * 10]
    for r in rows:
        c, d = r["cuegym"], r["diff"]
        pk = lambda p: ",".join(str(x) for x in p if x >= 0) or "none"  # noqa: E731
        lines.append(
            f"| {r['name']} | {_fmt(c['ob_angle'], '.2f')} | {_fmt(d['ob_angle'])} "
            f"| {_fmt(c['cb_angle_now'], '.2f')} / {_fmt(c['cb_angle'], '.2f')} "
            f"| {_fmt(d['cb_angle_now'])} / {_fmt(d['cb_angle'])} | {_fmt(100 * d['before_cushion'], '.2f')} "
            f"| {_fmt(100 * d['final_cb'], '.1f')} / {_fmt(100 * d['final_max'], '.1f')} "
            f"| {c['distance'][0]:.3f} | {100 * d['distance_cb']:+.1f} / {100 * d['distance_max']:.1f} "
            f"| {pk(c['pocket'])} / {pk(r['pooltool']['pocket'])} |")
    return "\n".join(lines)


def run(only: str | None = None, cushion: str = "han_2005") -> dict:
    ours, theirs = CUSHION_PAIRS[cushion]
    rows = []
    for case in shot_set():
        if only and only not in case.name:
            continue
        pa, pb = play_cuegym(case, cushion=ours), play_pooltool(case, theirs)
        a, b = measure(case, pa), measure(case, pb)
        rows.append({"name": case.name, "group": case.group, "cuegym": a, "pooltool": b,
                     "diff": compare(case, a, b, pa, pb)})
        print(f"{case.name:32s} dOB {_fmt(rows[-1]['diff']['ob_angle'])}  dCB {_fmt(rows[-1]['diff']['cb_angle'])}  "
              f"dfinal {_fmt(100 * rows[-1]['diff']['final_max'], '.1f')} cm", flush=True)
    return {"table": TABLE, "cushion_model": cushion, "cuegym_cushion": ours or "default", "pooltool_cushion": theirs,
            "parameters": parameter_map(), "shots": rows}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="results/compare_pooltool.json")
    ap.add_argument("--only", default=None, help="play only the shots whose name contains this")
    ap.add_argument("--cushion", default="han_2005", choices=tuple(CUSHION_PAIRS),
                    help="the cushion model both play (han_2005, mathavan_2010); stronge: pooltool's default "
                         "beside cuegym's")
    ap.add_argument("--cushion-cases", default=None, metavar="FILE",
                    help="write pooltool's single-contact reference cases to FILE and stop")
    args = ap.parse_args(argv)
    if args.cushion_cases:
        Path(args.cushion_cases).write_text(json.dumps(cushion_cases(), indent=1) + "\n")
        return 0
    t0 = time.perf_counter()
    report = run(args.only, args.cushion)
    report["wall_s"] = time.perf_counter() - t0
    table = markdown(report["shots"])
    print(table)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1, default=float))
    out.with_suffix(".md").write_text(table + "\n")
    print(f"wrote {out} ({report['wall_s']:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
