"""PPO over the gymnax env, the rollout and the update in one compiled iteration (flax,
optax, distrax): clipped surrogate, GAE, value loss, entropy bonus (Schulman et al.,
"Proximal Policy Optimization Algorithms", arXiv:1707.06347; GAE: arXiv:1506.02438).

Why our own and not only rejax's: the menu's policy is a scorer over a set of candidates
with a legal mask (:class:`cuegym.learn.networks.MenuPolicy`), which a generic MLP trainer
does not take; rejax still runs on the same env (docs/training.md).
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import distrax
import jax
import jax.numpy as jnp
import optax

from cuegym.learn.networks import network


@dataclasses.dataclass(frozen=True)
class Config:
    """PPO's knobs: ``num_envs`` tables stepped together, ``num_steps`` decisions each per
    iteration, ``epochs`` passes over the batch in ``minibatches``; ``lr`` Adam's step,
    ``gamma``, ``lam`` (GAE), ``clip``, ``entropy``, ``value`` the loss weights,
    ``max_grad_norm``; ``hidden`` the network's width (None: its default); ``pool_batch``
    the tables the pool hands out at a time with ``rollout="pool"``
    (:mod:`cuegym.learn.pool_ppo`; None: a quarter of ``num_envs``)."""

    num_envs: int = 64
    num_steps: int = 4
    epochs: int = 4
    minibatches: int = 4
    lr: float = 1e-3
    gamma: float = 0.99
    lam: float = 0.95
    clip: float = 0.2
    entropy: float = 0.01
    value: float = 0.5
    max_grad_norm: float = 0.5
    hidden: int | None = None
    pool_batch: int | None = None

    def __post_init__(self):
        for name in ("num_envs", "num_steps", "epochs", "minibatches"):
            v = getattr(self, name)
            if not isinstance(v, int) or v < 1:
                raise ValueError(f"{name}: a positive integer, got {v!r}")
        if self.pool_batch is not None and not (isinstance(self.pool_batch, int) and
                                                1 <= self.pool_batch <= self.num_envs):
            raise ValueError(f"pool_batch: an integer in 1 .. num_envs = {self.num_envs}, got {self.pool_batch!r}")
        if self.pool_batch is None:
            object.__setattr__(self, "pool_batch", max(1, self.num_envs // 4))
        if (self.num_envs * self.num_steps) % self.minibatches:
            raise ValueError(f"minibatches: must divide num_envs x num_steps = {self.num_envs * self.num_steps}, "
                             f"got {self.minibatches}")


class TrainState(NamedTuple):
    """``params`` the network's, ``opt`` the optimiser's state (with the learning rate),
    ``env_state`` and ``obs`` (B, ...) the tables, ``key``, ``steps`` () env steps taken,
    ``entropy`` () the entropy bonus's weight (a value, not a constant of the program, as
    the learning rate)."""

    params: dict
    opt: optax.OptState
    env_state: object
    obs: jnp.ndarray
    key: jnp.ndarray
    steps: jnp.ndarray
    entropy: jnp.ndarray


class Residual(NamedTuple):
    """The residual policy's distribution: a candidate k from ``logits`` (..., K), then its
    correction from a diagonal Gaussian of mean ``mean[k]`` ((..., K, 2)) and ``log_std``
    (2,). An action is the pair (k (...), correction (..., 2))."""

    logits: jnp.ndarray
    mean: jnp.ndarray
    log_std: jnp.ndarray

    def _parts(self, k):
        pick = jnp.take_along_axis(self.mean, k[..., None, None], -2)[..., 0, :]
        return distrax.Categorical(logits=self.logits), distrax.MultivariateNormalDiag(
            pick, jnp.broadcast_to(jnp.exp(self.log_std), pick.shape))

    def sample(self, seed):
        k_pick, k_fix = jax.random.split(seed)
        k = distrax.Categorical(logits=self.logits).sample(seed=k_pick)
        return k, self._parts(k)[1].sample(seed=k_fix)

    def log_prob(self, action):
        cat, normal = self._parts(action[0])
        return cat.log_prob(action[0]) + normal.log_prob(action[1])

    def entropy(self):
        # the Gaussian's entropy does not depend on the candidate: its std is shared
        cat, normal = self._parts(jnp.zeros(self.logits.shape[:-1], jnp.int32))
        return cat.entropy() + normal.entropy()


def distribution(env, out):
    """The policy's distribution from the network's output."""
    if env.action == "menu":
        return distrax.Categorical(logits=out[0])
    if env.action == "residual":
        return Residual(out[0], out[1], out[2])
    return distrax.MultivariateNormalDiag(out[0], jnp.exp(out[1]))


def greedy(env, out):
    """The policy's most likely action."""
    if env.action == "menu":
        return jnp.argmax(out[0], -1)
    if env.action == "residual":
        k = jnp.argmax(out[0], -1)
        return k, jnp.take_along_axis(out[1], k[..., None, None], -2)[..., 0, :]
    return out[0]


