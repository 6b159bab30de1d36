"""The JaxMARL adapter of hide-and-seek (`mjx_envs.adapters.jaxmarl`): per-agent dicts, spaces, the time limit
and JaxMARL's auto-reset, jit / vmap / scan, determinism, and errors.

Cheap by design: one small quadrant env (6-step episodes), three compiled functions (a jitted scan rollout,
the same vmapped over 4 worlds through JaxMARL's LogWrapper, and `reset`); the error tests fail while tracing.
"""

import importlib.util
import sys

import jax
import numpy as np
import pytest

pytest.importorskip("jaxmarl")

import mjx_envs  # noqa: F401  (registers the envs)
from mjx_envs.adapters import jaxmarl as adapter

T = 8  # rollout steps: one 6-step episode, then 2 steps of the next
MAX_STEPS = 6  # episode_length 6: the preparation phase is round(0.4 * 6) = 2 steps
WORLDS = 4


def _rollout(env, key):
  """Random actions from the action spaces for T steps: (first obs, per-step outputs)."""
  k0, key = jax.random.split(key)
  obs0, state = env.reset(k0)

  def body(state, k):
    ka, ks = jax.random.split(k)
    acts = {
      a: env.action_space(a).sample(kk) for a, kk in zip(env.agents, jax.random.split(ka, env.num_agents))
    }
    obs, state, rewards, dones, infos = env.step(ks, state, acts)
    marl = state if isinstance(state, adapter.HideAndSeekMARLState) else state.env_state  # LogWrapper's
    out = dict(
      obs=obs,
      rewards=rewards,
      dones=dones,
      infos=infos,
      acts=acts,
      step_key=ks,
      env_reward=marl.env_state.reward,
      step=marl.step,
      t=marl.env_state.info["t"],
    )
    return state, out

  return obs0, jax.lax.scan(body, state, jax.random.split(key, T))[1]


@pytest.fixture(scope="module")
def env():
  return adapter.HideAndSeekMARL("HideAndSeekQuadrant", episode_length=MAX_STEPS)


@pytest.fixture(scope="module")
def run(env):
  return jax.jit(lambda key: _rollout(env, key))


@pytest.fixture(scope="module")
def traj(run):
  return jax.device_get(run(jax.random.PRNGKey(3)))


@pytest.fixture(scope="module")
def batched(env):
  from jaxmarl.wrappers.baselines import LogWrapper

  keys = jax.random.split(jax.random.PRNGKey(7), WORLDS)
  return keys, jax.device_get(jax.jit(jax.vmap(lambda k: _rollout(LogWrapper(env), k)))(keys))


def test_agents_and_spaces(env):
  assert env.agents == ["hider_0", "hider_1", "seeker_0", "seeker_1"] and env.num_agents == 4
  assert env.agent_classes == {"hider": ["hider_0", "hider_1"], "seeker": ["seeker_0", "seeker_1"]}
  assert env.max_steps == MAX_STEPS
  space = env.observation_space("hider_0")
  assert isinstance(space, adapter.spaces.Dict)
  assert space.spaces["self"].shape == (11,) and space.spaces["agents"].shape == (4, 10)
  assert space.spaces["boxes"].shape == (2, 14) and space.spaces["ramps"].shape == (1, 11)
  assert space.spaces["lidar"].shape == (30,) and space.spaces["agents_mask"].shape == (4,)
  act = env.action_space("seeker_1")
  assert isinstance(act, adapter.spaces.MultiDiscrete) and act.shape == (5,)
  assert list(np.asarray(act.num_categories)) == [11, 11, 11, 2, 2]
  assert set(env.observation_spaces) == set(env.action_spaces) == set(env.agents)


def test_jit_rollout_obs_match_spaces(env, traj):
  obs0, out = traj
  for a in env.agents:
    space = env.observation_space(a)
    assert set(obs0[a]) == set(out["obs"][a]) == set(space.spaces)
    for k, sub in space.spaces.items():
      assert obs0[a][k].shape == sub.shape and obs0[a][k].dtype == np.float32, (a, k)
      assert out["obs"][a][k].shape == (T, *sub.shape) and out["obs"][a][k].dtype == np.float32, (a, k)
    assert bool(space.contains(obs0[a]))
    for t in range(T):
      assert bool(space.contains(jax.tree.map(lambda x, t=t: x[t], out["obs"][a]))), (a, t)
    assert bool(jax.vmap(env.action_space(a).contains)(out["acts"][a]).all())


def test_rewards_are_the_env_reward_axis(env, traj):
  _, out = traj
  r = np.stack([out["rewards"][a] for a in env.agents], -1)  # [T, A]
  assert r.dtype == np.float32
  live = ~out["dones"]["__all__"]  # on a done step the returned state is already the fresh episode's
  np.testing.assert_array_equal(r[live], out["env_reward"][live])
  assert not r[:2].any() and not r[MAX_STEPS:].any()  # the preparation phases of both episodes
  # After it: +-1 for hiders, the opposite for seekers; an out-of-area penalty (-10) would add to one agent.
  game = np.where(r[2:MAX_STEPS] < -5, r[2:MAX_STEPS] + 10, r[2:MAX_STEPS])
  assert np.isin(game, [-1.0, 1.0]).all()
  np.testing.assert_array_equal(game, game[:, :1] * np.array([1, 1, -1, -1]))


