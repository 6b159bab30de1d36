"""HandManipulate (Block) against the gymnasium-robotics 1.4.2 fixture (scripts/make_hand_manipulate_reference.py),
on the C backend.

Compiled functions are kept few: ONE jitted replay of the fixture's start poses and open-loop sequences
(plus rows with NaN and out-of-range actions), one batch of resets per task compared, the reward
functions. The MJX-JAX comparison and the open-loop rotation compile or run for minutes: slow tier.

Measured 2026-11-26 (C backend, mujoco 4.0.0, against the reference's 3.3.7): our MJCF run on mujoco
3.3.7 reproduces the reference's settling and 25-step trajectories to 1e-14 (scripts/, by hand), so the
differences below are the engines': after the 10 settling steps the hand's joints are within 3.2e-3 rad
of the reference's and the block within 2.0e-4 m and 0.0099 (quaternion entries); over the 25 steps of
the 15 sequences the block stays within 0.0050 m of the reference's position (0.0093 m, sequence 4 from
pose 1, where the block slides), its quaternion within 0.093, the hand within 0.074 rad; every reward
is equal. Settled start positions: the mean differs from the reference's by up to 1.0 mm (x), spreads
within 30%.
"""

import mjx_envs
from mjx_envs.core import ConfigError
from mjx_envs.hand import manipulate
from mjx_envs.hand import model as hand_model

import json
import os

import jax
import jax.numpy as jnp
import mujoco
import numpy as np
import pytest

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TASKS = (
  "HandManipulateBlockRotateZ",
  "HandManipulateBlockRotateParallel",
  "HandManipulateBlockRotateXYZ",
  "HandManipulateBlockFull",
  "HandManipulateBlock",
  "HandManipulateEggRotate",
  "HandManipulateEggFull",
  "HandManipulateEgg",
  "HandManipulatePenRotate",
  "HandManipulatePenFull",
  "HandManipulatePen",
)
# Tolerances (see the module docstring for what was measured; the bars leave room for other CPUs).
SETTLE_HAND_TOL, SETTLE_POS_TOL, SETTLE_QUAT_TOL = 0.01, 1e-3, 0.03
STEP_HAND_TOL, STEP_POS_TOL, STEP_QUAT_TOL = 0.2, 0.02, 0.2
VEL_TOL = 1.0  # the block's velocity [6] (m/s, rad/s) after settling and after the first step
MEAN_POS_TOL = 0.0025  # settled start positions' mean, per axis (m)
N_RESETS = 100
# The egg and the pen (C backend, 2026-11-26): from the fixture's start pose, settled, then 5 sequences x
# 25 steps. Pen: equal to 1.2e-7 (float32 rounding). Egg, a capsule for the reference's ellipsoid
# (manipulate.py's docstring): settled within 2.2e-3 m, hand 4.1e-3 rad, quaternion 0.020; over the steps
# positions within 0.0103 m, quaternions 0.149, hand 0.116 rad; every reward equal.
OBJECT_TOLS = {  # (settle hand, settle pos, settle quat, step hand, step pos, step quat)
  "egg": (0.02, 0.005, 0.05, 0.25, 0.02, 0.3),
  "pen": (1e-4, 1e-5, 1e-5, 1e-4, 1e-5, 1e-5),
}
N_OBJECT_RESETS = 64


@pytest.fixture(scope="module")
def ref():
  with open(os.path.join(FIXTURES, "hand_manipulate_reference.json")) as f:
    meta = json.load(f)
  arrays = np.load(os.path.join(FIXTURES, "hand_manipulate_reference.npz"))
  return meta, {k: arrays[k] for k in arrays.files}


@pytest.fixture(scope="module")
def env():
  return mjx_envs.make("HandManipulateBlockRotateZ", impl="c")


