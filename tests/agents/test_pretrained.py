"""cuegym.agents.pretrained: the learned agents cuegym ships, by env id, and the name
"pretrained" wherever agents are named (AGENTS, experiments/evaluate.py, the env's opponent,
``cuegym suggest --agent``).

Cheap by construction: one tiny PotShot-v0 training (tests/learn/test_train_jax.py's spec and
config, so the same compiled program) fills a temporary root shared by the tests; the paths
that need a root of their own point the module's ROOT at it. The shipped checkpoints (none
yet) are loaded against the current envs by :func:`test_every_shipped_checkpoint_loads`.
"""

from __future__ import annotations

import fnmatch
import importlib
import importlib.util
import json
import shutil
import sys
from pathlib import Path

import gymnasium as gym
import jax
import pytest

import cuegym  # noqa: F401  (registers the ids)
from cuegym.agents import AGENTS, pretrained
from cuegym.envs.registry import BY_ID
from cuegym.learn import ppo, train
from cuegym.learn.agent import PolicyAgent

try:
    import tomllib
except ImportError:  # Python 3.10: tomli, a dependency of pytest there
    import tomli as tomllib

P = importlib.import_module("cuegym.agents.pretrained")  # the module (the package's name is the function)
REPO = Path(__file__).resolve().parents[2]
# tests/learn/test_train_jax.py's tiny run: 8 tables, 2 decisions each, 64 env steps
SPEC = {"env": "cuegym/PotShot-v0", "action": "menu", "observation": "flat", "opponent": None,
        "options": {"table": "pool-9ft", "noise": 1.0}}
CFG = ppo.Config(num_envs=8, num_steps=2, minibatches=2, epochs=1)
POT7 = REPO / "cuegym" / "examples" / "pot-7.json"  # a pot shot: the cue ball and the 7
FLAGS = ["--candidates", "16", "--samples", "4", "--rounds", "1"]  # tests/tools/test_coach.py's budget


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """A root of checkpoints holding PotShot-v0's, from a tiny training."""
    base = tmp_path_factory.mktemp("checkpoints")
    train.run(SPEC, CFG, minutes=5.0, seed=0, out=base / "PotShot-v0", max_steps=64, eval_episodes=0,
              log=lambda *_: None, measure_env_speed=False)
    return base


@pytest.fixture
def shipped(root, monkeypatch):
    """The temporary root as the shipped one."""
    monkeypatch.setattr(P, "ROOT", root)
    return root