def test_time_limit_and_auto_reset(env, traj):
  _, out = traj
  done = out["dones"]["__all__"]
  assert done.dtype == np.bool_
  np.testing.assert_array_equal(done, np.arange(1, T + 1) == MAX_STEPS)
  for a in env.agents:  # every slot is present in the quadrant game: agents end with the episode
    np.testing.assert_array_equal(out["dones"][a], done)
  np.testing.assert_array_equal(out["step"], [1, 2, 3, 4, 5, 0, 1, 2])
  np.testing.assert_array_equal(out["t"], [1, 2, 3, 4, 5, 0, 1, 2])
  assert {k: v.shape for k, v in out["infos"].items()} == {
    k: (T, 4) for k in ("agent_on", "truncated", "diverged", "bad_action")
  }
  np.testing.assert_array_equal(out["infos"]["truncated"], np.repeat(done[:, None], 4, 1))
  assert not out["infos"]["diverged"].any() and not out["infos"]["bad_action"].any()
  # The observation after the last step is that of JaxMARL's reset with the step key's second half.
  d = int(np.argmax(done))
  fresh, _ = env.reset(jax.random.split(out["step_key"][d])[1])
  jax.tree.map(lambda x, y: np.testing.assert_allclose(x[d], y, atol=1e-5), out["obs"], jax.device_get(fresh))


def test_deterministic_for_a_key(run, traj):
  again = jax.device_get(run(jax.random.PRNGKey(3)))
  jax.tree.map(np.testing.assert_array_equal, again, traj)


def test_vmapped_rollout_and_log_wrapper(env, run, batched):
  keys, (obs0, out) = batched
  assert out["obs"]["seeker_0"]["boxes"].shape == (WORLDS, T, 2, 14)
  assert out["rewards"]["hider_1"].shape == out["dones"]["__all__"].shape == (WORLDS, T)
  np.testing.assert_array_equal(
    out["dones"]["__all__"], np.tile(np.arange(1, T + 1) == MAX_STEPS, (WORLDS, 1))
  )
  # World 1 of the batch is the unbatched rollout of its key (C MuJoCo steps each world alone).
  one = jax.device_get(run(keys[1]))
  world = jax.tree.map(lambda x: x[1], (obs0, out))
  for a in env.agents:
    np.testing.assert_allclose(world[1]["rewards"][a], one[1]["rewards"][a])
    jax.tree.map(
      lambda x, y: np.testing.assert_allclose(x, y, atol=1e-4), world[1]["obs"][a], one[1]["obs"][a]
    )
  # LogWrapper's per-agent infos: the finished episode's return is the sum of its rewards.
  ret = out["infos"]["returned_episode_returns"][:, MAX_STEPS - 1]  # [WORLDS, A]
  summed = np.stack([out["rewards"][a][:, :MAX_STEPS].sum(1) for a in env.agents], -1)
  np.testing.assert_allclose(ret, summed)
  assert out["infos"]["returned_episode"][:, MAX_STEPS - 1].all()


def test_bad_actions_are_refused(env):
  _, state = env.reset(jax.random.PRNGKey(0))
  key = jax.random.PRNGKey(1)
  good = {a: np.zeros(5, np.int32) for a in env.agents}
  missing = {a: good[a] for a in env.agents[:-1]}
  with pytest.raises(ValueError, match=r"missing \['seeker_1'\]"):
    env.step(key, state, missing)
  with pytest.raises(ValueError, match=r"unknown \['seeker_9'\]"):
    env.step(key, state, {**good, "seeker_9": good["hider_0"]})
  with pytest.raises(ValueError, match=r"actions\['hider_0'\] must have shape \(5,\).*got \(3,\)"):
    env.step(key, state, {**good, "hider_0": np.zeros(3, np.int32)})
  with pytest.raises(ValueError, match=r"got \(4, 5\); for a batch of worlds, jax.vmap"):
    env.step(key, state, {**good, "hider_0": np.zeros((4, 5), np.int32)})
  with pytest.raises(ValueError, match="must be a dict"):
    env.step(key, state, np.zeros((4, 5), np.int32))


def test_bad_names_are_refused():
  with pytest.raises(ValueError, match="HideAndSeekQuadrant"):
    adapter.make_jaxmarl("FetchReach")
  with pytest.raises(ValueError, match=r"unknown obs_keys \['eyes'\]"):
    adapter.make_jaxmarl("HideAndSeekQuadrant", obs_keys=("self", "eyes"), episode_length=MAX_STEPS)


def test_clear_import_error_without_jaxmarl(monkeypatch):
  monkeypatch.setitem(sys.modules, "jaxmarl.environments", None)  # as if jaxmarl were not installed
  spec = importlib.util.spec_from_file_location("_jaxmarl_adapter_copy", adapter.__file__)
  with pytest.raises(ImportError, match=r"pip install 'mjx-goal-rl\[jaxmarl\]'"):
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