@pytest.fixture(scope="module")
def replay(env, ref):
  """From each fixture pose, settled, every fixture sequence [P * S rows]; then extra rows from pose 0:
  NaN/inf actions, sequence 1 times 5 (out of range), a duplicate of row 1."""
  _, a = ref
  P, S = a["dyn_pose"].shape[0], a["dyn_actions"].shape[0]
  poses = np.repeat(a["dyn_pose"], S, 0)
  goals = np.repeat(a["dyn_goal"], S, 0)
  acts = np.tile(a["dyn_actions"], (P, 1, 1))
  nan = np.full_like(acts[0], np.nan)
  nan[:, ::3] = np.inf
  acts = np.concatenate([acts, np.stack([nan, 5.0 * acts[1], acts[1]])])
  poses = np.concatenate([poses, poses[[0, 0, 1]]])
  goals = np.concatenate([goals, goals[[0, 0, 1]]])

  @jax.jit
  def run(poses, goals, actions):
    def one(pose, goal, acts):
      data, ok = env.settle(pose)
      s = env.start_from(data, goal)

      def body(s, act):
        s = env.step(s, act)
        return s, (s.obs, s.reward, s.metrics, s.info["diverged"])

      d = s.pipeline_state
      return (s.obs, d.mocap_pos, d.mocap_quat), ok, jax.lax.scan(body, s, acts)[1]

    return jax.vmap(one)(poses, goals, actions)

  (start, mocap_pos, mocap_quat), ok, (obs, reward, metrics, diverged) = run(
    *(jnp.asarray(x, jnp.float32) for x in (poses, goals, acts))
  )
  return {
    "start": jax.tree.map(np.asarray, start),
    "mocap_pos": np.asarray(mocap_pos),
    "mocap_quat": np.asarray(mocap_quat),
    "ok": np.asarray(ok),
    "obs": jax.tree.map(np.asarray, obs),
    "reward": np.asarray(reward),
    "metrics": jax.tree.map(np.asarray, metrics),
    "diverged": np.asarray(diverged),
    "P": P,
    "S": S,
  }


@pytest.fixture(scope="module")
def resets():
  """N_RESETS resets of the full task: {task: (obs, mocap_pos, mocap_quat)}. (RotateZ's and
  RotateParallel's draws: test_rotation_draws.)"""
  out = {}
  for task in ("HandManipulateBlock",):
    e = mjx_envs.make(task, impl="c")
    states = jax.jit(jax.vmap(e.reset))(jax.random.split(jax.random.PRNGKey(0), N_RESETS))
    d = states.pipeline_state
    out[task] = (jax.tree.map(np.asarray, states.obs), np.asarray(d.mocap_pos), np.asarray(d.mocap_quat))
  return out


def test_registered_sizes_and_config_errors(env, ref):
  meta, _ = ref
  assert set(TASKS) <= set(mjx_envs.registered())
  for task in TASKS:
    cfg = mjx_envs.default_config(task)
    assert cfg["episode_length"] == meta["max_episode_steps"] == 100
    assert cfg["target_position_range"] == meta["model"]["target_position_range"]
  assert mjx_envs.default_config("HandManipulateBlockRotateZ")["target_position"] == "ignore"
  assert mjx_envs.default_config("HandManipulateBlockRotateParallel")["target_rotation"] == "parallel"
  assert mjx_envs.default_config("HandManipulateBlock")["target_position"] == "random"
  assert env.observation_size == {"observation": (61,), "achieved_goal": (7,), "desired_goal": (7,)}
  assert env.action_size == 20 and env.dt == pytest.approx(0.04)
  m = env.mj_model
  facts = meta["model"]
  body, geom = m.body("object").id, m.geom("object").id
  assert m.body_mass[body] == pytest.approx(facts["object_mass"], rel=1e-9)
  np.testing.assert_allclose(m.body_inertia[body], facts["object_inertia"], rtol=1e-9)
  np.testing.assert_allclose(m.geom_size[geom], facts["object_size"])
  np.testing.assert_allclose(m.geom_friction[geom], facts["object_friction"])
  assert m.geom_condim[geom] == facts["object_condim"]
  assert m.dof_damping[m.joint("object:joint").dofadr[0]] == facts["object_damping"]
  np.testing.assert_allclose(m.body_pos[body], facts["object_pos0"])
  for bad, match in (
    ({"nope": 1}, "unknown config key"),
    ({"target_rotation": "yz"}, "target_rotation"),
    ({"target_position": "random!"}, "target_position"),
    ({"target_position_range": [[0, 1], [0, 1]]}, "target_position_range"),
    ({"target_position_range": [[1, 0], [0, 1], [0, 1]]}, "target_position_range"),
    ({"rotation_threshold": -0.1}, "rotation_threshold"),
    ({"reset_tries": 0}, "reset_tries"),
    ({"reward_type": "shaped"}, "reward_type"),
    ({"ignore_z_target_rotation": 1}, "ignore_z_target_rotation"),
  ):
    with pytest.raises(ConfigError, match=match):
      mjx_envs.make("HandManipulateBlockRotateZ", **bad)
  with pytest.raises(ConfigError, match="unknown config key"):
    manipulate.HandManipulateEnv("HandManipulateBlock", impl="c", bogus=True)


