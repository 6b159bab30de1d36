"""Surgery keeps what a trained network computes: widening hidden layers, inserting observation features
(with their normaliser statistics), adding or widening an LSTM, on PPO, DDPG and self-play networks
and whole train states; the new weights are random where they may be and train."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from brax.training.acme import running_statistics as rs

from agents.common import normalize as N
from agents.common import replay
from agents.common.networks import PolicyNet, ValueNet, zero_carry
from agents.her import ddpg
from agents.league import opponent_pool
from agents.league import surgery as S
from agents.ppo import train as ppo
from agents.selfplay import asp as selfplay

ATOL = 1e-5
B = 16  # batch of random inputs


def _keys(seed, n):
  return list(jax.random.split(jax.random.PRNGKey(seed), n))


def _grow(x, remap, key):
  """x [..., old] -> [..., new]: the old features at remap.pos, random values in the new slots."""
  new = jax.random.normal(key, x.shape[:-1] + (remap.new,)) * 3.0
  return new.at[..., np.asarray(remap.pos, np.int32)].set(x)


def _grow_obs(obs, remaps, key):
  if isinstance(remaps, S.Remap):
    return _grow(obs, remaps, key)
  k1, k2 = jax.random.split(key)
  return {
    **obs,
    "robot": _grow(obs["robot"], remaps["robot"], k1),
    "objects": _grow(obs["objects"], remaps["objects"], k2),
  }


def _dict_obs(key, batch, robot, objects, feats):
  k1, k2, k3 = jax.random.split(key, 3)
  mask = (jax.random.uniform(k3, batch + (objects,)) < 0.7).astype(jnp.float32).at[..., 0].set(1.0)
  return {
    "robot": jax.random.normal(k1, batch + (robot,)),
    "objects": jax.random.normal(k2, batch + (objects, feats)),
    "object_mask": mask,
  }


@jax.jit
def _perturb(tree, key, scale=0.1):
  """A 'trained' tree: every leaf moved off its initial values (zero biases included)."""
  leaves, treedef = jax.tree.flatten(tree)
  ks = jax.random.split(key, len(leaves))
  return jax.tree.unflatten(treedef, [x + scale * jax.random.normal(k, x.shape) for x, k in zip(leaves, ks)])


def _close(a, b):
  jax.tree.map(lambda x, y: np.testing.assert_allclose(np.asarray(x), np.asarray(y), atol=ATOL, rtol=0), a, b)


def _run(net, params, xs, carry):
  """Outputs of `net` over a sequence of inputs, threading the carry."""
  outs = []
  for x in xs:
    out, carry = net.apply(params, x, carry)
    outs.append(out)
  return outs, carry


# --- Remap ------------------------------------------------------------------------------------------------
def test_remap():
  r = S.Remap.insert(4, [0, 5])
  assert r.new == 6 and r.pos == (1, 2, 3, 4) and r.added == (0, 5)
  assert S.Remap.concat(S.Remap.widen(2, 3), S.Remap.fresh(2)) == S.Remap(2, 5, (0, 1))
  with pytest.raises(ValueError, match="narrowed"):
    S.Remap.widen(4, 3)
  with pytest.raises(ValueError):
    S.Remap.insert(3, [1, 1])
  x = jnp.arange(6.0).reshape(2, 3)  # a leading axis is carried along
  out = S.embed(x, jnp.full((2, 5), 9.0), (S.Remap.insert(3, [0, 4]),))
  np.testing.assert_array_equal(out, [[9, 0, 1, 2, 9], [9, 3, 4, 5, 9]])
  k = S.embed(jnp.ones((2, 2)), jnp.full((3, 3), 7.0), (S.Remap.widen(2, 3), S.Remap.widen(2, 3)), (0,))
  np.testing.assert_array_equal(k, [[1, 1, 7], [1, 1, 7], [0, 0, 0]])  # new input rows 0, new columns drawn


# --- networks ---------------------------------------------------------------------------------------------
def test_widen_hidden_and_insert_obs_flat():
  """PPO-style flat observation: both hidden layers widened and two features inserted (one before all
  the old ones); policy (Gaussian) and value outputs unchanged."""
  k = _keys(0, 6)
  obs_r = S.Remap.insert(7, [0, 5])
  change = S.NetChange(obs_r, (16, 16), (24, 20))
  for old_net, new_net in (
    (PolicyNet(3, (16, 16)), PolicyNet(3, (24, 20))),
    (ValueNet((16, 16)), ValueNet((24, 20))),
  ):
    old = _perturb(old_net.init(k[0], jnp.zeros(7)), k[1])
    donor = new_net.init(k[2], jnp.zeros(9))
    new = S.policy_net(old, donor, change)
    x = jax.random.normal(k[3], (B, 7))
    _close(old_net.apply(old, x)[0], new_net.apply(new, _grow(x, obs_r, k[4]))[0])
    mlp = new["params"]["Core_0"]["Torso_0"]["MLP_0"]
    # New units: random input-side columns on the old inputs, zero output-side rows, zero bias.
    assert np.all(np.abs(np.asarray(mlp["Dense_0"]["kernel"][np.asarray(obs_r.pos), 16:])) > 0)
    assert not np.any(mlp["Dense_0"]["kernel"][np.asarray(obs_r.added)])
    assert not np.any(mlp["Dense_0"]["bias"][16:])
    assert not np.any(mlp["Dense_1"]["kernel"][16:])
    assert np.all(np.abs(np.asarray(mlp["Dense_1"]["kernel"][:16, 16:])) > 0)
    assert not np.any(new["params"]["MLP_0"]["Dense_0"]["kernel"][16:])


def test_add_lstm():
  """No LSTM -> an LSTM of 8: outputs unchanged over several steps as the new carry evolves."""
  k = _keys(1, 6)
  change = S.NetChange(S.Remap.same(5), (16,), (16,), 0, 8)
  pairs = ((PolicyNet(3, (16,)), PolicyNet(3, (16,), lstm=8)), (ValueNet((16,)), ValueNet((16,), lstm=8)))
  for old_net, new_net in pairs:
    old = _perturb(old_net.init(k[0], jnp.zeros(5)), k[1])
    donor = new_net.init(k[2], jnp.zeros(5), zero_carry((), 8))
    new = S.policy_net(old, donor, change)
    xs = list(jax.random.normal(k[3], (6, B, 5)))
    outs_old, _ = _run(old_net, old, xs, None)
    outs_new, carry = _run(new_net, new, xs, zero_carry((B,), 8))
    _close(outs_old, outs_new)
    assert np.all(np.abs(np.asarray(carry[1])) > 0)  # the new cell runs; the head just does not read it yet
    assert not np.any(new["params"]["MLP_0"]["Dense_0"]["kernel"][16:])
    _close(new["params"]["Core_0"]["OptimizedLSTMCell_0"], donor["params"]["Core_0"]["OptimizedLSTMCell_0"])


def test_widen_lstm_and_hidden_mid_episode():
  """LSTM 8 -> 12 with the torso widened 16 -> 20: outputs unchanged, also when the surgery happens
  mid-episode (the carry is migrated with new entries 0)."""
  k = _keys(2, 6)
  change = S.NetChange(S.Remap.same(5), (16,), (20,), 8, 12)
  old_net, new_net = PolicyNet(3, (16,), lstm=8), PolicyNet(3, (20,), lstm=12)
  old = _perturb(old_net.init(k[0], jnp.zeros(5), zero_carry((), 8)), k[1])
  donor = new_net.init(k[2], jnp.zeros(5), zero_carry((), 12))
  new = S.policy_net(old, donor, change)
  xs = list(jax.random.normal(k[3], (8, B, 5)))
  outs_old, c_old = _run(old_net, old, xs, zero_carry((B,), 8))
  outs_new, _ = _run(new_net, new, xs, zero_carry((B,), 12))
  _close(outs_old, outs_new)
  # Mid-episode: 4 old steps, then the state's surgery, then 4 steps of each.
  _, c_mid = _run(old_net, old, xs[:4], zero_carry((B,), 8))
  c_new = S.lstm_state(c_mid, zero_carry((B,), 12), S.Remap.widen(8, 12))
  _close(_run(old_net, old, xs[4:], c_mid)[0], _run(new_net, new, xs[4:], c_new)[0])
  cell = new["params"]["Core_0"]["OptimizedLSTMCell_0"]
  for g in "ifgo":  # new units: input-side columns drawn, recurrent rows for new h 0, biases 0
    assert np.all(np.abs(np.asarray(cell[f"i{g}"]["kernel"][:16, 8:])) > 0)
    assert not np.any(cell[f"i{g}"]["kernel"][16:])
    assert not np.any(cell[f"h{g}"]["kernel"][8:])
    assert np.all(np.abs(np.asarray(cell[f"h{g}"]["kernel"][:8, 8:])) > 0)
    assert not np.any(cell[f"h{g}"]["bias"][8:])
  head = new["params"]["MLP_0"]["Dense_0"]["kernel"]  # rows: torso 20 (4 new), then h 12 (4 new)
  assert not np.any(head[16:20]) and not np.any(head[28:])
  np.testing.assert_array_equal(head[20:28], old["params"]["MLP_0"]["Dense_0"]["kernel"][16:])


def test_ddpg_actor_and_critic():
  k = _keys(3, 8)
  obs_r = S.Remap.insert(6, [3])
  change = S.NetChange(obs_r, (16, 16), (16, 24))
  actor_o, actor_n = ddpg.Actor(4, (16, 16)), ddpg.Actor(4, (16, 24))
  critic_o, critic_n = ddpg.Critic((16, 16)), ddpg.Critic((16, 24))
  a_old = _perturb(actor_o.init(k[0], jnp.zeros(6)), k[1])
  c_old = _perturb(critic_o.init(k[2], jnp.zeros(6), jnp.zeros(4)), k[3])
  a_new = S.actor(a_old, actor_n.init(k[4], jnp.zeros(7)), change)
  c_new = S.critic(c_old, critic_n.init(k[5], jnp.zeros(7), jnp.zeros(4)), change)
  x, act = jax.random.normal(k[6], (B, 6)), jax.random.uniform(k[7], (B, 4), minval=-1, maxval=1)
  xn = _grow(x, obs_r, k[6])
  _close(actor_o.apply(a_old, x), actor_n.apply(a_new, xn))
  _close(critic_o.apply(c_old, x, act), critic_n.apply(c_new, xn, act))
  first = c_new["params"]["MLP_0"]["Dense_0"]["kernel"]  # rows: obs 7 (row 3 new), then the action 4
  assert not np.any(first[3]) and np.all(
    np.asarray(first[7:]) == c_old["params"]["MLP_0"]["Dense_0"]["kernel"][6:]
  )


def test_object_encoder_binned_policy():
  """Self-play's net: object encoder on a dict obs, binned logits, LSTM widened; a robot feature appended
  and two per-object features inserted (object features sit before the robot embedding in the encoder's
  per-object input)."""
  k = _keys(4, 8)
  obs = {"robot": S.Remap.insert(5, [5]), "objects": S.Remap.insert(7, [2, 8])}
  change = S.NetChange(obs, (16,), (24,), 4, 6)
  old_net, new_net = PolicyNet(6, (16,), bins=5, lstm=4), PolicyNet(6, (24,), bins=5, lstm=6)
  one_old, one_new = _dict_obs(k[0], (), 5, 4, 7), _dict_obs(k[0], (), 6, 4, 9)
  old = _perturb(old_net.init(k[1], one_old, zero_carry((), 4)), k[2])
  new = S.policy_net(old, new_net.init(k[3], one_new, zero_carry((), 6)), change)
  xs = [_dict_obs(kk, (B,), 5, 4, 7) for kk in jax.random.split(k[4], 5)]
  xs_new = [_grow_obs(x, obs, kk) for x, kk in zip(xs, jax.random.split(k[5], 5))]
  _close(_run(old_net, old, xs, zero_carry((B,), 4))[0], _run(new_net, new, xs_new, zero_carry((B,), 6))[0])
  per_obj = new["params"]["Core_0"]["Torso_0"]["ObjectEncoder_0"]["MLP_1"]["Dense_0"]["kernel"]
  assert not np.any(per_obj[2]) and not np.any(per_obj[8]) and np.any(per_obj[9:])  # [objects 9, robot emb]


def test_errors_name_the_leaf():
  k = _keys(5, 2)
  old = PolicyNet(3, (16, 16)).init(k[0], jnp.zeros(5))
  same = S.Remap.same(5)
  with pytest.raises(ValueError, match=r"Torso_0/MLP_0/Dense_1/kernel.*narrowed"):
    S.policy_net(old, PolicyNet(3, (16, 8)).init(k[1], jnp.zeros(5)), S.NetChange(same, (16, 16), (16, 8)))
  with pytest.raises(ValueError, match=r"Torso_0/MLP_0/Dense_1/kernel.*only the old"):
    S.policy_net(old, PolicyNet(3, (16,)).init(k[1], jnp.zeros(5)), S.NetChange(same, (16, 16), (16,)))
  rec = PolicyNet(3, (16, 16), lstm=4).init(k[0], jnp.zeros(5), zero_carry((), 4))
  with pytest.raises(ValueError, match=r"Core_0/OptimizedLSTMCell_0.*removed"):
    S.policy_net(rec, old, S.NetChange(same, (16, 16), (16, 16), 4, 0))
  with pytest.raises(ValueError, match=r"obs_norm.mean.*grew from 5 to 6"):
    S.obs_remaps(jnp.zeros(5), jnp.zeros(6))
  with pytest.raises(ValueError, match=r"\['robot'\].*shrank"):
    S.obs_remaps(
      {"robot": jnp.zeros(5), "objects": jnp.zeros((3, 4))},
      {"robot": jnp.zeros(4), "objects": jnp.zeros((3, 4))},
    )


def test_normalizer_extension():
  """Old features keep their statistics (a later update treats them exactly as before); new ones start
  neutral and are updated as if the past had unit variance."""
  k = _keys(6, 3)
  old = N.update(N.init(jnp.zeros(4)), 2.0 + 3.0 * jax.random.normal(k[0], (50, 4)))
  r = S.Remap.insert(4, [1])
  new = S.extend_normalizer(old, N.init(jnp.zeros(5)), r)
  np.testing.assert_allclose(new.mean[np.asarray(r.pos)], old.mean)
  np.testing.assert_allclose(new.std[np.asarray(r.pos)], old.std)
  assert new.mean[1] == 0.0 and new.std[1] == 1.0 and new.summed_variance[1] == 50.0
  batch = jax.random.normal(k[1], (30, 5)) + 1.0
  a, b = N.update(old, batch[:, np.asarray(r.pos)]), N.update(new, batch)
  np.testing.assert_allclose(b.std[np.asarray(r.pos)], a.std, rtol=1e-5)
  x = np.asarray(batch[:, 1])
  mean = x.sum() / 80.0
  np.testing.assert_allclose(b.mean[1], mean, rtol=1e-5)
  np.testing.assert_allclose(b.std[1], np.sqrt((50.0 + (x * (x - mean)).sum()) / 80.0), rtol=1e-4)


# --- whole train states -----------------------------------------------------------------------------------
@functools.partial(jax.jit, static_argnums=0)
def _adam_steps(opt, params, key):
  """Two optimiser steps on random gradients: params and an optimiser state with a history."""
  state = opt.init(params)
  for kk in jax.random.split(key, 2):
    grads = _perturb(jax.tree.map(jnp.zeros_like, params), kk, 1.0)
    updates, state = opt.update(grads, state, params)
    params = optax.apply_updates(params, updates)
  return params, state


PPO_OPT = optax.chain(optax.clip_by_global_norm(0.5), optax.adam(1e-3, eps=1e-5))  # the learners' optimisers
ADAM = optax.adam(1e-3)


def _ppo_state(key, cfg, obs_dim, n_envs=4, trained=True, env_dim=3):
  k = jax.random.split(key, 6)
  lstm = cfg["lstm_size"]
  pol, val = PolicyNet(3, cfg["policy_hidden"], lstm=lstm), ValueNet(cfg["value_hidden"], lstm=lstm)
  one, c = jnp.zeros(obs_dim), (zero_carry((), lstm) if lstm else None)
  params = {"policy": pol.init(k[0], one, c), "value": val.init(k[1], one, c)}
  opt_state, obs_norm, core = (
    PPO_OPT.init(params),
    N.init(one),
    {"policy": zero_carry((n_envs,), lstm), "value": zero_carry((n_envs,), lstm)},
  )
  if trained:
    params, opt_state = _adam_steps(PPO_OPT, _perturb(params, k[2]), k[3])
    obs_norm = N.update(obs_norm, 1.0 + 2.0 * jax.random.normal(k[4], (40, obs_dim)))
    core = _perturb(core, k[5])
  return ppo.TrainState(
    params=params,
    opt_state=opt_state,
    obs_norm=obs_norm,
    ret_norm=rs.init_state(jax.ShapeDtypeStruct((), jnp.float32)),
    ret_acc=jnp.arange(n_envs) * 1.0,
    core=core,
    env_state={"qpos": jnp.full((n_envs, env_dim), 1.0 if trained else 0.0)},
    key=k[5],
    updates=jnp.asarray(7 if trained else 0, jnp.int32),
  ), (pol, val)


def _ppo_out(nets, ts, obs, carry=None):
  x = N.normalize(ts.obs_norm, obs)
  pol, val = nets
  cp, cv = carry if carry is not None else (None, None)
  (mean, _), cp = pol.apply(ts.params["policy"], x, cp)
  v, cv = val.apply(ts.params["value"], x, cv)
  return (mean, v), (cp, cv)


PPO_OLD = {
  "algo": "ppo",
  "policy_hidden": (16, 16),
  "value_hidden": (16,),
  "lstm_size": 0,
  "activation": "tanh",
  "distribution": "normal",
}


@pytest.mark.parametrize("old_lstm,new_lstm", [(0, 8), (4, 6)])
def test_migrate_ppo(old_lstm, new_lstm):
  """Whole PPO state: policy widened, value deepened-not (same depth) widened, an observation feature
  inserted, an LSTM added or widened; outputs over several recurrent steps unchanged from the migrated
  core state; optimiser moments kept / zero; counts, key, counters copied."""
  old_cfg = {**PPO_OLD, "lstm_size": old_lstm}
  new_cfg = {**PPO_OLD, "policy_hidden": [24, 16], "value_hidden": [20], "lstm_size": new_lstm}
  old, old_nets = _ppo_state(jax.random.PRNGKey(0), old_cfg, 6)
  fresh, new_nets = _ppo_state(jax.random.PRNGKey(1), new_cfg, 7, trained=False)
  assert S.changed_fields(old_cfg, {"agent": new_cfg}) == ["policy_hidden", "value_hidden", "lstm_size"]
  ts = S.migrate({"agent": old_cfg}, new_cfg, old, fresh, obs_inserted=[2])
  obs_r = S.Remap.insert(6, [2])

  xs = list(jax.random.normal(jax.random.PRNGKey(2), (5, 4, 6)) * 2.0)
  c_old = (old.core["policy"], old.core["value"]) if old_lstm else None
  c_new = (ts.core["policy"], ts.core["value"])
  for i, x in enumerate(xs):
    out_old, c_old = _ppo_out(old_nets, old, x, c_old)
    out_new, c_new = _ppo_out(new_nets, ts, _grow(x, obs_r, jax.random.PRNGKey(10 + i)), c_new)
    _close(out_old, out_new)

  adam = ts.opt_state[1][0]
  assert adam.count == old.opt_state[1][0].count == 2 and ts.updates == 7
  first = lambda mu: mu["policy"]["params"]["Core_0"]["Torso_0"]["MLP_0"]["Dense_0"]["kernel"]
  mu = first(adam.mu)
  np.testing.assert_array_equal(mu[np.asarray(obs_r.pos), :16], first(old.opt_state[1][0].mu))
  assert (
    not np.any(mu[2]) and not np.any(mu[:, 16:]) and np.all(np.asarray(mu[np.asarray(obs_r.pos), :16]) != 0)
  )
  assert np.array_equal(ts.key, old.key) and np.array_equal(ts.ret_acc, old.ret_acc)
  assert ts.env_state is old.env_state  # same env shapes: the envs go on, with their LSTM states
  np.testing.assert_array_equal(ts.core["policy"][0][:, :old_lstm], old.core["policy"][0])
  assert not np.any(ts.core["policy"][0][:, old_lstm:])
  assert jax.tree.map(jnp.shape, ts) == jax.tree.map(jnp.shape, fresh)
  # An env whose state changed shape (e.g. its observation): the per-env episode state restarts.
  fresh2, _ = _ppo_state(jax.random.PRNGKey(1), new_cfg, 7, trained=False, env_dim=5)
  ts2 = S.migrate(old_cfg, new_cfg, old, fresh2, obs_inserted=[2])
  assert ts2.env_state is fresh2.env_state and ts2.core is fresh2.core and ts2.ret_acc is fresh2.ret_acc


def test_migrate_is_identity_without_changes():
  old, _ = _ppo_state(jax.random.PRNGKey(0), PPO_OLD, 6)
  fresh, _ = _ppo_state(jax.random.PRNGKey(1), PPO_OLD, 6, trained=False)
  ts = S.migrate(PPO_OLD, PPO_OLD, old, fresh)
  jax.tree.map(lambda a, b: np.testing.assert_array_equal(a, b), ts, old)


def test_migrate_trains_new_weights():
  """After surgery a gradient step moves the zero rows (new obs inputs, output side of new units, the
  head's h rows) at once, and the new units' drawn columns from the second step on."""
  new_cfg = {**PPO_OLD, "policy_hidden": (24, 16), "lstm_size": 4}
  old, _ = _ppo_state(jax.random.PRNGKey(0), PPO_OLD, 6)
  fresh, (pol, _) = _ppo_state(jax.random.PRNGKey(1), new_cfg, 7, trained=False)
  ts = S.migrate(PPO_OLD, new_cfg, old, fresh, obs_inserted=[6])
  x = N.normalize(ts.obs_norm, jax.random.normal(jax.random.PRNGKey(3), (B, 7)))
  target = jax.random.normal(jax.random.PRNGKey(4), (B, 3))

  def loss(p):
    carry = zero_carry((B,), 4)
    (m1, _), carry = pol.apply(p, x, carry)
    (m2, _), _ = pol.apply(p, x, carry)
    return jnp.mean((m1 - target) ** 2) + jnp.mean((m2 - target) ** 2)

  opt = optax.adam(1e-2)
  p0 = ts.params["policy"]
  p, st = p0, opt.init(p0)
  moved = []
  for _ in range(2):
    upd, st = opt.update(jax.grad(loss)(p), st)
    p = optax.apply_updates(p, upd)
    moved.append(p)
  part = lambda t: t["params"]["Core_0"]["Torso_0"]["MLP_0"]
  assert np.all(part(moved[0])["Dense_0"]["kernel"][6, :16] != 0)  # the new observation input (to old units)
  assert np.any(part(moved[0])["Dense_1"]["kernel"][16:] != 0)  # new units' output side
  assert np.any(moved[0]["params"]["MLP_0"]["Dense_0"]["kernel"][16:] != 0)  # head rows for h
  assert np.any(part(moved[1])["Dense_0"]["kernel"][:6, 16:] != part(p0)["Dense_0"]["kernel"][:6, 16:])
  cell = lambda t: t["params"]["Core_0"]["OptimizedLSTMCell_0"]["ii"]["kernel"]
  assert np.any(cell(moved[1]) != cell(p0))


def test_migrate_ppo_errors():
  old, _ = _ppo_state(jax.random.PRNGKey(0), PPO_OLD, 6)
  fresh, _ = _ppo_state(jax.random.PRNGKey(1), {**PPO_OLD, "policy_hidden": (16, 8)}, 6, trained=False)
  with pytest.raises(
    ValueError, match=r"params/policy/params/Core_0/Torso_0/MLP_0/Dense_1/kernel: layer 1 narrowed"
  ):
    S.migrate(PPO_OLD, {**PPO_OLD, "policy_hidden": (16, 8)}, old, fresh)
  fresh, _ = _ppo_state(jax.random.PRNGKey(1), PPO_OLD, 7, trained=False)
  with pytest.raises(ValueError, match="obs_inserted"):
    S.migrate(PPO_OLD, PPO_OLD, old, fresh)
  with pytest.raises(ValueError, match="activation"):
    S.migrate(PPO_OLD, {**PPO_OLD, "activation": "relu"}, old, fresh, obs_inserted=[0])


def _ddpg_state(key, hidden, obs_dim, trained=True):
  k = jax.random.split(key, 6)
  actor, critic = ddpg.Actor(4, hidden), ddpg.Critic(hidden)
  one = jnp.zeros(obs_dim)
  params = {"actor": actor.init(k[0], one), "critic": critic.init(k[1], one, jnp.zeros(4))}
  adam = ADAM
  opt_state, target, obs_norm = {n: adam.init(params[n]) for n in params}, params, N.init(one)
  if trained:
    trained_parts = {n: _adam_steps(adam, _perturb(params[n], k[2]), k[3]) for n in params}
    params = {n: v[0] for n, v in trained_parts.items()}
    opt_state = {n: v[1] for n, v in trained_parts.items()}
    target = _perturb(params, k[4], 0.01)
    obs_norm = N.update(obs_norm, 1.0 + 2.0 * jax.random.normal(k[5], (40, obs_dim)))
  buffer = replay.init({"obs": jax.ShapeDtypeStruct((5, obs_dim), jnp.float32)}, 20)
  return ddpg.TrainState(
    params=params,
    target=target,
    opt_state=opt_state,
    obs_norm=obs_norm,
    buffer=buffer,
    env_state={"obs": jnp.full((2, obs_dim), 1.0 if trained else 0.0)},
    key=k[5],
    updates=jnp.asarray(3 if trained else 0, jnp.int32),
  ), (actor, critic)


def test_migrate_ddpg():
  old_cfg, new_cfg = {"algo": "ddpg_her", "hidden": (16, 16)}, {"algo": "ddpg_her", "hidden": (24, 16)}
  old, (actor_o, critic_o) = _ddpg_state(jax.random.PRNGKey(0), (16, 16), 6)
  fresh, (actor_n, critic_n) = _ddpg_state(jax.random.PRNGKey(1), (24, 16), 8, trained=False)
  ts = S.migrate(old_cfg, new_cfg, old, fresh, obs_inserted=[0, 7])
  r = S.Remap.insert(6, [0, 7])
  x = jax.random.normal(jax.random.PRNGKey(2), (B, 6)) * 2.0
  xn = _grow(x, r, jax.random.PRNGKey(3))
  a = jax.random.uniform(jax.random.PRNGKey(4), (B, 4), minval=-1, maxval=1)
  for which in ("params", "target"):
    po, pn = getattr(old, which), getattr(ts, which)
    fo, fn = N.normalize(old.obs_norm, x), N.normalize(ts.obs_norm, xn)
    _close(actor_o.apply(po["actor"], fo), actor_n.apply(pn["actor"], fn))
    _close(critic_o.apply(po["critic"], fo, a), critic_n.apply(pn["critic"], fn, a))
  # The target's new units are drawn like the online net's (both from the fresh state, where they agree).
  k_t = ts.target["critic"]["params"]["MLP_0"]["Dense_0"]["kernel"][:, 16:]
  np.testing.assert_array_equal(k_t, ts.params["critic"]["params"]["MLP_0"]["Dense_0"]["kernel"][:, 16:])
  assert ts.opt_state["actor"][0].count == 2
  # The observation changed: the envs restart and the replay buffer of old observations is dropped.
  assert ts.env_state is fresh.env_state and ts.buffer is fresh.buffer and ts.updates == 3
  # Only the widths changed: the envs and the replay buffer carry over.
  fresh, _ = _ddpg_state(jax.random.PRNGKey(1), (24, 16), 6, trained=False)
  ts = S.migrate(old_cfg, new_cfg, old, fresh)
  assert ts.env_state is old.env_state and ts.buffer is old.buffer


def _asp_state(key, hidden, lstm, robot, feats, trained=True, pool_size=3):
  """Self-play: Alice's objects have `feats["alice"]` features, Bob's `feats["bob"]` (he sees the goal)."""
  net_p, net_v = PolicyNet(6, hidden, bins=5, lstm=lstm), ValueNet(hidden, lstm=lstm)
  carry = zero_carry((), lstm)
  agents, pool = {}, {}
  for i, a in enumerate(selfplay.AGENTS):
    k = jax.random.split(jax.random.fold_in(key, i), 8)
    one = _dict_obs(k[0], (), robot, 3, feats[a])
    params = {"policy": net_p.init(k[1], one, carry), "value": net_v.init(k[2], one, carry)}
    opt_state, norm = PPO_OPT.init(params), N.init(one)
    if trained:
      params, opt_state = _adam_steps(PPO_OPT, _perturb(params, k[3]), k[4])
      norm = N.update(norm, N.features(_dict_obs(k[5], (30,), robot, 3, feats[a])))
    agents[a] = selfplay.AgentState(params, opt_state, norm)
    pool[a] = opponent_pool.init({"policy": params["policy"], "obs_norm": norm}, pool_size)
    if trained:  # a second, different snapshot
      pool[a] = opponent_pool.add(pool[a], {"policy": _perturb(params["policy"], k[6]), "obs_norm": norm}, 5)
  return selfplay.TrainState(agents, pool, key, jnp.asarray(9 if trained else 0, jnp.int32)), (net_p, net_v)


@pytest.mark.slow  # a training run (the default tier must fit in 30 minutes)
def test_migrate_selfplay():
  """Alice and Bob: hidden widened, an LSTM added, a robot feature appended for both (steps_left-like) and
  a per-object feature inserted for Bob only; the agents and every pool snapshot keep their outputs."""
  old_cfg = {"algo": "asp", "hidden": (16,), "lstm_size": 0}
  new_cfg = {"algo": "asp", "hidden": (24,), "lstm_size": 6}
  old, (po, vo) = _asp_state(jax.random.PRNGKey(0), (16,), 0, 5, {"alice": 4, "bob": 7})
  fresh, (pn, vn) = _asp_state(jax.random.PRNGKey(1), (24,), 6, 6, {"alice": 4, "bob": 8}, trained=False)
  inserted = {"alice": {"robot": [5]}, "bob": {"robot": [5], "objects": [3]}}
  ts = S.migrate(old_cfg, new_cfg, old, fresh, obs_inserted=inserted)
  for a, f_old in (("alice", 4), ("bob", 7)):
    remaps = {
      "robot": S.Remap.insert(5, [5]),
      "objects": S.Remap.insert(f_old, inserted[a].get("objects", [])),
    }
    xs = [_dict_obs(kk, (B,), 5, 3, f_old) for kk in jax.random.split(jax.random.PRNGKey(2), 3)]
    xs_new = [_grow_obs(x, remaps, kk) for x, kk in zip(xs, jax.random.split(jax.random.PRNGKey(3), 3))]
    for net_o, net_n, part in ((po, pn, "policy"), (vo, vn, "value")):
      o_out = [net_o.apply(old.agents[a].params[part], N.normalize(old.agents[a].obs_norm, x))[0] for x in xs]
      carry, n_out = zero_carry((B,), 6), []
      for x in xs_new:
        out, carry = net_n.apply(ts.agents[a].params[part], N.normalize(ts.agents[a].obs_norm, x), carry)
        n_out.append(out)
      _close(o_out, n_out)
    for slot in range(2):  # the filled slots: the agent's start and a perturbed snapshot
      so = opponent_pool.get(old.pool[a], slot)
      sn = opponent_pool.get(ts.pool[a], slot)
      _close(
        po.apply(so["policy"], N.normalize(so["obs_norm"], xs[0]))[0],
        pn.apply(sn["policy"], N.normalize(sn["obs_norm"], xs_new[0]), zero_carry((B,), 6))[0],
      )
    kernel = ts.pool[a].snapshots["policy"]["params"]["Core_0"]["Torso_0"]["MLP_0"]["Dense_0"]["kernel"]
    assert np.all(np.abs(np.asarray(kernel[:, :, 16:])) > 0)  # every slot's new units drawn, not zero
    np.testing.assert_array_equal(ts.pool[a].quality, old.pool[a].quality)
    assert ts.pool[a].count == 2 and ts.agents[a].opt_state[1][0].count == 2
  assert ts.updates == 9


def test_transplant_carries_the_leaves_that_match_by_path_and_shape():
  """A warm start on another task: the layers whose shapes follow the task (here the input layer of a
  13-feature observation against 10, and a 2-d action head against 4) keep their fresh draws; every
  other leaf is the donor's."""
  k1, k2 = _keys(0, 2)
  donor_net, new_net = PolicyNet(action_size=4, hidden=(32, 32)), PolicyNet(action_size=2, hidden=(32, 32))
  donor = donor_net.init(k1, jnp.zeros((1, 10)))
  fresh = new_net.init(k2, jnp.zeros((1, 13)))
  out, record = S.transplant(fresh, donor)
  assert jax.tree.structure(out) == jax.tree.structure(fresh)
  assert record["carried"] and record["fresh"]
  paths = dict(S._leaves(out, "params"))  # pylint: disable=protected-access
  donor_paths, fresh_paths = dict(S._leaves(donor, "params")), dict(S._leaves(fresh, "params"))
  assert set(record["carried"]) | set(record["fresh"]) == set(paths)
  for p in record["carried"]:
    np.testing.assert_array_equal(paths[p], donor_paths[p])
  for p in record["fresh"]:
    np.testing.assert_array_equal(paths[p], fresh_paths[p])
    assert p not in donor_paths or donor_paths[p].shape != paths[p].shape
  # The input layer (13 features) and the head (2 actions x mean/log-std) are fresh, the middle is not.
  assert any("Dense_0" in p and "kernel" in p for p in record["fresh"])
  assert any("Dense_1" in p and "kernel" in p for p in record["carried"])
  with pytest.raises(ValueError, match="shares no leaf"):
    S.transplant(fresh, {"other": jnp.zeros(3)})


def test_transplant_keep_fresh_redraws_the_named_layers_though_the_donor_has_them():
  """The hide-and-seek paper's fine-tuning re-initialises chosen layers: `keep_fresh` patterns keep those
  leaves' fresh draws although path and shape match; the rest carry over; a pattern matching nothing is an
  error naming it (a typo must not silently carry everything)."""
  k1, k2 = _keys(3, 2)
  net = PolicyNet(action_size=2, hidden=(32, 32))
  donor, fresh = net.init(k1, jnp.zeros((1, 10))), net.init(k2, jnp.zeros((1, 10)))
  out, record = S.transplant(fresh, donor, keep_fresh=["*/Dense_1/*"])
  paths = dict(S._leaves(out, "params"))  # pylint: disable=protected-access
  donor_paths, fresh_paths = dict(S._leaves(donor, "params")), dict(S._leaves(fresh, "params"))
  assert record["reinitialised"] and all("Dense_1" in p for p in record["reinitialised"])
  assert len(record["reinitialised"]) == 2  # kernel and bias
  assert set(record["reinitialised"]) <= set(record["fresh"])
  assert not any("Dense_1" in p for p in record["carried"]) and record["carried"]
  for p in record["reinitialised"]:
    np.testing.assert_array_equal(paths[p], fresh_paths[p])
    assert "bias" in p or not np.array_equal(paths[p], donor_paths[p])  # biases start at 0 in both
  for p in record["carried"]:
    np.testing.assert_array_equal(paths[p], donor_paths[p])
  with pytest.raises(ValueError, match=r"Dense_9.*match no leaf"):
    S.transplant(fresh, donor, keep_fresh=["*/Dense_1/*", "*/Dense_9/*"])
