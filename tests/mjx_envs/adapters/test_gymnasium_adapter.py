"""The Gymnasium adapter (mjx_envs/adapters/gymnasium.py): gymnasium's check_env on the single env, the
vector env's spaces, same-step auto-reset, time limit, batched goal rewards, seeding and frames, errors on
bad input, and gymnasium.make / make_vec through the registration.

Kept cheap: FetchReach (dict observations) and metaworld/reach-v3 (array observations) only, and three
compiled batches in all (the 4-env vector env, shared by every vector test and by make_vec; the
registered single env, shared by check_env, gymnasium.make and the direct GymEnv; Meta-World's single env).
"""

import mjx_envs
from mjx_envs import ConfigError

import warnings

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from mjx_envs.adapters import gymnasium as ga  # noqa: E402  after the importorskip

from gymnasium.utils.env_checker import check_env  # noqa: E402

N = 4
LIMIT = 8  # steps per episode in the vector tests: long enough for the reacher below to succeed
W, H = 96, 72
FETCH_ID = "mjx_envs/FetchReach-v0"


@pytest.fixture(scope="module")
def ids():
  return ga.register_gymnasium_envs()


@pytest.fixture(scope="module")
def vec():
  env = ga.VectorEnv(
    "FetchReach", N, seed=0, max_episode_steps=LIMIT, render_mode="rgb_array", width=W, height=H
  )
  yield env
  env.close()


def _reach(obs):
  """A proportional reacher: full speed towards the goal, so some envs succeed within LIMIT steps."""
  a = np.zeros((len(obs["desired_goal"]), 4), np.float32)
  a[:, :3] = np.clip(20.0 * (obs["desired_goal"] - obs["achieved_goal"]), -1.0, 1.0)
  return a


def _rollout(env, seed, steps):
  obs, _ = env.reset(seed=seed)
  out = [obs]
  for _ in range(steps):
    obs, reward, terminated, truncated, info = env.step(_reach(obs))
    out.append((obs, reward, terminated, truncated, info))
  return out


def _only_inf_bound_warnings(record):
  """check_env's warnings other than the infinite observation bounds (gymnasium-robotics' Fetch has those
  too: positions and velocities are unbounded)."""
  return [str(w.message) for w in record if "infinity" not in str(w.message)]


# --- the single env ------------------------------------------------------------------------------
def test_check_env_single_fetch_reach(ids):
  assert FETCH_ID in ids
  env = gymnasium.make(FETCH_ID, render_mode="rgb_array", width=W, height=H)
  assert env.spec.max_episode_steps == 50  # Gymnasium's TimeLimit: the env's episode length
  inner = env.unwrapped
  assert isinstance(inner, ga.GymGoalEnv) and inner.max_episode_steps is None  # no limit of its own
  assert set(inner.observation_space.spaces) == {"observation", "achieved_goal", "desired_goal"}
  with warnings.catch_warnings(record=True) as record:
    warnings.simplefilter("always")
    check_env(inner)  # spaces, reset/step types, seed determinism (reset and step), render, close
  assert not _only_inf_bound_warnings(record)
  frame = inner.render()
  assert frame.shape == (H, W, 3) and frame.dtype == np.uint8


def test_single_env_goal_api_and_time_limit(ids):
  del ids
  env = gymnasium.make(FETCH_ID, max_episode_steps=3)
  obs, info = env.reset(seed=5)
  assert obs["observation"].shape == (10,) and obs["observation"].dtype == np.float32
  assert set(info) == {"is_success"}
  for t in range(3):
    obs, reward, terminated, truncated, info = env.step(np.array([1.0, 0.0, 0.0, 0.0]))
    assert isinstance(reward, float) and terminated is False and truncated is (t == 2)
    assert reward == env.unwrapped.compute_reward(obs["achieved_goal"], obs["desired_goal"], info)
  assert env.unwrapped.compute_terminated(obs["achieved_goal"], obs["desired_goal"], info) == np.False_
  assert env.unwrapped.compute_truncated(obs["achieved_goal"], obs["desired_goal"], info) == np.False_
  # The direct class with the same settings shares the compiled functions and gives the same episodes.
  direct = ga.GymEnv("FetchReach", max_episode_steps=-1)
  assert isinstance(direct, ga.GymGoalEnv)
  np.testing.assert_array_equal(direct.reset(seed=5)[0]["desired_goal"], env.reset(seed=5)[0]["desired_goal"])
  with pytest.raises(gymnasium.error.ResetNeeded, match="reset"):
    ga.GymEnv("FetchReach", max_episode_steps=-1).step(np.zeros(4))


