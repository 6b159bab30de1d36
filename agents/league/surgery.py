"""Surgery (OpenAI Five, appendix B): change a trained model's architecture or observation without losing
its skill, as pure functions on parameter pytrees.

Every operation leaves the function the network computes unchanged (to float rounding): new weights that
could change an output start at zero, the others are drawn like a fresh layer's, so that the new units
are not all alike and train.

  widen a hidden layer     new units: their input-side weights (new output columns of the layer's Dense
                           kernel [in, out]) drawn from the layer's initializer, bias 0; their
                           output-side weights (new input rows of the next kernel) 0.
  add observation inputs   new features (at any positions: `Remap.insert`) get zero input rows; the
                           normaliser gets neutral statistics for them (mean 0, std 1, summed_variance =
                           count, so that later Welford updates treat the past as unit variance).
  add an LSTM              a fresh cell; `networks.Core` passes concat([torso output, h]) on, and the
                           head's rows for h are 0 (the skip is why this can preserve the function).
  widen an LSTM            new units' input kernels (ii/if/ig/io columns) drawn, their hidden-to-hidden
                           rows (hi/hf/hg/ho rows of the new h inputs) 0, so they never reach the old
                           gates; the head's rows for the new h are 0; new LSTM state entries 0.

The new weights come from a *donor*: the new network's freshly initialised parameters (`net.init`, or
a fresh train state's), which hold draws of every layer's own initializer at the new shapes. The same
functions rebuild Adam's moments with the fresh (zero) moments as donor: new entries start as a fresh
optimiser's, the old ones keep their history. All of it trains: the zero weights get gradients at once
(the new units and inputs are active), the drawn ones from the next step on (their gradients pass
through the weights that were zero).

Levels:
  embed(old, donor, remaps, zero_axes)       one array; `Remap` says where old entries go on each axis
  dense, lstm_cell, mlp                      one layer or an MLP
  policy_net / value_net, actor, critic      whole networks, given a `NetChange`
  extend_normalizer, obs_remaps              running statistics; the observation's remaps
  migrate(old_cfg, new_cfg, old_state, new_state, obs_inserted)
                                             a whole PPO, DDPG+HER or self-play train state
  transplant(fresh, donor)                   not surgery: a warm start on another task (fine-tuning),
                                             the leaves that match by path and shape

What cannot be reconciled raises a ValueError that names the leaf path: a layer removed or added, a
layer or LSTM narrowed, an LSTM removed, an observation that shrank or grew without saying where, or a
part of the state outside the networks whose shape changed.
"""

from __future__ import annotations

import dataclasses
import fnmatch
from collections.abc import Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from brax.training.acme import running_statistics as rs


# --- where the old entries go ---------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Remap:
  """One axis of a parameter from the old network to the new: old entry i sits at new position pos[i]
  (strictly increasing, so the old entries keep their order); the other new positions are new entries."""

  old: int
  new: int
  pos: tuple

  def __post_init__(self):
    pos = tuple(int(p) for p in self.pos)
    object.__setattr__(self, "pos", pos)
    if len(pos) != self.old or self.new < self.old:
      raise ValueError(f"Remap: {self.old} old entries cannot sit at {len(pos)} positions of {self.new}")
    if any(b <= a for a, b in zip(pos, pos[1:])) or (pos and (pos[0] < 0 or pos[-1] >= self.new)):
      raise ValueError(f"Remap: positions must increase strictly inside [0, {self.new}), got {pos}")

  @classmethod
  def same(cls, n: int) -> Remap:
    return cls(n, n, tuple(range(n)))

  @classmethod
  def widen(cls, old: int, new: int) -> Remap:
    """New units appended after the old ones."""
    if new < old:
      raise ValueError(f"narrowed from {old} to {new}; surgery only adds units")
    return cls(old, new, tuple(range(old)))

  @classmethod
  def fresh(cls, new: int) -> Remap:
    """Nothing old: every entry is new (an added LSTM's h)."""
    return cls(0, new, ())

  @classmethod
  def insert(cls, old: int, positions: Sequence[int]) -> Remap:
    """New entries at `positions` of the new axis (size old + len(positions)); old ones fill the rest."""
    new = old + len(positions)
    added = sorted(int(p) for p in positions)
    if len(set(added)) != len(added) or (added and (added[0] < 0 or added[-1] >= new)):
      raise ValueError(f"inserted positions must be distinct and in [0, {new}), got {list(positions)}")
    taken = set(added)
    return cls(old, new, tuple(p for p in range(new) if p not in taken))

  @staticmethod
  def concat(*remaps: Remap) -> Remap:
    """The remap of a concatenation of axes (e.g. [torso output, h])."""
    pos, off_new, off_old = [], 0, 0
    for r in remaps:
      pos += [off_new + p for p in r.pos]
      off_new, off_old = off_new + r.new, off_old + r.old
    return Remap(off_old, off_new, tuple(pos))

  @property
  def identity(self) -> bool:
    return self.old == self.new

  @property
  def added(self) -> tuple:
    """The new entries' positions."""
    taken = set(self.pos)
    return tuple(p for p in range(self.new) if p not in taken)