def optimiser(cfg: Config):
    """Adam after clipping the gradients' norm. The learning rate is a value of the
    optimiser's state (``optax.inject_hyperparams``), not a constant of the compiled
    program, so runs that differ only in it (a sweep's trials) share one compile."""
    adam = optax.inject_hyperparams(lambda learning_rate: optax.adam(learning_rate, eps=1e-5),
                                    hyperparam_dtype=jnp.float32)
    return optax.chain(optax.clip_by_global_norm(cfg.max_grad_norm), adam(learning_rate=cfg.lr))


def init(env, env_params, cfg: Config, key, axis: str | None = None, shards: int = 1) -> TrainState:
    """A new learner and ``cfg.num_envs`` fresh tables, from ``key``. Inside
    ``jax.shard_map`` over ``shards`` devices on the mesh axis ``axis``, this device's
    block of the tables (the same tables as one device deals) and the same learner on each."""
    k_net, k_env, key = jax.random.split(key, 3)
    first, local = _block(cfg.num_envs, axis, shards)
    keys = _rows(jax.random.split(k_env, cfg.num_envs), first, local, shards)
    obs, state = jax.vmap(env.reset, in_axes=(0, None))(keys, env_params)
    params = network(env.action, cfg.hidden).init(k_net, obs[:1])
    # a weak type, as the Python float it stands for: the loss keeps its dtype
    return TrainState(params, optimiser(cfg).init(params), state, obs, key, jnp.asarray(0, jnp.int32),
                      jnp.asarray(float(cfg.entropy)))


def _block(total: int, axis: str | None, shards: int):
    """(first, count): this device's block of ``total`` rows on the mesh axis ``axis``."""
    local = total // shards
    return (0 if shards == 1 else jax.lax.axis_index(axis) * local), local


def _rows(x, first, count: int, shards: int):
    """Rows ``first`` .. ``first + count`` of ``x``'s leading axis (all of it on one device)."""
    return x if shards == 1 else jax.lax.dynamic_slice_in_dim(x, first, count, 0)


def _sample(env, out, key, first, total: int, shards: int):
    """Actions for this device's rows of the policy's output ``out``, drawn as one device
    draws them for all ``total`` tables with ``key``: the rows of the others are padded
    with zeros, so each table's noise is its row of the same draw."""
    if shards == 1:
        return distribution(env, out).sample(seed=key)
    local = out[0].shape[0]
    spread = lambda x: jax.lax.dynamic_update_slice_in_dim(jnp.zeros((total,) + x.shape[1:], x.dtype), x, first, 0)  # noqa: E731
    # the first output (logits, or the shot's mean) is per table; the residual's means too
    batched = (True, env.action == "residual")
    wide = tuple(spread(x) if b else x for x, b in zip(out, batched)) + out[len(batched):]
    action = distribution(env, wide).sample(seed=key)
    return jax.tree_util.tree_map(lambda a: _rows(a, first, local, shards), action)


class Batch(NamedTuple):
    obs: jnp.ndarray
    action: jnp.ndarray
    logp: jnp.ndarray
    value: jnp.ndarray
    reward: jnp.ndarray
    done: jnp.ndarray
    success: jnp.ndarray