def test_check_env_single_array_obs(ids):
  """An env with array observations (Meta-World): a Box space, is_success in the info, no goal API."""
  env = gymnasium.make("mjx_envs/metaworld-reach-v3")
  assert "mjx_envs/metaworld-reach-v3" in ids and env.spec.max_episode_steps == 500
  inner = env.unwrapped
  assert isinstance(inner.observation_space, gymnasium.spaces.Box) and not isinstance(inner, ga.GymGoalEnv)
  with warnings.catch_warnings(record=True) as record:
    warnings.simplefilter("always")
    check_env(inner, skip_render_check=True)
  assert not _only_inf_bound_warnings(record)
  obs, info = env.reset(seed=0)
  assert obs.dtype == np.float32 and obs.shape == inner.observation_space.shape
  assert "is_success" in env.step(env.action_space.sample())[4]


# --- the vector env ------------------------------------------------------------------------------
def test_vector_spaces_dtypes_and_metadata(vec):
  assert vec.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
  assert vec.metadata["render_fps"] == 25 and vec.num_envs == N and vec.is_goal_env
  single = vec.single_observation_space
  assert {k: s.shape for k, s in single.spaces.items()} == {
    "observation": (10,),
    "achieved_goal": (3,),
    "desired_goal": (3,),
  }
  assert vec.observation_space == gymnasium.vector.utils.batch_space(single, N)
  assert vec.single_action_space == gymnasium.spaces.Box(-1.0, 1.0, (4,), np.float32)
  assert vec.action_space.shape == (N, 4)
  obs, info = vec.reset(seed=0)
  assert obs in vec.observation_space
  assert all(v.dtype == np.float32 and v.shape[0] == N for v in obs.values())
  assert info["is_success"].shape == (N,) and info["_is_success"].all()
  obs, reward, terminated, truncated, info = vec.step(vec.action_space.sample())
  assert obs in vec.observation_space
  assert reward.shape == (N,) and reward.dtype == np.float32
  assert terminated.dtype == np.bool_ and truncated.dtype == np.bool_ and terminated.shape == (N,)
  obs["observation"][:] = 0.0  # writable copies, not views of JAX buffers


def test_same_step_autoreset_and_truncation(vec):
  steps = _rollout(vec, seed=1, steps=LIMIT + 1)
  goal0 = steps[0]["desired_goal"]
  for obs, _, terminated, truncated, info in steps[1:LIMIT]:
    assert not terminated.any() and not truncated.any() and "final_obs" not in info
    np.testing.assert_array_equal(obs["desired_goal"], goal0)  # the same episodes
  obs, reward, terminated, truncated, info = steps[LIMIT]
  assert truncated.all() and not terminated.any()  # the time limit is a truncation
  assert info["_final_obs"].all() and info["_final_info"].all()
  final = info["final_obs"]
  assert final.dtype == object and final.shape == (N,)
  for i in range(N):
    # final_obs is the ended episode's last observation; obs is already the next episode's first.
    np.testing.assert_array_equal(final[i]["desired_goal"], goal0[i])
    assert not np.array_equal(obs["desired_goal"][i], goal0[i])
    np.testing.assert_array_equal(obs["observation"][i, 3:], 0.0)  # at rest: fingers and velocities
    assert vec.compute_reward(final[i]["achieved_goal"], final[i]["desired_goal"], None) == reward[i]
  np.testing.assert_array_equal(info["final_info"]["is_success"], info["is_success"])
  _, _, terminated, truncated, info = steps[LIMIT + 1]
  assert not truncated.any() and "final_obs" not in info


def test_compute_reward_batched_equals_env_reward(vec):
  steps = _rollout(vec, seed=2, steps=LIMIT - 1)
  ag = np.stack([s[0]["achieved_goal"] for s in steps[1:]])  # [T, N, 3]
  dg = np.stack([s[0]["desired_goal"] for s in steps[1:]])
  rewards = np.stack([s[1] for s in steps[1:]])
  success = np.stack([s[4]["is_success"] for s in steps[1:]])
  assert 0 < success.sum() < success.size  # both outcomes are compared
  np.testing.assert_array_equal(vec.compute_reward(ag, dg, None), rewards)  # any batch shape [T, N]
  infos = [{"is_success": s} for s in success.reshape(-1)]  # Stable-Baselines3 HER passes dicts
  np.testing.assert_array_equal(
    vec.compute_reward(ag.reshape(-1, 3), dg.reshape(-1, 3), infos), rewards.reshape(-1)
  )
  np.testing.assert_array_equal(success, (np.linalg.norm(ag - dg, axis=-1) < 0.05).astype(np.float32))
  assert vec.compute_terminated(ag, dg, None).shape == (LIMIT - 1, N)
  assert not vec.compute_terminated(ag, dg, None).any() and not vec.compute_truncated(ag, dg, None).any()
  # Relabelled goals: the achieved goal itself is always reached (reward 0), a far one never is.
  np.testing.assert_array_equal(vec.compute_reward(ag, ag, None), np.zeros_like(rewards))
  np.testing.assert_array_equal(vec.compute_reward(ag, ag + 0.1, None), -np.ones_like(rewards))
  with pytest.raises(ValueError, match="achieved_goal and desired_goal"):
    vec.compute_reward(ag, dg[..., :2], None)


