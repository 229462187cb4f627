"""Tables and training spread over devices (docs/scale.md): on four forced CPU devices, in a
process of their own (tests/scale/spread_probe.py), the sharded vector env, async pool and
functional step give one device's bytes, and data-parallel PPO one device's weights; bad
device lists are refused."""

import json
import os
import subprocess
import sys
import types
from pathlib import Path

import jax
import pytest

import cuegym
from cuegym.envs.devices import resolve

PROBE = Path(__file__).with_name("spread_probe.py")
FOUR = "--xla_force_host_platform_device_count=4"


@pytest.fixture(scope="module")
def probe():
    env = dict(os.environ)
    env["XLA_FLAGS"] = f"{env.get('XLA_FLAGS', '')} {FOUR}".strip()
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    done = subprocess.run([sys.executable, str(PROBE)], env=env, capture_output=True, text=True, timeout=900)
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