ObsRemap = Remap | Mapping[str, Remap]  # flat features, or {"robot", "objects"} of a dict obs


def embed(old, donor, remaps: Sequence[Remap], zero_axes: Sequence[int] = (), path: str = "array"):
  """The new array: `old` [*lead, *olds] placed by `remaps` into `donor` [*lead, *news].

  The remaps cover the trailing axes; leading axes (a pool's [P], an object axis [M], an env axis [N])
  must agree and are carried along. New entries are the donor's, except where they are new along one of
  `zero_axes` (indices into `remaps`): there they are 0. A Dense kernel [in, out] uses zero_axes=(0,):
  a new input is not read by anything old, a new output of an old input starts as the donor drew it.
  """
  old, donor = jnp.asarray(old), jnp.asarray(donor)
  k = len(remaps)
  lead = old.shape[: old.ndim - k] if old.ndim >= k else None
  want_old = None if lead is None else lead + tuple(r.old for r in remaps)
  want_new = None if lead is None else lead + tuple(r.new for r in remaps)
  if old.shape != want_old:
    raise ValueError(
      f"{path}: the old array has shape {old.shape}, expected {want_old} for sizes "
      f"{[r.old for r in remaps]} -> {[r.new for r in remaps]}"
    )
  if donor.shape != want_new:
    raise ValueError(f"{path}: the new array has shape {donor.shape}, the old {old.shape} maps to {want_new}")
  if all(r.identity for r in remaps):
    return old
  out = donor
  for ax in zero_axes:
    keep = np.zeros(remaps[ax].new, bool)
    keep[list(remaps[ax].pos)] = True
    shape = [1] * donor.ndim
    shape[len(lead) + ax] = remaps[ax].new
    out = jnp.where(keep.reshape(shape), out, jnp.zeros((), out.dtype))
  if old.size == 0:
    return out
  idx = np.ix_(*[np.asarray(r.pos, np.int32) for r in remaps])
  return out.at[(Ellipsis,) + idx].set(old.astype(out.dtype))


# --- layers -------------------------------------------------------------------------------------------
def dense(old, donor, in_remap: Remap, out_remap: Remap, path: str = "Dense"):
  """A flax Dense {"kernel" [in, out], "bias" [out]}: old weights kept; new inputs' rows 0; new outputs'
  columns the donor's on old inputs; new bias entries 0."""
  return {
    "kernel": embed(
      _at(old, "kernel", path), _at(donor, "kernel", path), (in_remap, out_remap), (0,), f"{path}/kernel"
    ),
    "bias": embed(
      _at(old, "bias", path), jnp.zeros_like(_at(donor, "bias", path)), (out_remap,), (), f"{path}/bias"
    ),
  }


_GATES = ("i", "f", "g", "o")


def lstm_cell(old, donor, in_remap: Remap, h_remap: Remap, path: str = "OptimizedLSTMCell"):
  """flax's (Optimized)LSTMCell: input kernels i{i,f,g,o} [in, H] (no bias), recurrent kernels
  h{i,f,g,o} [H, H] with biases [H]. `old` None: a new cell, the donor's. Otherwise new units' input
  columns (of both kernels) are the donor's; rows of new inputs and of new h are 0, so neither a new
  torso unit nor a new LSTM unit reaches an old gate; new biases 0."""
  if old is None:
    return donor
  out = {}
  for g in _GATES:
    p = f"{path}/i{g}"
    out[f"i{g}"] = {
      "kernel": embed(
        _at(_at(old, f"i{g}", path), "kernel", p),
        _at(_at(donor, f"i{g}", path), "kernel", p),
        (in_remap, h_remap),
        (0,),
        f"{p}/kernel",
      )
    }
    out[f"h{g}"] = dense(_at(old, f"h{g}", path), _at(donor, f"h{g}", path), h_remap, h_remap, f"{path}/h{g}")
  return out


def layer_remaps(old_hidden: Sequence[int], new_hidden: Sequence[int], path: str, what: str = "hidden"):
  """Remaps of the layers of an MLP, old widths -> new (widening only, same number of layers); the
  ValueError names the Dense layer (`path`/Dense_i) that cannot be reconciled."""
  old_hidden, new_hidden = tuple(old_hidden), tuple(new_hidden)
  for i in range(min(len(old_hidden), len(new_hidden)), max(len(old_hidden), len(new_hidden))):
    side = "old" if len(old_hidden) > len(new_hidden) else "new"
    raise ValueError(
      f"{path}/Dense_{i}/kernel: only the {side} network has this layer ({what} {old_hidden} -> "
      f"{new_hidden}); surgery cannot add or remove layers"
    )
  remaps = []
  for i, (a, b) in enumerate(zip(old_hidden, new_hidden)):
    try:
      remaps.append(Remap.widen(a, b))
    except ValueError as e:
      raise ValueError(
        f"{path}/Dense_{i}/kernel: layer {i} {e} ({what} {old_hidden} -> {new_hidden})"
      ) from None
  return remaps


