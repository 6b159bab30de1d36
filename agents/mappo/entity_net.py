"""The entity-centric torso of hide-and-seek's policy and omniscient value function (seed 004, figure
and appendix B), over the observation dict of `mjx_envs.hide_and_seek` for ONE agent (any leading batch
axes; a learner folds the agent axis into the batch):

  lidar [.., L]  -> circular 1-D convolution (no layer norm, as the paper)  ┐
  self  [.., S]  ----------------------------------------------------------┴-> dense -> own embedding
  agents [.., A, Fa], boxes [.., B, Fb], ramps [.., R, Fr], each concatenated with `self`
        -> a dense layer per entity type -> residual masked self-attention (agents.mappo.attention)
        -> masked mean pool
  [own embedding, pooled] -> dense -> the torso's output [.., dense]   (an LSTM and the heads follow)

The transfer suite's tasks (mjx_envs.hide_and_seek.transfer) add entities of their own, each with a dense
layer of its own into the same attention: `sites` [.., K, 15] with `sites_mask` (Blueprint) and
`objective` [.., 4] (Shelter, one entity, always seen). The layers have fixed names (`Dense_0` the own
embedding, `Dense_1`-`Dense_3` agents, boxes, ramps, `Dense_4` the output; `Dense_sites`,
`Dense_objective`), so that a network for a task without ramps or with sites has the game's layers under
the game's names: what a warm start (agents.league.surgery.transplant) matches by.

Layer normalisation after every dense layer. `omniscient=True` reads the unmasked `*_full` arrays with
their presence masks (`*_present`) instead of what the agent sees (`agents`, `*_mask`): the paper's
omniscient value function; False for the policy (and for the masked-critic ablation).

`EntityPolicy` and `EntityValue` (what agents.mappo.train trains) put an LSTM and layer norm after the torso,
then the three action heads (move 3 x 11 bins, grab, lock) or the value.
"""

from __future__ import annotations

import flax.linen as nn
import jax.numpy as jnp

from agents.mappo.attention import ResidualSelfAttention, masked_mean

ENTITY_TYPES = ("agents", "boxes", "ramps")
TASK_ENTITIES = {"sites": "sites_mask", "objective": None}  # transfer-task entities: {key: mask key}


def _dense_ln(x, size, name):
  return nn.relu(nn.LayerNorm(name=f"LayerNorm_{name}")(nn.Dense(size, name=f"Dense_{name}")(x)))


def _with_self(feats, own):
  return jnp.concatenate([feats, jnp.broadcast_to(own[..., None, :], feats.shape[:-1] + own.shape[-1:])], -1)


class EntityTorso(nn.Module):
  """obs (one agent's dict) -> features [..., dense]; see the module docstring."""

  embed: int = 128
  heads: int = 4
  head_dim: int = 32
  dense: int = 256
  lidar_channels: int = 9
  lidar_kernel: int = 3
  omniscient: bool = False

  @nn.compact
  def __call__(self, obs):
    own = obs["self"]
    lidar = obs["lidar"]
    k = self.lidar_kernel // 2
    wrapped = (
      jnp.concatenate([lidar[..., -k:], lidar, lidar[..., :k]], -1)[..., None] if k else lidar[..., None]
    )
    conv = nn.relu(nn.Conv(self.lidar_channels, (self.lidar_kernel,), padding="VALID")(wrapped))
    conv = conv.reshape(conv.shape[:-2] + (-1,))
    own_emb = _dense_ln(jnp.concatenate([own, conv], -1), self.embed, 0)
    entities, masks = [], []
    for i, kind in enumerate(ENTITY_TYPES):
      feats = obs[f"{kind}_full" if self.omniscient else kind]
      mask = obs[f"{kind}_present" if self.omniscient else f"{kind}_mask"]
      if feats.shape[-2] == 0:
        continue
      entities.append(_dense_ln(_with_self(feats, own), self.embed, i + 1))
      masks.append(mask)
    for kind, mask_key in TASK_ENTITIES.items():  # a task's own entities (seen by policy and value alike)
      if kind not in obs:
        continue
      feats = obs[kind] if mask_key else obs[kind][..., None, :]
      entities.append(_dense_ln(_with_self(feats, own), self.embed, kind))
      masks.append(obs[mask_key] if mask_key else jnp.ones(feats.shape[:-1], feats.dtype))
    ents, mask = jnp.concatenate(entities, -2), jnp.concatenate(masks, -1)
    ents = ResidualSelfAttention(self.heads, self.head_dim)(ents, mask)
    pooled = masked_mean(ents, mask)
    return _dense_ln(jnp.concatenate([own_emb, pooled], -1), self.dense, len(ENTITY_TYPES) + 1)


class _Sizes(nn.Module):
  """The entity network's sizes, shared by the core, the policy and the value function."""

  embed: int = 128
  heads: int = 4
  head_dim: int = 32
  dense: int = 256
  lstm: int = 256

  def core(self, omniscient: bool):
    return EntityCore(self.embed, self.heads, self.head_dim, self.dense, self.lstm, omniscient)


class EntityCore(_Sizes):
  """EntityTorso, then an LSTM cell: (obs, carry) -> (features [..., lstm], carry). The carry is (c, h),
  each [..., lstm] (agents.common.networks.zero_carry)."""

  omniscient: bool = False

  @nn.compact
  def __call__(self, obs, carry):
    x = EntityTorso(self.embed, self.heads, self.head_dim, self.dense, omniscient=self.omniscient)(obs)
    carry, h = nn.OptimizedLSTMCell(self.lstm)(carry, x)
    return nn.LayerNorm()(h), carry


MOVE_AXES, MOVE_BINS = 3, 11


class EntityPolicy(_Sizes):
  """(obs, carry) -> ({"move": logits [..., 3, 11], "grab": [..., 1, 2], "lock": [..., 1, 2]}, carry):
  the paper's three action heads on the entity core (masked observation)."""

  @nn.compact
  def __call__(self, obs, carry):
    x, carry = self.core(False)(obs, carry)
    small = nn.initializers.orthogonal(0.01)  # near-uniform actions at the start
    move = nn.Dense(MOVE_AXES * MOVE_BINS, kernel_init=small)(x).reshape(
      x.shape[:-1] + (MOVE_AXES, MOVE_BINS)
    )
    grab = nn.Dense(2, kernel_init=small)(x)[..., None, :]
    lock = nn.Dense(2, kernel_init=small)(x)[..., None, :]
    return {"move": move, "grab": grab, "lock": lock}, carry


class EntityValue(_Sizes):
  """(obs, carry) -> (V [...], carry): the same architecture with its own parameters; `omniscient` reads
  the unmasked entities (the paper's value function), False the agent's own view (its ablation)."""

  omniscient: bool = True

  @nn.compact
  def __call__(self, obs, carry):
    x, carry = self.core(self.omniscient)(obs, carry)
    return nn.Dense(1, kernel_init=nn.initializers.orthogonal(1.0))(x)[..., 0], carry
