"""The policy and value networks (flax): a scorer of the shot menu's candidates (with a
Gaussian correction of each candidate's aim and pace for ``action="residual"``), and a
Gaussian stroke policy for ``action="shot"``.

Why a scorer: the candidates are a set, so one small network scores each candidate from its
own features and the table's context, and the softmax over the legal ones is the policy; a
candidate is judged the same wherever the menu lists it, and what is learned on one pot
carries to the others (docs/training.md, "The learner").
"""

from __future__ import annotations

from collections.abc import Sequence

import flax.linen as nn
import jax.numpy as jnp

from cuegym.agents import menu as M

NEG = -1e9  # logit of an illegal candidate


class MLP(nn.Module):
    sizes: Sequence[int]

    @nn.compact
    def __call__(self, x):
        for k in self.sizes:
            x = nn.tanh(nn.Dense(k)(x))
        return x


class MenuPolicy(nn.Module):
    """obs (..., D) laid out as :meth:`cuegym.learn.gymnax_env.CueGymnaxEnv.layout` ->
    (logits (..., K), value (...)); with ``residual``, (logits, mean (..., K, 2) in [-1, 1]
    the correction of each candidate, log_std (2,), value). ``hidden`` the width of each
    layer. The correction's head starts at zero, so a residual policy starts as the menu's."""

    k: int
    features: int
    hidden: int = 64
    residual: bool = False

    @nn.compact
    def __call__(self, obs):
        kf = self.k * self.features
        cand = obs[..., :kf].reshape(obs.shape[:-1] + (self.k, self.features))
        legal = obs[..., kf:kf + self.k] > 0.5
        table = obs[..., kf + self.k:]
        context = MLP((self.hidden, self.hidden // 2))(table)
        ctx = jnp.broadcast_to(context[..., None, :], cand.shape[:-1] + context.shape[-1:])
        h = MLP((self.hidden, self.hidden))(jnp.concatenate([cand, ctx], -1))
        logits = nn.Dense(1)(h)[..., 0]
        logits = jnp.where(legal, logits, NEG)
        pooled = jnp.sum(h * legal[..., None], -2) / jnp.maximum(jnp.sum(legal, -1, keepdims=True), 1)
        value = nn.Dense(1)(MLP((self.hidden,))(jnp.concatenate([pooled, context], -1)))[..., 0]
        if not self.residual:
            return logits, value
        mean = jnp.tanh(nn.Dense(2, kernel_init=nn.initializers.zeros)(h))
        log_std = self.param("log_std", nn.initializers.constant(-1.0), (2,))
        return logits, mean, log_std, value


class ShotPolicy(nn.Module):
    """obs (..., D) -> (mean (..., 5) in [-1, 1], log_std (5,), value (...))."""

    hidden: int = 128

    @nn.compact
    def __call__(self, obs):
        mean = jnp.tanh(nn.Dense(5)(MLP((self.hidden, self.hidden))(obs)))
        log_std = self.param("log_std", nn.initializers.constant(-0.5), (5,))
        value = nn.Dense(1)(MLP((self.hidden, self.hidden))(obs))[..., 0]
        return mean, log_std, value


def network(action: str, hidden: int | None = None):
    """The network of an action kind (``"menu"``, ``"residual"`` or ``"shot"``)."""
    if action in ("menu", "residual"):
        return MenuPolicy(M.size(), M.NUM_FEATURES, hidden or 64, residual=action == "residual")
    return ShotPolicy(hidden or 128)