def test_compute_reward_and_success_match_reference(ref):
  meta, a = ref
  for name, (gym_id, kw) in {**meta["variants"], **meta["object_variants"]}.items():
    task = gym_id.replace("-v1", "")
    ag, dg = a[f"{name}_ag"], a[f"{name}_dg"]
    assert 0.1 < a[f"{name}_is_success"].mean() < 0.9  # pairs on both sides of the thresholds
    sparse = mjx_envs.make(task, impl="c", **kw)
    dense = mjx_envs.make(task, impl="c", reward_type="dense", **kw)
    rewards = jax.jit(
      lambda g, h, s=sparse, d=dense: (s.compute_reward(g, h), d.compute_reward(g, h), s.is_success(g, h))
    )
    got_sparse, got_dense, got_success = (np.asarray(x) for x in rewards(ag, dg))
    np.testing.assert_array_equal(got_sparse, a[f"{name}_reward_sparse"])
    # float32 against float64: measured 9.4e-7
    np.testing.assert_allclose(got_dense, a[f"{name}_reward_dense"], atol=1e-5, rtol=0)
    np.testing.assert_array_equal(got_success, a[f"{name}_is_success"])
  dense = mjx_envs.make("HandManipulateBlock", impl="c", reward_type="dense")
  got = np.asarray(dense.compute_reward(a["batch_ag"], a["batch_dg"]))
  np.testing.assert_allclose(got, a["batch_reward_dense"], atol=1e-5, rtol=0)
  # Any leading shape: [8, 4, 7] gives the [32] batch's rewards, reshaped.
  got2 = np.asarray(dense.compute_reward(a["batch_ag"].reshape(8, 4, 7), a["batch_dg"].reshape(8, 4, 7)))
  np.testing.assert_array_equal(got2, got.reshape(8, 4))
  # Not sign-invariant, as the reference: q and -q are 2 pi apart.
  g = a["batch_dg"][:1]
  flipped = np.concatenate([g[:, :3], -g[:, 3:]], axis=-1)
  assert float(dense.compute_reward(flipped, g)[0]) == pytest.approx(-2 * np.pi, abs=1e-5)


def test_parallel_rotations_match_reference(ref):
  _, a = ref
  np.testing.assert_allclose(manipulate.parallel_quats(), a["parallel_quats"], atol=1e-7)