def iteration(env, env_params, cfg: Config, ts: TrainState, axis: str | None = None, shards: int = 1):
    """(traceable) One PPO iteration: ``cfg.num_steps`` decisions on every table, then the
    update. Returns (state, metrics: mean reward, success rate of the episodes that ended,
    episodes ended, the losses).

    Data-parallel inside ``jax.shard_map`` over ``shards`` devices on the mesh axis
    ``axis`` (``ts``'s tables and observations this device's block, the rest the same on
    each): each device plays its tables with their rows of one device's random draws, the
    rollout is gathered (``all_gather``), each device takes its share of every minibatch
    and the gradients are averaged (``pmean``). Equal shares make the mean of the shares'
    gradients the minibatch's, so the update is one device's up to float rounding
    (docs/scale.md gives the communication)."""
    net = network(env.action, cfg.hidden)
    step = jax.vmap(env.step, in_axes=(0, 0, 0, None))
    first, local = _block(cfg.num_envs, axis, shards)
    gather = (lambda x: x) if shards == 1 else (lambda x: jax.lax.all_gather(x, axis, axis=1, tiled=True))

    def act(carry, _):
        params, state, obs, key = carry
        key, k_pick, k_env = jax.random.split(key, 3)
        out = net.apply(params, obs)
        action = _sample(env, out, k_pick, first, cfg.num_envs, shards)
        logp = distribution(env, out).log_prob(action)
        keys = _rows(jax.random.split(k_env, cfg.num_envs), first, local, shards)
        nobs, state, reward, done, info = step(keys, state, action, env_params)
        return (params, state, nobs, key), Batch(obs, action, logp, out[-1], reward, done, info["success"])

    (_, state, obs, key), batch = jax.lax.scan(act, (ts.params, ts.env_state, ts.obs, ts.key), None,
                                               cfg.num_steps)
    last_value = net.apply(ts.params, obs)[-1]

    def gae(carry, t):
        adv, next_value = carry
        notdone = 1.0 - t.done.astype(jnp.float32)
        delta = t.reward + cfg.gamma * next_value * notdone - t.value
        adv = delta + cfg.gamma * cfg.lam * notdone * adv
        return (adv, t.value), adv

    _, advantages = jax.lax.scan(gae, (jnp.zeros_like(last_value), last_value), batch, reverse=True)
    batch, advantages = jax.tree_util.tree_map(gather, (batch, advantages))
    returns = advantages + batch.value
    flat = lambda x: x.reshape((-1,) + x.shape[2:])  # noqa: E731
    data = jax.tree.map(flat, (batch.obs, batch.action, batch.logp, advantages, returns))

    params, opt_state, key, losses = update(env, cfg, ts.params, ts.opt, key, data, ts.entropy, axis, shards)
    ended = jnp.sum(batch.done)
    metrics = {"reward": jnp.mean(batch.reward), "episodes": ended,
               "success": jnp.sum(batch.success & batch.done) / jnp.maximum(ended, 1),
               "loss": jnp.mean(losses[0]), "value_loss": jnp.mean(losses[1]), "entropy": jnp.mean(losses[2])}
    return TrainState(params, opt_state, state, obs, key, ts.steps + cfg.num_envs * cfg.num_steps, ts.entropy), metrics