def test_seed_determinism(vec):
  a = _rollout(vec, seed=7, steps=LIMIT + 2)  # through an auto-reset
  b = _rollout(vec, seed=7, steps=LIMIT + 2)
  for sa, sb in zip(a[1:], b[1:]):
    for k in ("observation", "desired_goal"):
      np.testing.assert_array_equal(sa[0][k], sb[0][k])
    np.testing.assert_array_equal(sa[1], sb[1])
  c = _rollout(vec, seed=8, steps=0)
  assert not np.array_equal(a[0]["desired_goal"], c[0]["desired_goal"])
  # The constructor's seed seeds the first reset() without one, as reset(seed=...) does.
  other = ga.VectorEnv("FetchReach", N, seed=7, max_episode_steps=LIMIT)  # the same compiled functions
  np.testing.assert_array_equal(other.reset()[0]["desired_goal"], a[0]["desired_goal"])
  assert not np.array_equal(other.reset()[0]["desired_goal"], a[0]["desired_goal"])  # the stream goes on


def test_render_frames(vec):
  vec.reset(seed=0)
  frames = vec.render()
  assert isinstance(frames, tuple) and len(frames) == N
  assert all(f.shape == (H, W, 3) and f.dtype == np.uint8 for f in frames)
  assert frames[0].std() > 0 and not np.array_equal(frames[0], frames[1])  # not blank; different goals


def test_bad_input(vec):
  vec.reset(seed=0)
  with pytest.raises(ValueError, match=r"shape \(4, 4\)"):
    vec.step(np.zeros((N, 3)))
  with pytest.raises(ValueError, match=r"shape \(4, 4\)"):
    vec.step(np.zeros(4))
  bad = np.zeros((N, 4))
  bad[2, 1] = np.nan
  with pytest.raises(ValueError, match=r"NaN or inf \(envs \[2\]\)"):
    vec.step(bad)
  with pytest.raises(ValueError, match="numeric"):
    vec.step(np.full((N, 4), "a"))
  with pytest.raises(ValueError, match="no options"):
    vec.reset(options={"goal": 1})
  with pytest.raises(TypeError, match="one int"):
    vec.reset(seed=[1, 2, 3, 4])
  vec.step(np.full((N, 4), 3.0))  # out of the box: clipped by the env, as gymnasium-robotics does
  with pytest.raises(ConfigError, match="unknown environment 'FetchReech'.*FetchReach"):
    ga.VectorEnv("FetchReech", 2)
  with pytest.raises(ConfigError, match="unknown config key"):
    ga.GymEnv("FetchReach", rewrd_type="dense")
  with pytest.raises(ValueError, match="max_episode_steps"):
    ga.VectorEnv("FetchReach", N, max_episode_steps=0)
  with pytest.raises(ValueError, match="multi-agent.*jaxmarl"):
    ga.VectorEnv("HideAndSeekQuadrant", 2)
  with pytest.raises(ValueError, match="self-play"):
    ga.GymEnv("BlocksSelfPlay")
  with pytest.raises(ValueError, match="multiple of 10"):
    ga.GymEnv("MT10")
  with pytest.raises(ValueError, match="render_mode"):
    ga.VectorEnv("FetchReach", N, max_episode_steps=LIMIT, render_mode="human")


# --- registration --------------------------------------------------------------------------------
def test_registration_and_make_vec(ids):
  assert ga.gymnasium_id("metaworld/reach-v3") == "mjx_envs/metaworld-reach-v3"
  assert ids == ga.register_gymnasium_envs()  # idempotent
  # Hide-and-seek (the game and its transfer tasks: dict actions) and the self-play game are left out.
  single_agent = {
    n
    for n in mjx_envs.registered()
    if n not in ("HideAndSeek", "HideAndSeekQuadrant", "BlocksSelfPlay") and not n.startswith("Hns")
  }
  assert set(ids) == {ga.gymnasium_id(n) for n in single_agent}
  assert "mjx_envs/HideAndSeek-v0" not in gymnasium.registry
  envs = gymnasium.make_vec(FETCH_ID, num_envs=N, max_episode_steps=LIMIT)
  assert isinstance(envs, ga.VectorEnv) and envs.num_envs == N and envs.max_episode_steps == LIMIT
  assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
  obs, _ = envs.reset(seed=3)
  assert obs["observation"].shape == (N, 10)
  envs.close()
  default = gymnasium.make_vec(FETCH_ID, num_envs=2)
  assert default.max_episode_steps == 50  # the spec's, as for gymnasium.make
  default.close()