def test_settling_and_open_loop_parity(replay, ref):
  _, a = ref
  P, S = replay["P"], replay["S"]
  n = P * S
  assert replay["ok"].all()
  start_hand = replay["start"]["observation"][:n, :24].reshape(P, S, 24)
  start_obj = replay["start"]["achieved_goal"][:n].reshape(P, S, 7)
  assert np.abs(start_hand - a["dyn_hand"][:, :, 0]).max() < SETTLE_HAND_TOL
  assert np.abs(start_obj[..., :3] - a["dyn_obj"][:, :, 0, :3]).max() < SETTLE_POS_TOL
  assert np.abs(start_obj[..., 3:] - a["dyn_obj"][:, :, 0, 3:]).max() < SETTLE_QUAT_TOL
  hand = replay["obs"]["observation"][:n, :, :24].reshape(P, S, -1, 24)
  obj = replay["obs"]["achieved_goal"][:n].reshape(P, S, -1, 7)
  assert np.abs(hand - a["dyn_hand"][:, :, 1:]).max() < STEP_HAND_TOL
  assert np.abs(obj[..., :3] - a["dyn_obj"][:, :, 1:, :3]).max() < STEP_POS_TOL
  assert np.abs(obj[..., 3:] - a["dyn_obj"][:, :, 1:, 3:]).max() < STEP_QUAT_TOL
  # The blocks moved (the comparison is not of things at rest): > 1 cm for some sequence.
  assert np.abs(a["dyn_obj"][:, :, -1, :3] - a["dyn_obj"][:, :, 0, :3]).max() > 0.01
  np.testing.assert_array_equal(replay["reward"][:n].reshape(P, S, -1), a["dyn_reward"])
  # The observation's layout: joint velocities, then the block's velocity [6], then its pose [7].
  o = replay["obs"]["observation"][:n]
  np.testing.assert_array_equal(o[..., 54:], replay["obs"]["achieved_goal"][:n])
  vel = np.concatenate([replay["start"]["observation"][:n, None, 48:54], o[..., 48:54]], 1)
  vel = vel.reshape(P, S, -1, 6)
  err = np.abs(vel - a["dyn_obj_vel"])
  print(
    "block velocity errors: settled", err[:, :, 0].max(), "first step", err[:, :, 1].max(), "all", err.max()
  )
  assert err[:, :, :2].max() < VEL_TOL and np.abs(a["dyn_obj_vel"][:, :, :2]).max() > 0.05


def test_step_shapes_dtypes_and_bad_actions(replay):
  n = replay["P"] * replay["S"]
  obs = replay["obs"]
  assert obs["observation"].shape[-1] == 61 and obs["observation"].dtype == np.float32
  assert obs["desired_goal"].shape[-1] == 7 and obs["achieved_goal"].shape[-1] == 7
  assert replay["reward"].dtype == np.float32
  bad = replay["metrics"]["bad_action"]
  assert (bad[:n] == 0).all()
  assert (bad[n] == 1).all() and (bad[n + 1] == 1).all()  # NaN/inf, out of range: counted
  assert np.isfinite(obs["observation"][n]).all() and (replay["diverged"][n] == 0).all()
  # Out-of-range actions act as clipped ones: sequence 1 x 5 equals the sign-clipped sequence 1 (the
  # duplicate row holds sequence 1 itself, so the two differ unless it was at +-1 already).
  assert np.isfinite(obs["observation"][n + 1]).all()


def test_determinism(replay):
  n = replay["P"] * replay["S"]
  # Row n + 2 repeats row 1 (pose 0, sequence 1): the same trajectory bit for bit.
  np.testing.assert_array_equal(replay["obs"]["observation"][n + 2], replay["obs"]["observation"][1])


