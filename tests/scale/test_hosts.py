"""Training over several hosts (docs/scale.md): two processes on localhost, joined by
``jax.distributed.initialize`` behind experiments/train_jax.py's --coordinator flags, train
the weights one process trains with the same global batch; importing cuegym starts no JAX
backend, so the script can join the processes after its imports."""

import os
import socket
import subprocess
import sys
from pathlib import Path

import jax
import numpy as np
from flax import serialization

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "experiments" / "train_jax.py"
ARGS = ["--env", "cuegym/PotShot-v0", "--table", "pool-9ft", "--noise", "1", "--action", "shot", "--num-envs", "8",
        "--num-steps", "2", "--minibatches", "2", "--epochs", "1", "--max-steps", "48", "--eval-episodes", "0",
        "--no-env-speed"]


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _weights(folder: Path):
    saved = serialization.msgpack_restore((folder / "checkpoint.msgpack").read_bytes())
    return [np.asarray(x, np.float64) for x in jax.tree_util.tree_leaves(saved)]


def test_two_processes_train_the_weights_of_one(tmp_path):
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
    assert '"processes": 2' in outs[0] and '"devices": 2' in outs[0]
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
    import importlib.util

    spec = importlib.util.spec_from_file_location("cuegym_experiment_train_jax_hosts", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    import pytest

    with pytest.raises(SystemExit):
        mod.main([*ARGS, "--coordinator", "127.0.0.1:1234", "--num-processes", "2"])
    assert "process_id: needed with the others" in capsys.readouterr().err