def mlp(old, donor, in_remap: Remap, remaps: Sequence[Remap], path: str = "MLP"):
  """An `networks.MLP`: Dense_0..Dense_{n-1}, layer i's outputs remapped by remaps[i] (its inputs by the
  previous layer's, the first's by `in_remap`). -> (params, the last remap: the output's)."""
  out, x = {}, in_remap
  for i, r in enumerate(remaps):
    name = f"Dense_{i}"
    out[name] = dense(_at(old, name, path), _at(donor, name, path), x, r, f"{path}/{name}")
    x = r
  return out, x


def _width(tree, path, *keys):
  for k in keys:
    tree = _at(tree, k, path)
    path = f"{path}/{k}"
  return tree.shape[-1]


def object_encoder(old, donor, obs: Mapping[str, Remap], path: str = "ObjectEncoder_0"):
  """An `networks.ObjectEncoder`: robot MLP_0 (robot features -> E), per-object MLP_1 (concat([object
  features, robot embedding]) -> E -> E): the object features come FIRST in that concat. Embedding
  widths are read off the arrays (they may widen too). -> (params, output remap concat([robot, pooled]))."""
  if not isinstance(obs, Mapping) or set(obs) != {"robot", "objects"}:
    raise ValueError(
      f"{path}: an object encoder reads a dict observation; its remap must be "
      f"{{'robot', 'objects'}}, got {obs!r}"
    )
  e_robot = Remap.widen(
    _width(old, path, "MLP_0", "Dense_0", "kernel"), _width(donor, path, "MLP_0", "Dense_0", "kernel")
  )
  robot, e_robot = mlp(
    _at(old, "MLP_0", path), _at(donor, "MLP_0", path), obs["robot"], [e_robot], f"{path}/MLP_0"
  )
  per_old, per_new = _at(old, "MLP_1", path), _at(donor, "MLP_1", path)
  widths = [
    Remap.widen(_width(per_old, path, k, "kernel"), _width(per_new, path, k, "kernel"))
    for k in sorted(per_new, key=lambda k: int(k.split("_")[-1]))
  ]
  per_obj, e_obj = mlp(per_old, per_new, Remap.concat(obs["objects"], e_robot), widths, f"{path}/MLP_1")
  return {"MLP_0": robot, "MLP_1": per_obj}, Remap.concat(e_robot, e_obj)


# --- networks -----------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class NetChange:
  """What changes in one network: the observation's remap (a `Remap` of the flat features, or
  {"robot", "objects"} remaps of their last axis), the torso's hidden widths, the LSTM width (0: none)."""

  obs: Any
  old_hidden: tuple
  new_hidden: tuple
  old_lstm: int = 0
  new_lstm: int = 0

  def __post_init__(self):
    object.__setattr__(self, "old_hidden", tuple(int(h) for h in self.old_hidden))
    object.__setattr__(self, "new_hidden", tuple(int(h) for h in self.new_hidden))


def torso(old, donor, change: NetChange, path: str = "Torso_0"):
  """A `networks.Torso`: [ObjectEncoder_0,] MLP_0. -> (params, output remap)."""
  out = {}
  x = change.obs
  if "ObjectEncoder_0" in donor:
    out["ObjectEncoder_0"], x = object_encoder(
      _at(old, "ObjectEncoder_0", path), donor["ObjectEncoder_0"], change.obs, f"{path}/ObjectEncoder_0"
    )
  elif not isinstance(x, Remap):
    raise ValueError(f"{path}: a flat-observation torso needs a Remap of the features, got {x!r}")
  remaps = layer_remaps(change.old_hidden, change.new_hidden, f"{path}/MLP_0")
  out["MLP_0"], x = mlp(_at(old, "MLP_0", path), _at(donor, "MLP_0", path), x, remaps, f"{path}/MLP_0")
  return out, x


def core(old, donor, change: NetChange, path: str = "Core_0"):
  """A `networks.Core`: Torso_0[, OptimizedLSTMCell_0]. -> (params, remap of the features it passes
  on: the torso's output, then h with an LSTM)."""
  t, x = torso(_at(old, "Torso_0", path), _at(donor, "Torso_0", path), change, f"{path}/Torso_0")
  cell_path = f"{path}/OptimizedLSTMCell_0"
  if change.new_lstm < change.old_lstm:
    raise ValueError(
      f"{cell_path}: the LSTM {'is removed' if not change.new_lstm else 'narrowed'} "
      f"(lstm_size {change.old_lstm} -> {change.new_lstm}); surgery only adds units"
    )
  if not change.new_lstm:
    return {"Torso_0": t}, x
  h = Remap.widen(change.old_lstm, change.new_lstm) if change.old_lstm else Remap.fresh(change.new_lstm)
  cell = lstm_cell(
    _at(old, "OptimizedLSTMCell_0", path) if change.old_lstm else None,
    _at(donor, "OptimizedLSTMCell_0", path),
    x,
    h,
    cell_path,
  )
  return {"Torso_0": t, "OptimizedLSTMCell_0": cell}, Remap.concat(x, h)


