"""Tables and training spread over devices and hosts (docs/scale.md).

On four forced CPU devices, in a process of their own (tests/scale/spread_probe.py), the
sharded vector env, async pool and functional step give one device's bytes, and
data-parallel PPO one device's weights; bad device lists are refused. Two processes on
localhost, joined by ``jax.distributed.initialize`` behind experiments/train_jax.py's
--coordinator flags, train the weights one process trains with the same global batch (after
the probe, whose one-device run compiled that program); importing cuegym starts no JAX
backend, so the script can join the processes after its imports."""

import importlib.util
import json
import os
import socket
import subprocess
import sys
import types
from pathlib import Path

import jax
import numpy as np
import pytest
from flax import serialization

import cuegym
from cuegym.envs.devices import resolve

PROBE = Path(__file__).with_name("spread_probe.py")
FOUR = "--xla_force_host_platform_device_count=4"


@pytest.fixture(scope="module")
def probe():
    done = subprocess.run([sys.executable, str(PROBE)], env=_env(), capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_vector_env_on_four_devices_gives_one_devices_bytes(probe):
    got = probe["vector"]
    assert len(got["devices"]) == 4 and len(set(got["devices"])) == 4
    assert got["same"]


def test_async_pool_on_four_devices_gives_one_devices_bytes(probe):
    got = probe["async"]
    assert len(got["devices"]) == 4
    assert min(got["lengths"]) >= 2  # every table handed out more than once by both
    assert got["same"]


def test_functional_batched_step_on_four_devices_gives_one_devices_bytes(probe):
    # 6 tables: padded to 8 on the devices, the padding never seen
    assert probe["functional"]["same"]


def test_data_parallel_training_on_four_devices_matches_one_device(probe):
    assert probe["train one devices"] == 1 and probe["train four devices"] == 4
    got = probe["train"]
    assert len(got["loss_one"]) == len(got["loss_four"]) >= 2
    assert got["loss_four"] == pytest.approx(got["loss_one"], rel=1e-4, abs=1e-6)
    assert got["max_abs"] < 1e-4 * max(1.0, got["max_weight"])


def test_devices_that_do_not_divide_the_tables_are_refused(probe):
    refused = probe["refused"]
    assert "num_envs: a multiple of the 4 devices" in refused["async num_envs"]
    assert "batch_size: a multiple of the 4 devices" in refused["async batch_size"]
    assert refused["train"].startswith("devices: 4 must divide num_envs (6)")


def _fake(platform: str, i: int):
    return types.SimpleNamespace(platform=platform, id=i)


@pytest.mark.parametrize(("devices", "words"), [
    ([], "an empty list"),
    ([0, 0], "named more than once"),
    ([7], "index 7 outside 0..0"),
    (["gpu:0"], "jax.Device objects or indices"),
    (3.5, "a list of jax.Device"),
])
def test_bad_device_lists_get_a_clear_error(devices, words):
    with pytest.raises(ValueError, match="devices: ") as e:
        resolve(devices)
    assert words in str(e.value)


def test_a_device_list_mixing_platforms_is_refused():
    cpu = jax.local_devices()[0]
    with pytest.raises(ValueError, match="devices: one platform, got cpu, gpu mixed"):
        resolve([cpu, _fake("gpu", 0)])
    with pytest.raises(ValueError, match="devices: one platform"):
        cuegym.make_async("cuegym/PotShot-v0", 2, devices=[cpu, _fake("gpu", 0)])


def test_env_devices_default_to_the_local_ones():
    import gymnasium as gym

    env = gym.make_vec("cuegym/PotShot-v0", 2)
    assert env.devices == tuple(jax.local_devices())
    assert gym.make("cuegym/PotShot-v0").unwrapped.devices == (jax.local_devices()[0],)
    assert gym.make_vec("cuegym/PotShot-v0", 2, action="menu").devices == env.devices


# several hosts

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "experiments" / "train_jax.py"
ARGS = ["--env", "cuegym/PotShot-v0", "--table", "pool-9ft", "--noise", "1", "--action", "shot", "--num-envs", "8",
        "--num-steps", "2", "--minibatches", "2", "--epochs", "1", "--max-steps", "48", "--eval-episodes", "0",
        "--no-env-speed"]


def _env():
    """This process's environment with four forced CPU devices, as the probe's: each host of
    the test has four, and the one-process run loads the program the probe compiled (XLA's
    flags are part of a compiled program's cache key)."""
    env = dict(os.environ)
    env["XLA_FLAGS"] = f"{env.get('XLA_FLAGS', '')} {FOUR}".strip()
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _weights(folder: Path):
    saved = serialization.msgpack_restore((folder / "checkpoint.msgpack").read_bytes())
    return [np.asarray(x, np.float64) for x in jax.tree_util.tree_leaves(saved)]


def test_two_processes_train_the_weights_of_one(probe, tmp_path):  # after the probe: see _env
    port = _free_port()
    hosts = ["--coordinator", f"127.0.0.1:{port}", "--num-processes", "2"]
    procs = [subprocess.Popen([sys.executable, str(SCRIPT), *ARGS, *hosts, "--process-id", str(i),
                               "--out", str(tmp_path / "two")], env=_env(), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True) for i in range(2)]
    alone = subprocess.run([sys.executable, str(SCRIPT), *ARGS, "--out", str(tmp_path / "one")], env=_env(),
                           capture_output=True, text=True, timeout=900)
    outs = [p.communicate(timeout=900)[0] for p in procs]
    assert alone.returncode == 0, alone.stderr[-3000:]
    for p, out in zip(procs, outs):
        assert p.returncode == 0, out[-3000:]
    assert '"processes": 2' in outs[0] and '"devices": 8' in outs[0]  # every host's four
    one, two = _weights(tmp_path / "one"), _weights(tmp_path / "two")
    assert len(one) == len(two)
    scale = max(float(np.max(np.abs(a))) for a in one)
    assert max(float(np.max(np.abs(a - b))) for a, b in zip(one, two)) < 1e-4 * max(1.0, scale)


def test_importing_cuegym_starts_no_backend():
    code = ("import jax._src.xla_bridge as xb\n"
            "import cuegym, cuegym.learn.train, cuegym.envs.async_env, cuegym.tools.cli\n"
            "print(xb._backends == {})")
    done = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "True"


def test_a_partial_set_of_host_flags_is_refused(capsys):
    spec = importlib.util.spec_from_file_location("cuegym_experiment_train_jax_hosts", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with pytest.raises(SystemExit):
        mod.main([*ARGS, "--coordinator", "127.0.0.1:1234", "--num-processes", "2"])
    assert "process_id: needed with the others" in capsys.readouterr().err
