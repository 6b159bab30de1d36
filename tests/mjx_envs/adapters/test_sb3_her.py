"""Stable-Baselines3 HER trains FetchReach through the Gymnasium adapter (slow tier).

SAC + `HerReplayBuffer` ("future", 4 sampled goals) on `gymnasium.make("mjx_envs/FetchReach-v0")`, the
RL Zoo's FetchReach settings (lr 1e-3, gamma 0.95, batch 256, [64, 64] nets, observations normalised by
VecNormalize: without it the policy learned nothing in 6000 steps, the positions being ~1.3 +- 0.15).
Measured on the 2-core CPU (under load from another test run), success on 20 deterministic episodes:
seeds 0 / 1 / 2: untrained 0.0-0.05; 2000 steps 0.55 / 0.5 / 0.2; 3000 steps 1.0 / 1.0 / 1.0; 4000 steps
1.0 / 1.0 / 1.0 (40-65 s of training). The test trains 4000 steps and asks for >= 0.8.
"""

import mjx_envs  # noqa: F401  first: the XLA:CPU guard and MUJOCO_GL

import time

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
sb3 = pytest.importorskip("stable_baselines3")

from mjx_envs.adapters import gymnasium as ga  # noqa: E402  after the importorskips

import torch  # noqa: E402  (stable_baselines3 needs it, so it is installed)
from stable_baselines3.common.env_checker import check_env as sb3_check_env  # noqa: E402
from stable_baselines3.common.env_util import make_vec_env  # noqa: E402
from stable_baselines3.common.vec_env import VecNormalize  # noqa: E402

ENV_ID = "mjx_envs/FetchReach-v0"
STEPS = 4000
EVAL_EPISODES = 20
BAR = 0.8


@pytest.fixture
def one_torch_thread():
  """Torch on one thread: on a 2-core machine its two OpenMP threads and JAX's contend, and a [256, 16] x
  [16, 64] layer took 4.6 ms instead of 17 us (SAC's update 130 ms a step instead of ~6)."""
  threads = torch.get_num_threads()
  torch.set_num_threads(1)
  yield
  torch.set_num_threads(threads)


def _success_rate(model, venv, env, seed):
  wins = 0
  obs, _ = env.reset(seed=seed)
  for episode in range(EVAL_EPISODES):
    if episode:
      obs, _ = env.reset()
    done = False
    while not done:
      action, _ = model.predict(venv.normalize_obs(obs), deterministic=True)
      obs, _, terminated, truncated, info = env.step(action)
      done = terminated or truncated
    wins += bool(info["is_success"] > 0)
  return wins / EVAL_EPISODES


@pytest.mark.slow
def test_sb3_her_sac_learns_fetch_reach(one_torch_thread):
  assert ga.register_gymnasium_envs(["FetchReach"]) == [ENV_ID]
  sb3_check_env(gymnasium.make(ENV_ID).unwrapped)  # SB3's own checker, GoalEnv part included
  seed = 0
  venv = VecNormalize(make_vec_env(ENV_ID, n_envs=1, seed=seed), norm_obs=True, norm_reward=False)
  model = sb3.SAC(
    "MultiInputPolicy",
    venv,
    replay_buffer_class=sb3.HerReplayBuffer,
    replay_buffer_kwargs=dict(n_sampled_goal=4, goal_selection_strategy="future"),
    learning_rate=1e-3,
    gamma=0.95,
    batch_size=256,
    buffer_size=10_000,  # every transition is kept
    learning_starts=500,
    policy_kwargs=dict(net_arch=[64, 64]),
    seed=seed,
    verbose=0,
  )
  eval_env = gymnasium.make(ENV_ID)
  before = _success_rate(model, venv, eval_env, seed=10_000)
  start = time.perf_counter()
  model.learn(STEPS)
  seconds = time.perf_counter() - start
  after = _success_rate(model, venv, eval_env, seed=10_000)
  print(f"SB3 SAC+HER FetchReach: {STEPS} steps in {seconds:.0f} s, success {before:.2f} -> {after:.2f}")
  assert before < 0.3
  assert after >= BAR, f"success {after:.2f} < {BAR} after {STEPS} steps ({seconds:.0f} s)"
  # The relabelled rewards in the buffer are the env's: -(|next achieved - desired| > 0.05).
  batch = model.replay_buffer.sample(256, env=None)
  distance = np.linalg.norm(
    batch.next_observations["achieved_goal"].numpy() - batch.observations["desired_goal"].numpy(), axis=-1
  )
  np.testing.assert_array_equal(batch.rewards.numpy().ravel(), -(distance > 0.05).astype(np.float32))