def policy_net(old, donor, change: NetChange, path: str = "policy"):
  """A `networks.PolicyNet` or `ValueNet`'s variables {"params": {Core_0, MLP_0 (the one-layer head),
  [log_std]}}: the core by `change`, the head's inputs by the core's output remap, anything else (log_std)
  copied."""
  o, d = _at(old, "params", path), _at(donor, "params", path)
  path = f"{path}/params"
  c, x = core(_at(o, "Core_0", path), _at(d, "Core_0", path), change, f"{path}/Core_0")
  head = _at(_at(d, "MLP_0", path), "Dense_0", f"{path}/MLP_0")
  out = {
    "Core_0": c,
    "MLP_0": {
      "Dense_0": dense(
        _at(_at(o, "MLP_0", path), "Dense_0", f"{path}/MLP_0"),
        head,
        x,
        Remap.same(head["kernel"].shape[-1]),
        f"{path}/MLP_0/Dense_0",
      )
    },
  }
  for k in d:
    if k not in out:
      out[k] = _copy(_at(o, k, path), d[k], f"{path}/{k}")
  return {"params": out}


value_net = policy_net


def actor(old, donor, change: NetChange, path: str = "actor"):
  """`agents.her.ddpg.Actor`'s variables: one MLP_0 over the features, hidden layers then the action layer."""
  return _ddpg_mlp(old, donor, change, change.obs, path)


def critic(old, donor, change: NetChange, path: str = "critic"):
  """`agents.her.ddpg.Critic`'s variables: one MLP_0 over concat([features, action])."""
  first = _at(_at(_at(_at(donor, "params", path), "MLP_0", path), "Dense_0", path), "kernel", path)
  action = first.shape[0] - change.obs.new
  return _ddpg_mlp(old, donor, change, Remap.concat(change.obs, Remap.same(action)), path)


def _ddpg_mlp(old, donor, change, in_remap, path):
  o, d = _at(_at(old, "params", path), "MLP_0", path), _at(_at(donor, "params", path), "MLP_0", path)
  path = f"{path}/params/MLP_0"
  remaps = layer_remaps(change.old_hidden, change.new_hidden, path)
  out_layer = f"Dense_{len(change.new_hidden)}"
  remaps.append(Remap.same(_width(d, path, out_layer, "kernel")))
  params, _ = mlp(o, d, in_remap, remaps, path)
  return {"params": {"MLP_0": params}}


# --- normalisers and the observation ------------------------------------------------------------------
def obs_remaps(old_mean, new_mean, inserted=None, path: str = "obs_norm") -> ObsRemap:
  """The observation's remap(s) from the old and new normalisers' `mean` trees (features on the last
  axis: a flat array [O], or {"robot" [R], "objects" [M, F]}) and where the new features sit.

  inserted: positions in the NEW feature vector (what the network reads: `normalize.features` for PPO
  and self-play, concat([observation, goal]) for DDPG) of the features that were added; a sequence for flat
  features, {"robot": [...], "objects": [...]} for a dict (a key left out: nothing added there). None:
  nothing added (a size that grew is then a ValueError, since only the caller knows where the new
  features sit: `normalize.features` appends Bob's goal features to the objects, steps_left to the robot).
  """
  if isinstance(new_mean, Mapping):
    inserted = {} if inserted is None else inserted
    if not isinstance(inserted, Mapping) or set(inserted) - set(new_mean):
      raise ValueError(
        f"{path}: observation inserts must be a dict with keys among {sorted(new_mean)}, got {inserted!r}"
      )
    if not isinstance(old_mean, Mapping) or set(old_mean) != set(new_mean):
      raise ValueError(
        f"{path}: the observation's parts changed: "
        f"{sorted(old_mean) if isinstance(old_mean, Mapping) else 'flat'} -> {sorted(new_mean)}"
      )
    return {k: _obs_remap(old_mean[k], new_mean[k], inserted.get(k), f"{path}.mean[{k!r}]") for k in new_mean}
  if isinstance(inserted, Mapping):
    raise ValueError(
      f"{path}: the observation is a flat vector; give the inserted positions as a list, got {inserted!r}"
    )
  return _obs_remap(old_mean, new_mean, inserted, f"{path}.mean")