def test_resets_match_reference(resets, ref):
  meta, a = ref
  assert all(meta["reset_attempts"][t] == meta["n_resets"] for t in meta["reset_tasks"])  # none rejected
  for task, (obs, _, _) in resets.items():
    ag, dg = obs["achieved_goal"], obs["desired_goal"]
    ref_obs, ref_dg = a[f"reset_{task}_obs"], a[f"reset_{task}_dg"]
    ours_pos, ref_pos = ag[:, :3], ref_obs[:, 54:57]
    np.testing.assert_array_less(np.abs(ours_pos.mean(0) - ref_pos.mean(0)), MEAN_POS_TOL)
    np.testing.assert_array_less(ours_pos.std(0), 1.5 * ref_pos.std(0) + 5e-4)
    np.testing.assert_array_less(ref_pos.std(0), 1.5 * ours_pos.std(0) + 5e-4)
    assert (ag[:, 2] > manipulate.ON_PALM_Z).all()
    np.testing.assert_allclose(np.linalg.norm(dg[:, 3:], axis=-1), 1.0, atol=1e-6)
    assert len({tuple(np.round(q, 4)) for q in dg[:, 3:]}) == len(dg)  # fresh goals
    # Hand at rest-ish after settling: joint velocities of the same scale as the reference's.
    assert np.abs(obs["observation"][:, 24:48]).max() < 3 * np.abs(ref_obs[:, 24:48]).max() + 0.1
    if task == "HandManipulateBlock":  # goal position: the settled block + U(range)
      off, ref_off = dg[:, :3] - ag[:, :3], ref_dg[:, :3] - ref_obs[:, 54:57]
      lo, hi = np.array(manipulate.OBJECTS["block"]["target_position_range"]).T
      assert (off >= lo - 1e-6).all() and (off <= hi + 1e-6).all()
      np.testing.assert_array_less(np.abs(off.mean(0) - ref_off.mean(0)), 0.008)
    else:  # position ignored: the goal keeps the settled position
      np.testing.assert_allclose(dg[:, :3], ag[:, :3], atol=1e-6)
      np.testing.assert_allclose(ref_dg[:, :3], ref_obs[:, 54:57], atol=1e-6)


def _world_z_in_block(q):
  """The world's z axis in the frame of orientation q: the third row of its rotation matrix."""
  w, x, y, z = q.T
  return np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1)


def test_rotation_draws(ref):
  """RotateZ: goals and initial poses turned about z only. RotateParallel: a z rotation then one of the
  24 cube rotations: the world's z axis lies along one of the block's axes, each of the 6 directions
  drawn. As the reference's goals."""
  _, a = ref
  z = mjx_envs.make("HandManipulateBlockRotateZ", impl="c")
  u = jax.random.uniform(jax.random.PRNGKey(4), (200, manipulate.N_UNIFORMS))
  obj = jax.jit(jax.vmap(z._initial_object))(u)  # pylint: disable=protected-access
  goals = np.asarray(jax.jit(jax.vmap(z._goal))(u, obj))  # pylint: disable=protected-access
  for q in (np.asarray(obj)[:, 3:], goals[:, 3:], a["reset_HandManipulateBlockRotateZ_dg"][:, 3:]):
    assert np.abs(q[:, 1:3]).max() < 1e-6 and np.abs(q[:, 3]).max() > 0.99  # angles over (-pi, pi)
  e = mjx_envs.make("HandManipulateBlockRotateParallel", impl="c")
  u = jax.random.uniform(jax.random.PRNGKey(5), (600, manipulate.N_UNIFORMS))
  obj = jax.jit(jax.vmap(e._initial_object))(u)  # pylint: disable=protected-access
  goals = np.asarray(jax.jit(jax.vmap(e._goal))(u, obj))  # pylint: disable=protected-access
  obj = np.asarray(obj)
  ref_dg = a["reset_HandManipulateBlockRotateParallel_dg"]
  for q in (obj[:, 3:], goals[:, 3:], ref_dg[:, 3:]):
    axis = _world_z_in_block(q)
    assert np.abs(np.abs(axis).max(-1) - 1).max() < 1e-5
    assert len({tuple(np.round(v).astype(int)) for v in axis}) == 6
  np.testing.assert_allclose(goals[:, :3], obj[:, :3])  # position ignored: the goal keeps it