def _evaluate_script():
    spec = importlib.util.spec_from_file_location("cuegym_experiment_evaluate", REPO / "experiments" / "evaluate.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# ----------------------------------------------------------------------------- the shipped folder


def test_every_shipped_checkpoint_loads():
    """Every folder under cuegym/agents/checkpoints is a complete checkpoint of a registered
    id, and loads against the current env and plays one decision."""
    for env_id, path in P.entries().items():
        assert env_id in BY_ID, f"{path.name}: not a cuegym env id (a folder is named after its id)"
        assert not P.missing_files(path), f"{path.name}: lacks {P.missing_files(path)}"
    ids = pretrained.available()
    if not ids:
        pytest.xfail("no checkpoint shipped yet")
    for env_id in ids:
        agent = pretrained(env_id)
        env = gym.make(env_id)
        obs, _ = env.reset(seed=0)
        action = agent.act(obs, jax.random.PRNGKey(0))
        assert env.action_space.contains(action), env_id
        env.close()


def test_the_package_data_carries_the_checkpoint_files():
    patterns = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["cuegym"]
    for name in P.FILES:
        assert any(fnmatch.fnmatch(f"agents/checkpoints/RussianPyramid-v0/{name}", p) for p in patterns), name
    assert P.ROOT == REPO / "cuegym" / "agents" / "checkpoints" and P.ROOT.is_dir()


# ----------------------------------------------------------------------------- a root of one's own


def test_available_lists_the_complete_folders(root, tmp_path):
    assert pretrained.available(root=root) == ("cuegym/PotShot-v0",)
    assert P.missing_files(root / "PotShot-v0") == []
    other = tmp_path / "other"
    shutil.copytree(root / "PotShot-v0", other / "PotShot-v0")
    (other / "PotShot-v0" / "checkpoint.msgpack").unlink()  # a partial copy is not offered
    assert pretrained.available(root=other) == ()
    assert P.missing_files(other / "PotShot-v0") == ["checkpoint.msgpack"]
    assert pretrained.available(root=tmp_path / "none") == ()


def test_the_shipped_agent_plays_its_env(root):
    agent = pretrained("PotShot-v0", root=root, table="pool-9ft")
    assert isinstance(agent, PolicyAgent) and agent.path == root / "PotShot-v0"
    assert pretrained("cuegym/PotShot-v0", root=root).path == agent.path
    env = gym.make("cuegym/PotShot-v0", table="pool-9ft", noise=1.0)
    obs, _ = env.reset(seed=3)
    action = agent.act(obs, jax.random.PRNGKey(0))
    assert env.action_space.contains(action) and "candidate" in agent.last_info


def test_an_id_without_a_checkpoint_lists_the_ids_that_have_one(root, tmp_path):
    with pytest.raises(ValueError, match=r"env_id: no pretrained agent for 'cuegym/RussianPyramid-v0'.*"
                                         r"ids with one: cuegym/PotShot-v0"):
        pretrained("RussianPyramid-v0", root=root)
    with pytest.raises(ValueError, match=r"env_id: 'cuegym/Pool-v9' is not a cuegym env id.*cuegym/PotShot-v0"):
        pretrained("Pool-v9", root=root)
    with pytest.raises(ValueError, match="none ships yet"):
        pretrained("cuegym/PotShot-v0", root=tmp_path)
    with pytest.raises(ValueError, match="env_id"):
        pretrained(7, root=root)


def test_a_checkpoint_of_another_env_or_observation_is_refused(root, tmp_path):
    # a folder named after one id holding another id's run
    shutil.copytree(root / "PotShot-v0", tmp_path / "a" / "Lag-v0")
    with pytest.raises(ValueError, match=r"checkpoint: .*trained on cuegym/PotShot-v0, not cuegym/Lag-v0"):
        pretrained("Lag-v0", root=tmp_path / "a")
    # the env now observes other parts than the run saw: cuegym.learn.train.load's check
    folder = tmp_path / "b" / "PotShot-v0"
    shutil.copytree(root / "PotShot-v0", folder)
    cfg = json.loads((folder / "config.json").read_text())
    cfg["spec"]["observation"] = "egocentric"
    (folder / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(ValueError, match=r"checkpoint: .*egocentric"):
        pretrained("PotShot-v0", root=tmp_path / "b")


def test_without_flax_the_message_names_the_extra(root, monkeypatch):
    monkeypatch.setitem(sys.modules, "flax", None)  # `import flax` raises ImportError
    with pytest.raises(ImportError, match=r"pip install 'cuegym\[train\]'"):
        pretrained("PotShot-v0", root=root)


# ----------------------------------------------------------------------------- wherever agents are named


def test_agents_and_evaluate_build_the_shipped_agent(shipped):
    agent = AGENTS["pretrained"]("cuegym/PotShot-v0", table="pool-9ft", noise=1.0)
    assert isinstance(agent, PolicyAgent) and agent.path == shipped / "PotShot-v0"
    ev = _evaluate_script()
    assert ev.parse_pairs("pretrained:search") == [("pretrained", "search")]
    built = ev.make_agent("pretrained", "cuegym/PotShot-v0", 1.0, {}, None, table="pool-9ft")
    assert built.path == agent.path
    ev.require_pretrained(["pretrained", "ghost"], ["cuegym/PotShot-v0"], "--agents")
    with pytest.raises(SystemExit, match=r"--pairs: .*'pretrained'.*cuegym/RussianPyramid-v0.*cuegym/PotShot-v0"):
        ev.require_pretrained(["pretrained", "search"], ["cuegym/RussianPyramid-v0"], "--pairs")
    ev.require_pretrained(["search", "ghost"], ["cuegym/RussianPyramid-v0"], "--pairs")  # not asked for


def test_the_env_takes_pretrained_as_its_opponent(shipped):
    env = gym.make("cuegym/PotShot-v0", opponent="pretrained", table="pool-9ft")
    opponent = env.unwrapped.tables.opponent  # the shipped agent's as_opponent()
    assert callable(opponent)
    obs, _ = env.reset(seed=5)
    assert env.action_space.contains(opponent(obs))
    env.close()
    with pytest.raises(ValueError, match=r"opponent: .*'cuegym/RussianPyramid-v0'.*cuegym/PotShot-v0"):
        gym.make("cuegym/RussianPyramid-v0", opponent="pretrained")
    with pytest.raises(ValueError, match=r"opponent: 'pretrained' plays the single env"):
        gym.make_vec("cuegym/PotShot-v0", num_envs=2, opponent="pretrained")


def test_suggest_ranks_the_shipped_agents_candidates(shipped, capsys):
    from cuegym.tools import cli, coach

    code = cli.main(["suggest", str(POT7), "--agent", "pretrained", "--top", "2", "--json", *FLAGS])
    out, err = capsys.readouterr()
    assert code == 0, err
    doc = json.loads(out)
    assert doc["agent"] == "pretrained" and doc["policy"] == str(shipped / "PotShot-v0")
    assert 1 <= len(doc["suggestions"]) <= 2 and all(s["target"]["ball"] == "7" for s in doc["suggestions"])
    snooker = REPO / "cuegym" / "examples" / "snooker-break.json"  # no snooker agent in the root
    assert cli.main(["suggest", str(snooker), "--agent", "pretrained"]) == 2
    assert "--agent: 'pretrained' has no agent" in capsys.readouterr().err
    assert cli.main(["suggest", str(POT7), "--agent", "pretrained", "--policy", str(shipped)]) == 2
    assert "--agent" in capsys.readouterr().err
    with pytest.raises(ValueError, match="agent: one of search, pretrained"):
        coach.suggest(str(POT7), agent="ghost")