def _obs_remap(old, new, inserted, path):
  old_shape, new_shape = tuple(jnp.shape(old)), tuple(jnp.shape(new))
  if old_shape[:-1] != new_shape[:-1]:
    raise ValueError(
      f"{path}: the observation's shape changed {old_shape} -> {new_shape} on an axis other "
      f"than the features' (the last)"
    )
  o, n = old_shape[-1], new_shape[-1]
  inserted = list(inserted or ())
  if n < o:
    raise ValueError(f"{path}: the observation shrank from {o} to {n} features; surgery only adds inputs")
  if len(inserted) != n - o:
    raise ValueError(
      f"{path}: the observation grew from {o} to {n} features, but {len(inserted)} inserted "
      f"positions were given ({inserted}); say where the new features sit (obs_inserted)"
    )
  try:
    return Remap.insert(o, inserted)
  except ValueError as e:
    raise ValueError(f"{path}: {e}") from None


def _count(count):
  """The normaliser's sample count as float32 (brax keeps a UInt64 {hi, lo})."""
  if hasattr(count, "hi"):
    return jnp.asarray(count.hi, jnp.float32) * jnp.float32(2.0**32) + jnp.asarray(count.lo, jnp.float32)
  return jnp.asarray(count, jnp.float32)


def extend_normalizer(
  old: rs.RunningStatisticsState, new: rs.RunningStatisticsState, obs: ObsRemap, path: str = "obs_norm"
) -> rs.RunningStatisticsState:
  """Running statistics for the new observation: the old features' statistics kept, the new ones
  neutral (mean 0, std 1, summed_variance = count: as if every sample so far had had unit variance, so
  that Welford updates move them from there at the old count's pace). `new` (a fresh state) gives the
  shapes. Leaves may carry leading axes (a pool's [P], with count [P])."""
  count = _count(old.count)

  def one(r, o_mean, o_std, o_var, n_mean, p):
    c = jnp.broadcast_to(count.reshape(count.shape + (1,) * (n_mean.ndim - count.ndim)), n_mean.shape)
    return (
      embed(o_mean, jnp.zeros_like(n_mean), (r,), (), f"{path}.mean{p}"),
      embed(o_std, jnp.ones_like(n_mean), (r,), (), f"{path}.std{p}"),
      embed(o_var, c.astype(n_mean.dtype), (r,), (), f"{path}.summed_variance{p}"),
    )

  if isinstance(obs, Remap):
    mean, std, var = one(obs, old.mean, old.std, old.summed_variance, new.mean, "")
  else:
    parts = {
      k: one(obs[k], old.mean[k], old.std[k], old.summed_variance[k], new.mean[k], f"[{k!r}]") for k in obs
    }
    mean, std, var = ({k: v[i] for k, v in parts.items()} for i in range(3))
  _copy(old.count, new.count, f"{path}.count")
  return old.replace(mean=mean, std=std, summed_variance=var)


def lstm_state(old, new, h_remap: Remap, path: str = "core"):
  """An LSTM state (c, h) (or any tree of [..., H] leaves) with new units' entries 0: `new` gives the
  shapes; an added LSTM (old width 0) starts from zero."""
  return jax.tree.map(lambda o, n: embed(o, jnp.zeros_like(n), (h_remap,), (), path), old, new)


# --- whole train states -------------------------------------------------------------------------------
ARCH_FIELDS = ("hidden", "policy_hidden", "value_hidden", "lstm_size")
_FIXED_FIELDS = ("activation", "distribution")  # a change of these is not surgery


def changed_fields(old_cfg, new_cfg) -> list:
  """The architecture fields (ARCH_FIELDS) that differ between two agent configs (dicts or dataclasses)."""
  old_cfg, new_cfg = _agent(old_cfg), _agent(new_cfg)
  return [
    k
    for k in ARCH_FIELDS
    if _get(old_cfg, k) is not None and _tuple(_get(old_cfg, k)) != _tuple(_get(new_cfg, k))
  ]