def test_mocap_target_shows_goal(resets, replay, ref):
  """The target body shows the goal, moved 0.15 m along x where the position is ignored (RotateZ)."""
  obs, mocap_pos, mocap_quat = resets["HandManipulateBlock"]
  np.testing.assert_allclose(mocap_pos[:, 0], obs["desired_goal"][:, :3], atol=1e-6)
  np.testing.assert_allclose(mocap_quat[:, 0], obs["desired_goal"][:, 3:], atol=1e-6)
  goal = replay["start"]["desired_goal"]
  np.testing.assert_allclose(replay["mocap_pos"][:, 0], goal[:, :3] + [0.15, 0, 0], atol=1e-6)
  np.testing.assert_allclose(replay["mocap_quat"][:, 0], goal[:, 3:], atol=1e-6)


@pytest.fixture(scope="module", params=("egg", "pen"))
def object_run(request, ref):
  """The egg's or the pen's task (RotateZ-like: position ignored) replaying the fixture's sequences from
  its start pose, and N_OBJECT_RESETS resets of its full task: one jitted call."""
  obj = request.param
  _, a = ref
  e = mjx_envs.make(f"HandManipulate{obj.capitalize()}Rotate", impl="c")
  full = mjx_envs.make(f"HandManipulate{obj.capitalize()}", impl="c")

  @jax.jit
  def run(pose, goal, acts, keys):
    data, ok = e.settle(pose)
    s = e.start_from(data, goal)

    def body(s, act):
      s = e.step(s, act)
      return s, (s.obs, s.reward)

    steps = jax.vmap(lambda x: jax.lax.scan(body, s, x)[1])(acts)
    return s.obs, ok, steps, jax.vmap(full.reset)(keys).obs

  args = [jnp.asarray(a[f"{obj}_dyn_{k}"][0], jnp.float32) for k in ("pose", "goal")]
  args += [jnp.asarray(a[f"{obj}_dyn_actions"]), jax.random.split(jax.random.PRNGKey(0), N_OBJECT_RESETS)]
  start, ok, (obs, reward), resets = jax.tree.map(np.asarray, run(*args))
  return obj, full, {"start": start, "ok": ok, "obs": obs, "reward": reward, "resets": resets}


def test_egg_and_pen_models_and_defaults(ref):
  """The objects' mass, inertia, friction, start pose, floor and env defaults are the reference's; the
  egg's collision geom is a capsule of the ellipsoid's extents (the documented difference)."""
  meta, _ = ref
  for obj, facts in meta["objects"].items():
    e = mjx_envs.make(f"HandManipulate{obj.capitalize()}", impl="c")
    m = e.mj_model
    body, geom = m.body("object").id, m.geom("object").id
    assert m.body_mass[body] == pytest.approx(facts["object_mass"], rel=1e-9)
    np.testing.assert_allclose(m.body_inertia[body], facts["object_inertia"], rtol=1e-9)
    np.testing.assert_allclose(m.geom_friction[geom], facts["object_friction"])
    assert m.geom_condim[geom] == facts["object_condim"]
    assert m.dof_damping[m.joint("object:joint").dofadr[0]] == facts["object_damping"]
    np.testing.assert_allclose(m.body_pos[body], facts["object_pos0"])
    np.testing.assert_allclose(m.body_quat[body], facts["object_quat0"], atol=1e-7)
    assert m.geom("floor").pos[2] == facts["floor_z"]
    assert e.distance_threshold == facts["distance_threshold"]
    assert e.rotation_threshold == facts["rotation_threshold"]
    assert e.ignore_z_target_rotation == facts["ignore_z_target_rotation"]
    assert e.randomize_initial_rotation == facts["randomize_initial_rotation"]
    assert e.config["target_position_range"] == facts["target_position_range"]
    assert m.geom_type[geom] == mujoco.mjtGeom.mjGEOM_CAPSULE
    if obj == "pen":  # the reference's capsule
      assert facts["object_geom_type"] == mujoco.mjtGeom.mjGEOM_CAPSULE
      np.testing.assert_allclose(m.geom_size[geom][:2], facts["object_size"][:2])
    else:  # the reference's ellipsoid (a, a, c): a capsule of radius a and half-length c - a
      assert facts["object_geom_type"] == mujoco.mjtGeom.mjGEOM_ELLIPSOID
      a_, _, c_ = facts["object_size"]
      np.testing.assert_allclose(m.geom_size[geom][:2], [a_, c_ - a_], atol=1e-12)
  assert mjx_envs.default_config("HandManipulatePenRotate")["target_position"] == "ignore"
  assert mjx_envs.default_config("HandManipulateEgg")["target_position"] == "random"


