"""The host fronts' packing (cuegym.envs.packing, cuegym.envs.command): a tree packed into
int32 words and read back is the same tree bit for bit, traced or on the host; the single
env's quick command path packs an action exactly as the general path does and leaves
every bad action to the general path's errors. No env program is compiled here (a small
pack / unpack program only)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from cuegym.envs import command as G
from cuegym.envs import functional as F
from cuegym.envs.env_spaces import action_space
from cuegym.envs.packing import Packing

N_BALLS = 16


def _tree(rng, lead):
    """A tree of every dtype a state holds, with awkward values: NaN payloads, -0.0, the
    int32 and uint32 extremes, bool counts that do not fill a word."""
    f = rng.normal(size=lead + (3, 2)) * 1e300
    f.reshape(-1)[:3] = [np.nan, -0.0, np.inf]
    return {
        "xy": f,
        "shots": rng.integers(-2**31, 2**31, size=lead, dtype=np.int64).astype(np.int32),
        "key": rng.integers(0, 2**32, size=lead + (2,), dtype=np.uint64).astype(np.uint32),
        "on": rng.random(lead + (5,)) < 0.5,
        "mask": rng.random(lead + (7,)) < 0.5,
        "nested": (rng.normal(size=lead), rng.integers(-5, 5, size=lead + (4,), dtype=np.int64).astype(np.int32)),
    }


def _same_bits(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def test_a_packed_tree_reads_back_bit_for_bit_on_the_host_and_traced():
    rng = np.random.default_rng(0)
    tree = _tree(rng, (3,))
    packing = Packing(jax.tree_util.tree_map(lambda x: jax.ShapeDtypeStruct(x.shape[1:], x.dtype), tree))
    # 6 float64 (12 words) + 1 float64 (2) | 1 int32 + 4 int32 (5) | 2 uint32 (2) | 12 bools (3 words)
    assert packing.width == 12 + 2 + 5 + 2 + 3
    words = packing.pack(tree)
    assert words.shape == (3, packing.width) and words.dtype == np.int32
    traced = jax.jit(lambda t: packing.pack(t, jnp))(tree)
    assert _same_bits(words, traced)  # the compiled program and the host agree on the layout
    back = packing.unpack(words, copy=True)
    back_traced = jax.jit(packing.unpack)(traced)
    for x, y, z in zip(jax.tree_util.tree_leaves(tree), jax.tree_util.tree_leaves(back),
                       jax.tree_util.tree_leaves(back_traced)):
        assert _same_bits(x, y) and _same_bits(x, z)
    leaves = jax.tree_util.tree_leaves(tree)
    assert all(_same_bits(packing.leaf(words, i), x) for i, x in enumerate(leaves))


def test_packing_refuses_a_leaf_of_another_dtype_or_shape():
    rng = np.random.default_rng(1)
    tree = _tree(rng, ())
    packing = Packing(tree)
    with pytest.raises(TypeError, match="packing"):
        packing.pack({**tree, "shots": tree["shots"].astype(np.int64)})
    with pytest.raises(TypeError, match="packing"):
        packing.pack({**tree, "on": tree["on"][:4]})


def _actions(n):
    space = action_space(F.FuncEnv(task="russian-pyramid"))
    space.seed(3)
    return [space.sample() for _ in range(n)]


def test_the_quick_command_packs_as_the_general_path():
    for action in _actions(50):
        quick = G.agent_command(action, N_BALLS)
        general = G.pack_action({**action, "shot": action["shot"].tolist()}, None, N_BALLS, G.COMMAND_WIDTH)
        assert quick.shape == (1, G.COMMAND_WIDTH) and quick.dtype == np.float64
        assert np.array_equal(quick[0, :G.ACTION_WIDTH], general[:G.ACTION_WIDTH])
        assert quick[0, G.DONE] == 0 and quick[0, G.ACTIVE] == 1 and quick[0, G.OPPONENT] == 0
        fields = G.action_fields(quick)
        assert np.array_equal(fields["shot"][0], action["shot"].astype(np.float64))
        assert all(fields[k].dtype == np.int32 and fields[k][0] == action[k] for k in G.INT_FIELDS)


@pytest.mark.parametrize("change, field", [
    ({"shot": np.array([np.nan, 1, 0, 0, 0], np.float32)}, "action.shot"),
    ({"place": np.array([np.inf, 0.3], np.float32)}, "action.place"),
    ({"place": np.zeros(3, np.float32)}, "action.place"),
    ({"cue_ball": N_BALLS}, "action.cue_ball"),
    ({"pocket": np.int64(6)}, "action.pocket"),
    ({"choice": -1}, "action.choice"),
    ({"ball": 2.5}, "action.ball"),
    ({"spin": 1.0}, "unknown keys"),
])
def test_a_bad_action_gets_the_general_paths_error(change, field):
    action = {**_actions(1)[0], **change}
    with pytest.raises(ValueError, match=field):
        G.agent_command(action, N_BALLS)