def migrate(old_cfg, new_cfg, old_state, new_state, obs_inserted=None):
  """The new train state: `old_state`'s skill in `new_state`'s architecture.

  old_cfg, new_cfg: the agent configs the states were built with: resolved config dicts (the "agent"
    section, or the whole config holding one) or the config dataclasses. Read: hidden / policy_hidden /
    value_hidden, lstm_size (what changed), and activation / distribution (which must not change).
  old_state: the restored train state of the old run (agents.ppo.train, agents.her.ddpg or agents.selfplay.asp
    TrainState, a full one: `experiment.from_checkpoint` applied).
  new_state: a freshly initialised train state of the new config (`algo.init(key)`); it supplies the
    shapes, the new weights' random draws and the fresh optimiser/normaliser entries.
  obs_inserted: where observation features were added, as positions in the new feature vector (see
    `obs_remaps`): a list (flat features), {"robot": [...], "objects": [...]} (block-world dicts); for
    self-play either one such dict for both agents or {"alice": ..., "bob": ...}.

  What moves where:
    params (and DDPG's target params, the self-play pools' snapshots, slot by slot)  by the surgery
      above, new weights drawn from the new state's matching parameters (so a DDPG target's new
      weights equal its online net's);
    optimiser state  Adam's mu/nu by the same remaps with the fresh (zero) moments for new entries;
      step counts kept;
    normalisers  `extend_normalizer`;
    PPO's LSTM state `core`  new units 0;
    per-env episode state (env_state, PPO's ret_acc and core; DDPG's replay buffer on its own)  kept
      when its shapes are unchanged, else the new state's (the envs restart: the observation or
      num_envs changed; a buffer of old observations is dropped);
    everything else (keys, counters, return normaliser, pool scores)  copied; a shape change there is a
      ValueError.
  """
  old_a, new_a = _agent(old_cfg), _agent(new_cfg)
  for k in _FIXED_FIELDS:
    if _get(old_a, k) is not None and _get(old_a, k) != _get(new_a, k):
      raise ValueError(f"agent.{k} changed ({_get(old_a, k)!r} -> {_get(new_a, k)!r}); surgery keeps it")
  if type(old_state) is not type(new_state):
    raise ValueError(
      f"the old state is a {type(old_state).__module__}.{type(old_state).__name__}, the new a "
      f"{type(new_state).__module__}.{type(new_state).__name__}: not the same learner"
    )
  if hasattr(new_state, "agents"):
    return _migrate_selfplay(old_a, new_a, old_state, new_state, obs_inserted)
  if hasattr(new_state, "target"):
    return _migrate_ddpg(old_a, new_a, old_state, new_state, obs_inserted)
  if hasattr(new_state, "core"):
    return _migrate_ppo(old_a, new_a, old_state, new_state, obs_inserted)
  raise ValueError(f"migrate: unknown train state {type(new_state).__name__} (PPO, DDPG or self-play)")


def _migrate_ppo(old_a, new_a, old, new, obs_inserted):
  obs = obs_remaps(old.obs_norm.mean, new.obs_norm.mean, obs_inserted)
  lstm = (int(_get(old_a, "lstm_size", 0)), int(_get(new_a, "lstm_size", 0)))
  changes = {
    k: NetChange(obs, _hidden(old_a, f"{k}_hidden", "old"), _hidden(new_a, f"{k}_hidden", "new"), *lstm)
    for k in ("policy", "value")
  }
  nets = lambda o, d, p: {k: policy_net(_at(o, k, p), _at(d, k, p), changes[k], f"{p}/{k}") for k in changes}
  params = _checked(nets(old.params, new.params, "params"), new.params, "params")
  episode = _matches(old.env_state, new.env_state)
  if episode:
    h = Remap.widen(*lstm) if lstm[0] else Remap.fresh(lstm[1])
    core = _checked(lstm_state(old.core, new.core, h), new.core, "core")
  obs_norm = extend_normalizer(old.obs_norm, new.obs_norm, obs)
  # PPO's staleness ring (agent.staleness > 0) restarts from the migrated policy: the new architecture
  # has no older versions, and fresh draws there would act randomly for k steps.
  behaviour = (
    None
    if new.behaviour is None
    else jax.tree.map(
      lambda x, like: jnp.broadcast_to(x, like.shape).astype(like.dtype),
      {"params": params, "obs_norm": obs_norm},
      new.behaviour,
    )
  )
  return new.replace(
    params=params,
    opt_state=_opt_state(old.opt_state, new.opt_state, nets, new.params, "opt_state"),
    obs_norm=obs_norm,
    behaviour=behaviour,
    ret_norm=_copy(old.ret_norm, new.ret_norm, "ret_norm"),
    ret_acc=_copy(old.ret_acc, new.ret_acc, "ret_acc") if episode else new.ret_acc,
    core=core if episode else new.core,
    env_state=old.env_state if episode else new.env_state,
    key=_copy(old.key, new.key, "key"),
    updates=_copy(old.updates, new.updates, "updates"),
  )


def _migrate_ddpg(old_a, new_a, old, new, obs_inserted):
  obs = obs_remaps(old.obs_norm.mean, new.obs_norm.mean, obs_inserted)
  change = NetChange(obs, _hidden(old_a, "hidden", "old"), _hidden(new_a, "hidden", "new"))
  fns = {"actor": actor, "critic": critic}
  nets = lambda o, d, p: {k: fns[k](_at(o, k, p), _at(d, k, p), change, f"{p}/{k}") for k in fns}
  one = lambda k: lambda o, d, p: fns[k](o, d, change, p)
  opt = {
    k: _opt_state(
      _at(old.opt_state, k, "opt_state"),
      _at(new.opt_state, k, "opt_state"),
      one(k),
      new.params[k],
      f"opt_state/{k}",
    )
    for k in fns
  }
  buffer = old.buffer if old.buffer is not None and _matches(old.buffer, new.buffer) else new.buffer
  episode = _matches(old.env_state, new.env_state)
  return new.replace(
    params=_checked(nets(old.params, new.params, "params"), new.params, "params"),
    target=_checked(nets(old.target, new.target, "target"), new.target, "target"),
    opt_state=opt,
    obs_norm=extend_normalizer(old.obs_norm, new.obs_norm, obs),
    buffer=buffer,
    env_state=old.env_state if episode else new.env_state,
    key=_copy(old.key, new.key, "key"),
    updates=_copy(old.updates, new.updates, "updates"),
  )