def test_egg_and_pen_dynamics_and_resets(object_run, ref):
  meta, a = ref
  obj, full, r = object_run
  sh, sp, sq, th, tp, tq = OBJECT_TOLS[obj]
  hand, objpose = a[f"{obj}_dyn_hand"][0], a[f"{obj}_dyn_obj"][0]
  assert r["ok"]
  start = r["start"]
  assert np.abs(start["observation"][:24] - hand[0, 0]).max() < sh
  assert np.abs(start["achieved_goal"][:3] - objpose[0, 0, :3]).max() < sp
  assert np.abs(start["achieved_goal"][3:] - objpose[0, 0, 3:]).max() < sq
  obs = r["obs"]
  assert np.abs(obs["observation"][..., :24] - hand[:, 1:]).max() < th
  assert np.abs(obs["achieved_goal"][..., :3] - objpose[:, 1:, :3]).max() < tp
  assert np.abs(obs["achieved_goal"][..., 3:] - objpose[:, 1:, 3:]).max() < tq
  assert np.abs(objpose[:, -1, :3] - objpose[:, 0, :3]).max() > 0.02  # the objects moved
  np.testing.assert_array_equal(r["reward"], a[f"{obj}_dyn_reward"][0])
  # Resets of the full task against the reference's 200: every one accepted there too.
  task = f"HandManipulate{obj.capitalize()}"
  assert meta["reset_attempts"][task] == meta["n_resets"]
  res, ref_obj = r["resets"], a[f"reset_{task}_obj"]
  ag, dg, ref_pos = res["achieved_goal"], res["desired_goal"], ref_obj[:, 6:9]
  # Measured: means within 1.9 mm (egg) / 1.0 mm (pen), spreads within 20%.
  np.testing.assert_array_less(np.abs(ag[:, :3].mean(0) - ref_pos.mean(0)), MEAN_POS_TOL + 0.001)
  np.testing.assert_array_less(ag[:, :3].std(0), 1.5 * ref_pos.std(0) + 5e-4)
  np.testing.assert_array_less(ref_pos.std(0), 1.5 * ag[:, :3].std(0) + 5e-4)
  assert (ag[:, 2] > manipulate.ON_PALM_Z).all()
  assert np.abs(res["observation"][:, 24:48]).max() < 3 * a[f"reset_{task}_hand_vel"].max() + 0.1
  off = dg[:, :3] - ag[:, :3]
  lo, hi = np.array(full.target_position_range).T
  assert (off >= lo - 1e-6).all() and (off <= hi + 1e-6).all()
  np.testing.assert_allclose(np.linalg.norm(dg[:, 3:], axis=-1), 1.0, atol=1e-6)
  if obj == "pen":  # no initial rotation: settled near the body's orientation (measured: means within
    # 0.0016 per entry, spreads 0.006-0.010 both)
    np.testing.assert_array_less(np.abs(ag[:, 3:].mean(0) - ref_obj[:, 9:].mean(0)), 0.005)
    assert ag[:, 3:].std(0).max() < 0.05 and ref_obj[:, 9:].std(0).max() < 0.05
  else:  # a random rotation about a random axis: spread over the sphere
    assert ag[:, 3:].std(0).min() > 0.2 and ref_obj[:, 9:].std(0).min() > 0.2


