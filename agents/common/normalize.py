"""Observation preprocessing and running normalisation (Brax's `running_statistics`, Welford).

`features(obs)` picks what a network reads from an env observation:
  - a flat array stays as it is;
  - a block-world dict becomes {robot, objects, object_mask}, with Bob's per-object goal inputs
    (`mjx_envs.blocks.goal_features`) appended to `objects` when the obs has a goal, and the self-play
    game's `steps_left` appended to `robot` when the obs has it.
`normalize` standardises every float leaf except the mask and clips to +-clip (OpenAI Five: 5).
"""

from __future__ import annotations

from mjx_envs.blocks import goal_features

import jax
import jax.numpy as jnp
from brax.training.acme import running_statistics as rs


def features(obs):
  if not isinstance(obs, dict):
    return obs
  objects = obs["objects"]
  if "desired_goal" in obs:
    objects = jnp.concatenate([objects, goal_features(obs)], -1)
  robot = obs["robot"]
  if "steps_left" in obs:  # the self-play game's turn clock: one more robot input
    robot = jnp.concatenate([robot, jnp.asarray(obs["steps_left"], robot.dtype)[..., None]], -1)
  return {"robot": robot, "objects": objects, "object_mask": obs["object_mask"]}


def _stat_part(feats):
  """The leaves that get statistics: all but the mask."""
  if isinstance(feats, dict):
    return {k: v for k, v in feats.items() if k != "object_mask"}
  return feats


def init(feats_example) -> rs.RunningStatisticsState:
  """Statistics state for one (unbatched) feature example."""
  return rs.init_state(
    jax.tree.map(lambda x: jax.ShapeDtypeStruct(x.shape, jnp.float32), _stat_part(feats_example))
  )


def update(
  state: rs.RunningStatisticsState, feats_batch, weights=None, std_min: float = 1e-6
) -> rs.RunningStatisticsState:
  """Folds a batch of features (any leading dims) into the statistics; `weights` (the leading dims,
  0/1) leaves entries out. `std_min` floors the standard deviation, so that near-constant features are
  not blown up to +-clip noise (OpenAI baselines' HER uses 1e-2)."""
  return rs.update(state, _stat_part(feats_batch), weights=weights, std_min_value=std_min)


def normalize(state: rs.RunningStatisticsState, feats, clip: float = 5.0):
  """Standardised, clipped features. Object rows: statistics of S rows serve observations of S rows, and
  statistics of ONE row (a 1-block world observed without padding, `pad_objects=False`) serve any number,
  each block as the one the statistics were taken on: a 1-block Bob evaluated on 2-block holdouts."""
  if isinstance(feats, dict):
    have, want = state.mean["objects"].shape[-2], feats["objects"].shape[-2]
    if have not in (1, want):
      raise ValueError(
        f"the observation has {want} object rows, the normaliser's statistics {have}: statistics of "
        f"S rows serve S rows (or any number when S is 1); build the env with the same object layout "
        f"(`pad_objects`, num_objects) as the one the statistics were taken on"
      )
  normed = jax.tree.map(lambda x: jnp.clip(x, -clip, clip), rs.normalize(_stat_part(feats), state))
  if isinstance(feats, dict):
    return {**normed, "object_mask": feats["object_mask"]}
  return normed