def _migrate_selfplay(old_a, new_a, old, new, obs_inserted):
  agents, pools = {}, {}
  for a in new.agents:
    ins = (
      obs_inserted.get(a)
      if isinstance(obs_inserted, Mapping) and set(obs_inserted) & set(new.agents)
      else obs_inserted
    )
    o, n = _at(old.agents, a, "agents"), new.agents[a]
    obs = obs_remaps(o.obs_norm.mean, n.obs_norm.mean, ins, f"agents/{a}/obs_norm")
    change = NetChange(
      obs,
      _hidden(old_a, "hidden", "old"),
      _hidden(new_a, "hidden", "new"),
      int(_get(old_a, "lstm_size", 0)),
      int(_get(new_a, "lstm_size", 0)),
    )
    nets = lambda o_, d_, p, change=change: {
      k: policy_net(_at(o_, k, p), _at(d_, k, p), change, f"{p}/{k}") for k in ("policy", "value")
    }
    p = f"agents/{a}"
    agents[a] = n.replace(
      params=_checked(nets(o.params, n.params, f"{p}/params"), n.params, f"{p}/params"),
      opt_state=_opt_state(o.opt_state, n.opt_state, nets, n.params, f"{p}/opt_state"),
      obs_norm=extend_normalizer(o.obs_norm, n.obs_norm, obs, f"{p}/obs_norm"),
    )
    po, pn = _at(old.pool, a, "pool"), new.pool[a]
    p = f"pool/{a}/snapshots"
    so, sn = po.snapshots, pn.snapshots
    # One surgery per slot: vmap over the pool's leading axis; each slot's new weights are the fresh
    # pool's (copies of the fresh agent's), so they are random, not zero.
    pol = jax.vmap(lambda o_, d_: policy_net(o_, d_, change, f"{p}/policy"))(
      _at(so, "policy", p), _at(sn, "policy", p)
    )
    pools[a] = pn.replace(
      snapshots={
        **{k: _copy(so[k], sn[k], f"{p}/{k}") for k in sn if k not in ("policy", "obs_norm")},
        "policy": _checked(pol, sn["policy"], f"{p}/policy"),
        "obs_norm": extend_normalizer(_at(so, "obs_norm", p), sn["obs_norm"], obs, f"{p}/obs_norm"),
      },
      quality=_copy(po.quality, pn.quality, f"pool/{a}/quality"),
      added_at=_copy(po.added_at, pn.added_at, f"pool/{a}/added_at"),
      count=_copy(po.count, pn.count, f"pool/{a}/count"),
    )
  return new.replace(
    agents=agents,
    pool=pools,
    key=_copy(old.key, new.key, "key"),
    updates=_copy(old.updates, new.updates, "updates"),
  )


def _opt_state(old, new, nets, new_params, path):
  """An optax state rebuilt: every subtree shaped like the params (Adam's mu, nu) by `nets` with the
  fresh state's subtree (zeros) as donor; other leaves (step counts) copied."""
  params_def = jax.tree.structure(new_params)

  def walk(o, n, p):
    if jax.tree.structure(n) == params_def:
      return _checked(nets(o, n, p), n, p)
    if isinstance(n, tuple) and hasattr(n, "_fields"):  # optax states are NamedTuples
      if type(o) is not type(n):
        raise ValueError(f"{p}: the optimiser changed ({type(o).__name__} -> {type(n).__name__})")
      return type(n)(*[walk(getattr(o, f), getattr(n, f), f"{p}/{f}") for f in n._fields])
    if isinstance(n, (tuple, list)):
      if not isinstance(o, (tuple, list)) or len(o) != len(n):
        raise ValueError(f"{p}: the optimiser changed (its state's structure differs)")
      return type(n)(walk(a, b, f"{p}/{i}") for i, (a, b) in enumerate(zip(o, n)))
    if isinstance(n, Mapping):
      return {k: walk(_at(o, k, p), n[k], f"{p}/{k}") for k in n}
    return _copy(o, n, p)

  return walk(old, new, path)