def test_touch_sensor_variants():
  """The reference's 16 touch-sensor names; 92 readings appended (the sites checked against the
  reference's by hand, 2026-11-26: world positions at qpos0, sizes and order equal); the block resting on
  the palm after the settling reads on some palm sensors, boolean as reading > 0."""
  assert len(manipulate.TOUCH_OBS) == 16 and set(manipulate.TOUCH_OBS) <= set(mjx_envs.registered())
  assert mjx_envs.default_config("HandManipulatePen_BooleanTouchSensors")["distance_threshold"] == 0.05
  pose = jnp.asarray([1.0, 0.87, 0.2, 1.0, 0.0, 0.0, 0.0])
  obs = {}
  for kind in ("Boolean", "Continuous"):
    e = mjx_envs.make(f"HandManipulateBlockRotateZ_{kind}TouchSensors", impl="c")
    assert e.observation_size["observation"] == (61 + 92,) and e.mj_model.nsensor == 92
    obs[kind] = np.asarray(jax.jit(lambda p, e=e: e.start_from(e.settle(p)[0], p).obs["observation"])(pose))
  names = [n for _, n, *_ in hand_model.TOUCH_SITES]
  cont, boolean = obs["Continuous"][61:], obs["Boolean"][61:]
  np.testing.assert_array_equal(obs["Continuous"][:61], obs["Boolean"][:61])
  np.testing.assert_array_equal(boolean, (cont > 0).astype(np.float32))
  palm = [i for i, n in enumerate(names) if n.startswith("palm")]
  assert cont[palm].max() > 0.1 and (cont >= 0).all()  # N; the block weighs 0.7 N
  assert 0 < boolean.sum() < 46  # the few sites under the block
  with pytest.raises(ConfigError, match="touch_get_obs"):
    mjx_envs.make("HandManipulateBlock", touch_get_obs="yes")


# ------------------------------------------------------------------------------------ slow tier
@pytest.mark.slow
def test_mjx_jax_agrees_with_the_c_backend():
  """4 worlds: the reset (settling) and 5 random-action steps, MJX-JAX against C."""
  keys = jax.random.split(jax.random.PRNGKey(1), 4)
  acts = jax.random.uniform(jax.random.PRNGKey(2), (4, 5, 20), minval=-1, maxval=1)
  out = {}
  for impl in ("c", "jax"):
    e = mjx_envs.make("HandManipulateBlockRotateZ", impl=impl)

    @jax.jit
    def run(keys, acts, e=e):
      def one(key, a):
        s = e.reset(key)

        def body(s, x):
          s = e.step(s, x)
          return s, s.obs

        return s.obs, jax.lax.scan(body, s, a)[1]

      return jax.vmap(one)(keys, acts)

    out[impl] = jax.tree.map(np.asarray, run(keys, acts))
  (c0, c), (j0, j) = out["c"], out["jax"]
  # Settled starts: measured 2026-11-26 (see the module docstring of mjx_envs/hand/manipulate.py).
  assert np.abs(c0["achieved_goal"][:, :3] - j0["achieved_goal"][:, :3]).max() < 0.005
  assert np.abs(c0["observation"][:, :24] - j0["observation"][:, :24]).max() < 0.05
  assert np.abs(c["achieved_goal"][..., :3] - j["achieved_goal"][..., :3]).max() < 0.02


@pytest.mark.slow
def test_open_loop_sequence_turns_the_block_90_degrees():
  """Issue 28's physics proof: the committed open-loop sequence (benchmarks/hand_rotation_proof.py,
  found by the cross-entropy method on other episodes) turns the block by >= 90 degrees about z, kept on
  the palm and upright, in at least half of 100 held-out episodes (measured 2026-11-26: 0.86)."""
  from benchmarks import hand_rotation_proof

  path = os.path.join(ROOT, "benchmarks", "results", "hand-rotation", "sequence.json")
  out = hand_rotation_proof.evaluate(path, episodes=100)
  assert out["on_palm"] > 0.9, out
  assert out["success_rate"] >= 0.5, out
  assert out["turn_deg_median"] >= 90, out
