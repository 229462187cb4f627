"""The learned agents cuegym ships: one policy trained by ``experiments/train_jax.py`` per
env id, kept as its output folder in ``cuegym/agents/checkpoints/<EnvName>/`` (``EnvName``
the id without ``cuegym/``: ``config.json``, ``checkpoint.msgpack``, ``result.json``) and
loaded as :class:`cuegym.learn.agent.PolicyAgent`.

    agent = pretrained("cuegym/RussianPyramid-v0")        # or "RussianPyramid-v0"
    env = gymnasium.make("cuegym/RussianPyramid-v0", opponent="pretrained")

Why in this layer, with the one import upward (cuegym.learn, declared in pyproject.toml's
layer contract) made on first use: agents are named here (:data:`cuegym.agents.AGENTS`), and
the policy network needs flax, which only the ``train`` extra installs. docs/agents.md,
"Pretrained agents".
"""

from __future__ import annotations

import json
import pathlib

from cuegym.envs.registry import BY_ID, game

ROOT = pathlib.Path(__file__).resolve().with_name("checkpoints")
"""The shipped checkpoints' folder (the default ``root``)."""
FILES = ("config.json", "checkpoint.msgpack", "result.json")
"""What a checkpoint folder holds: train_jax.py's config, weights and result."""
CONFIG = FILES[0]
PREFIX = "cuegym/"


def _root(root) -> pathlib.Path:
    # read at call time, so that a test may point the module's ROOT elsewhere
    return pathlib.Path(ROOT if root is None else root)


def env_id_of(env_id) -> str:
    """``"RussianPyramid-v0"`` or ``"cuegym/RussianPyramid-v0"`` -> ``"cuegym/RussianPyramid-v0"``;
    ValueError naming ``env_id`` for anything but a string."""
    if not isinstance(env_id, str) or not env_id:
        raise ValueError(f"env_id: a cuegym env id such as 'cuegym/RussianPyramid-v0', got {env_id!r}")
    return env_id if env_id.startswith(PREFIX) else PREFIX + env_id


def entries(root=None) -> dict:
    """{env id: its folder} of every folder under ``root`` (default :data:`ROOT`), complete
    or not, in name order; {} when ``root`` does not exist."""
    base = _root(root)
    if not base.is_dir():
        return {}
    return {PREFIX + p.name: p for p in sorted(base.iterdir()) if p.is_dir() and not p.name.startswith((".", "_"))}


def missing_files(folder) -> list:
    """The names of :data:`FILES` that ``folder`` lacks ([] for a complete checkpoint)."""
    return [name for name in FILES if not (pathlib.Path(folder) / name).is_file()]


def available(root=None) -> tuple:
    """The env ids with a complete checkpoint folder under ``root`` (default :data:`ROOT`,
    the shipped ones), sorted."""
    return tuple(i for i, p in entries(root).items() if not missing_files(p))


def folder(env_id, root=None) -> pathlib.Path:
    """The checkpoint folder of ``env_id`` under ``root``. ValueError naming ``env_id`` and
    listing the ids that have one when it has none (or is not a cuegym id)."""
    env_id = env_id_of(env_id)
    have = available(root)
    if env_id not in have:
        where = "" if root is None else f" under {str(_root(root))!r}"
        listed = f"ids with one: {', '.join(have)}" if have else "none ships yet"
        if env_id not in BY_ID:
            raise ValueError(f"env_id: {env_id!r} is not a cuegym env id; pretrained agents{where}: {listed}")
        raise ValueError(f"env_id: no pretrained agent for {env_id!r}{where}; {listed}")
    return entries(root)[env_id]


def _policy_agent():
    try:
        import flax  # noqa: F401  (the train extra: cuegym.learn's networks and checkpoints)
    except ImportError as e:
        raise ImportError("pretrained agents need flax, one of the 'train' extra's packages: "
                          "pip install 'cuegym[train]'") from e
    from cuegym.learn.agent import PolicyAgent

    return PolicyAgent


def pretrained(env_id, *, root=None, **options):
    """The shipped agent of ``env_id`` (``"cuegym/RussianPyramid-v0"`` or
    ``"RussianPyramid-v0"``) as a :class:`cuegym.learn.agent.PolicyAgent`; ``options``
    replace the env options it was trained with (``table``, ``noise``, ...). ``root``: another
    folder of checkpoints (default :data:`ROOT`). ValueError naming ``env_id`` for an id
    without one; naming ``checkpoint`` for a folder trained on another env, or whose
    observation or network the env no longer has (:func:`cuegym.learn.train.load`).
    ImportError without flax (``pip install 'cuegym[train]'``)."""
    env_id = env_id_of(env_id)
    return _load(env_id, folder(env_id, root), options)


def pretrained_opponent(env_id, seed: int = 0, root=None, **options):
    """``pretrained(env_id, ...).as_opponent(seed)``: the callable opponent that
    ``gymnasium.make(env_id, opponent="pretrained")`` gets. ValueError naming ``opponent``
    when ``env_id`` has no checkpoint (with the ids that have one)."""
    env_id = env_id_of(env_id)
    try:
        path = folder(env_id, root)
    except ValueError as e:
        raise ValueError(f"opponent: 'pretrained' plays the shipped agent of the env; {e}") from None
    return _load(env_id, path, options).as_opponent(seed)


def _load(env_id: str, path: pathlib.Path, options: dict):
    PolicyAgent = _policy_agent()
    try:
        trained = game(json.loads((path / CONFIG).read_text())["spec"]["env"]).env_id
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"checkpoint: {str(path)!r} has no readable spec.env in its {CONFIG} ({e})") from None
    if trained != env_id:
        raise ValueError(f"checkpoint: {str(path)!r} was trained on {trained}, not {env_id}; a checkpoint folder "
                         f"is named after the id it plays")
    return PolicyAgent(path, **options)


# the package exports the function under this module's name (cuegym.agents.pretrained), which
# hides the module there; its readers ride on the function so that
# ``cuegym.agents.pretrained.available()`` works as the module's would
pretrained.available, pretrained.folder = available, folder