# --- warm start across tasks ---------------------------------------------------------------------------
def transplant(fresh, donor, path: str = "params", keep_fresh=()):
  """A new run's initial parameters warm-started from another run's: every leaf of `fresh` (the new
  network's initialised pytree) that `donor` (the trained one) holds at the same path with the same
  shape and dtype is taken from the donor; the others keep their fresh draws. `keep_fresh`: patterns
  (fnmatch, on the leaf's path with '/' between keys, e.g. "policy/params/Dense_*") of leaves that keep
  their fresh draws even where the donor has them (the hide-and-seek paper re-initialises the final
  dense layer and layer norm before fine-tuning). -> (tree, {"carried": [leaf paths], "fresh": [leaf
  paths], "reinitialised": [the fresh ones that `keep_fresh` chose]}).

  Not function-preserving like the surgery above: it is fine-tuning on another task, where the layers
  whose shapes follow the new task's observation or action (an input layer, a head) start fresh and the
  rest (the hide-and-seek transfer suite: the entity embeddings, the attention and the LSTM) carry over.
  Raises ValueError naming the path if the two share no leaf (the donor is another kind of network), or
  naming a `keep_fresh` pattern that matches no leaf of `fresh` (a typo would otherwise carry everything)."""
  donor_leaves = dict(_leaves(donor, path))
  patterns = [keep_fresh] if isinstance(keep_fresh, str) else list(keep_fresh)
  check_patterns(fresh, patterns, f"{path}: keep_fresh")
  carried, kept, reinit = [], [], []

  def pick(p, x):
    name = path + jax.tree_util.keystr(p)
    d = donor_leaves.get(name)
    if any(fnmatch.fnmatchcase(_slashed(p), q) for q in patterns):
      reinit.append(name)
    elif d is not None and jnp.shape(d) == jnp.shape(x) and jnp.result_type(d) == jnp.result_type(x):
      carried.append(name)
      return jnp.asarray(d)
    kept.append(name)
    return x

  out = jax.tree_util.tree_map_with_path(pick, fresh)
  if not carried:
    raise ValueError(f"{path}: the donor shares no leaf (same path, shape and dtype) with the new network")
  return out, {"carried": carried, "fresh": kept, "reinitialised": reinit}


def check_patterns(tree, patterns, what: str) -> None:
  """ValueError naming `what` and every pattern of `patterns` (fnmatch on "policy/params/Dense_0/kernel"
  paths) that matches no leaf of `tree`: a typo in `keep_fresh` would otherwise carry everything."""
  paths = [_slashed(p) for p, _ in jax.tree_util.tree_flatten_with_path(tree)[0]]
  unused = [q for q in patterns if not any(fnmatch.fnmatchcase(p, q) for p in paths)]
  if unused:
    raise ValueError(f"{what} pattern(s) {unused} match no leaf (paths look like {paths[0]})")


def _slashed(key_path) -> str:
  """A pytree key path as "policy/params/Dense_0/kernel" (what `keep_fresh` patterns match)."""
  return "/".join(str(getattr(k, "key", getattr(k, "name", getattr(k, "idx", k)))) for k in key_path)


# --- helpers ------------------------------------------------------------------------------------------
def _at(tree, key, path):
  try:
    return tree[key]
  except (KeyError, TypeError, IndexError):
    raise ValueError(
      f"{path}/{key}: missing from the old parameters (their structure does not match the old config)"
    ) from None


def _leaves(tree, path):
  return [(path + jax.tree_util.keystr(k), v) for k, v in jax.tree_util.tree_flatten_with_path(tree)[0]]


def _checked(tree, like, path):
  """`tree` after checking it has `like`'s structure, shapes and dtypes (else a ValueError naming the
  first leaf that differs)."""
  if jax.tree.structure(tree) != jax.tree.structure(like):
    a = {p for p, _ in _leaves(tree, path)}
    b = {p for p, _ in _leaves(like, path)}
    diff = sorted(a ^ b)
    raise ValueError(
      f"{diff[0] if diff else path}: the structure differs between the old state and the new "
      f"({'only in the old' if diff and diff[0] in a else 'only in the new'})"
    )
  for (p, x), (_, y) in zip(_leaves(tree, path), _leaves(like, path)):
    if jnp.shape(x) != jnp.shape(y) or jnp.result_type(x) != jnp.result_type(y):
      raise ValueError(
        f"{p}: shape {jnp.shape(x)} {jnp.result_type(x)} in the old state, "
        f"{jnp.shape(y)} {jnp.result_type(y)} in the new; surgery does not change this part"
      )
  return tree


def _copy(old, new, path):
  """`old`, checked against the fresh `new` (structure, shapes, dtypes)."""
  return _checked(old, new, path)


def _matches(old, new) -> bool:
  try:
    _checked(old, new, "")
  except ValueError:
    return False
  return True


def _agent(cfg):
  if isinstance(cfg, Mapping) and isinstance(cfg.get("agent"), Mapping):
    return cfg["agent"]
  return cfg


def _get(cfg, key, default=None):
  if isinstance(cfg, Mapping):
    return cfg.get(key, default)
  return getattr(cfg, key, default)


def _hidden(cfg, key, which):
  v = _get(cfg, key)
  if v is None:
    raise ValueError(
      f"the {which} agent config has no {key!r}; pass the resolved agent section (or its config dataclass)"
    )
  return tuple(v)


def _tuple(v):
  return tuple(v) if isinstance(v, (list, tuple)) else v
