"""Learning on cuegym in JAX: the gymnax env, the observations a network learns from, the
PPO trainer of the shot menu and the learned agent. Needs the ``[train]`` extra (flax, optax,
distrax; gymnax and rejax for their trainers). docs/training.md describes it."""