def update(env, cfg: Config, params, opt_state, key, data, entropy, axis: str | None = None, shards: int = 1,
           weight=None):
    """(traceable) ``cfg.epochs`` passes of clipped-surrogate Adam steps over ``data`` =
    (obs, action, logp, advantages, returns), rows on the leading axis (n), in
    ``cfg.minibatches`` shuffled minibatches (the last n mod minibatches rows of each
    shuffle left out). ``weight`` (n,) 0/1 (None: every row counts): rows of weight 0 take
    no part in the means. Returns (params, opt_state, the key after the shuffles, losses: the
    loss, value loss and entropy, each (epochs, minibatches)). Data-parallel inside ``jax.shard_map`` as
    :func:`iteration` describes."""
    net = network(env.action, cfg.hidden)
    n = jax.tree_util.tree_leaves(data)[0].shape[0]
    size = n // cfg.minibatches
    share = size // shards
    me = 0 if shards == 1 else jax.lax.axis_index(axis) * share
    mean = jnp.mean if weight is None else (lambda x, w: jnp.sum(x * w) / jnp.maximum(jnp.sum(w), 1.0))
    rows = data if weight is None else (*data, weight)

    def loss_fn(params, obs, action, logp_old, adv, ret, *w_stats):
        *w, adv_mean, adv_std = w_stats
        avg = (lambda x: jnp.mean(x)) if weight is None else (lambda x: mean(x, w[0]))
        out = net.apply(params, obs)
        dist = distribution(env, out)
        logp = dist.log_prob(action)
        ratio = jnp.exp(logp - logp_old)
        adv = (adv - adv_mean) / (adv_std + 1e-8)  # the whole minibatch's mean and spread
        surrogate = jnp.minimum(ratio * adv, jnp.clip(ratio, 1 - cfg.clip, 1 + cfg.clip) * adv)
        value_loss = avg((out[-1] - ret) ** 2)
        ent = avg(dist.entropy())
        loss = -avg(surrogate) + cfg.value * value_loss - entropy * ent
        return loss, (value_loss, ent)

    opt = optimiser(cfg)

    def epoch(carry, _):
        params, opt_state, key = carry
        key, k = jax.random.split(key)
        order = jax.random.permutation(k, n)[: size * cfg.minibatches].reshape(cfg.minibatches, size)

        def minibatch(carry, idx):
            params, opt_state = carry
            part = jax.tree.map(lambda x: x[idx], rows)
            if weight is None:
                stats = (jnp.mean(part[3]), jnp.std(part[3]))
            else:
                m = mean(part[3], part[5])
                stats = (m, jnp.sqrt(mean((part[3] - m) ** 2, part[5])))
            mine = jax.tree.map(lambda x: _rows(x, me, share, shards), part)
            (loss, aux), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, *mine, *stats)
            if shards > 1:
                grads, loss, aux = jax.lax.pmean((grads, loss, aux), axis)
            updates, opt_state = opt.update(grads, opt_state, params)
            return (optax.apply_updates(params, updates), opt_state), (loss, *aux)

        (params, opt_state), losses = jax.lax.scan(minibatch, (params, opt_state), order)
        return (params, opt_state, key), losses

    (params, opt_state, key), losses = jax.lax.scan(epoch, (params, opt_state, key), None, cfg.epochs)
    return params, opt_state, key, losses


def evaluate(env, env_params, choose, weights, keys, max_steps: int):
    """(traceable) The first episode of each table dealt from ``keys`` (E, 2), played by
    ``choose(weights, obs (E, D), state) -> actions (E, ...)`` with the step keys of
    ``keys`` (the same layouts and the same execution noise for every ``choose``), until
    every table's episode has ended or ``max_steps`` decisions. Returns (success (E,) bool,
    return (E,), decisions (E,))."""
    obs, state = jax.vmap(env.reset, in_axes=(0, None))(keys, env_params)
    step = jax.vmap(env.step, in_axes=(0, 0, 0, None))
    e = keys.shape[0]

    def more(carry):
        return jnp.any(carry[2]) & (carry[6] < max_steps)

    def one(carry):
        obs, state, live, success, ret, count, i = carry
        action = choose(weights, obs, state)
        k = jax.vmap(lambda kk: jax.random.fold_in(kk, i))(keys)
        obs, state, reward, done, info = step(k, state, action, env_params)
        success = jnp.where(live & done, info["success"], success)
        ret = ret + jnp.where(live, reward, 0.0)
        count = count + live
        return obs, state, live & ~done, success, ret, count, i + 1

    carry = (obs, state, jnp.ones(e, bool), jnp.zeros(e, bool), jnp.zeros(e), jnp.zeros(e, jnp.int32),
             jnp.asarray(0))
    _, _, _, success, ret, count, _ = jax.lax.while_loop(more, one, carry)
    return success, ret, count
