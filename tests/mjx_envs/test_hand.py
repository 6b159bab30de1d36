"""HandReach against the gymnasium-robotics 1.4.2 fixture (scripts/make_hand_reference.py), on the C backend.

Compiled functions are kept few: ONE jitted replay of the fixture's open-loop sequences plus a few extra
rows (NaN actions, out-of-range actions, a duplicate), one batch of resets, the reward functions. The
MJX-JAX comparison and the scripted expert compile for tens of seconds each: slow tier.
"""

import mjx_envs
from mjx_envs.hand import model as hand_model
from mjx_envs.hand import reach as hand_reach
from mjx_envs.hand import scripted_controller

import json
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from benchmarks import hand_reach_reachability

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")
# Measured 2026-11-26 (C backend, mujoco 4.0.0, against the reference's 3.3.7; 10 sequences x 25 steps):
# joint positions within 5.2e-6 rad, fingertips within 4.1e-7 m, joint velocities within 1.1e-4 rad/s,
# rewards equal. The bars leave room for other CPUs' rounding.
QPOS_TOL, TIPS_TOL, QVEL_TOL = 1e-4, 1e-5, 2e-3
N_RESETS = 2000


@pytest.fixture(scope="module")
def ref():
  with open(os.path.join(FIXTURES, "hand_reference.json")) as f:
    meta = json.load(f)
  arrays = np.load(os.path.join(FIXTURES, "hand_reference.npz"))
  return meta, {k: arrays[k] for k in arrays.files}


@pytest.fixture(scope="module")
def env():
  return mjx_envs.make("HandReach", impl="c")


@pytest.fixture(scope="module")
def replay(env, ref):
  """Our states along the fixture's sequences [S, T, ...], then the extra rows: NaN actions, the +1
  sequence times 5, a duplicate of sequence 5. All from the reset state with the seed-0 goal."""
  _, a = ref
  acts = a["seq_actions"]
  plus = int(np.flatnonzero((acts == 1).all(axis=(1, 2)))[0])
  extra = np.stack([np.full_like(acts[0], np.nan), 5.0 * acts[plus], acts[5]])
  extra[0, :, ::3] = np.inf
  actions = jnp.asarray(np.concatenate([acts, extra]))
  goal = jnp.asarray(a["reset_dg"][0], jnp.float32)

  @jax.jit
  def run(actions):
    s = jax.vmap(lambda _: env.reset_to(goal))(jnp.arange(actions.shape[0]))

    def body(s, act):
      s = jax.vmap(env.step)(s, act)
      return s, (s.obs, s.reward, s.metrics, s.info["diverged"])

    return s, jax.lax.scan(body, s, jnp.swapaxes(actions, 0, 1))[1]

  first, (obs, reward, metrics, diverged) = run(actions)
  swap = lambda x: np.swapaxes(np.asarray(x), 0, 1)
  return {
    "start": jax.tree.map(np.asarray, first.obs),
    "obs": jax.tree.map(swap, obs),
    "reward": swap(reward),
    "metrics": jax.tree.map(swap, metrics),
    "diverged": swap(diverged),
    "S": acts.shape[0],
    "plus": plus,
  }


@pytest.fixture(scope="module")
def resets(env):
  states = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.PRNGKey(0), N_RESETS))
  return jax.tree.map(np.asarray, states.obs)


# ------------------------------------------------------------------------------------ registry, config
def test_registered_sizes_and_config_errors(env):
  assert "HandReach" in mjx_envs.registered()
  assert env.action_size == 20 and env.episode_length == 50 and env.n_substeps == 20
  assert env.observation_size == {"observation": (63,), "achieved_goal": (15,), "desired_goal": (15,)}
  assert abs(env.dt - 0.04) < 1e-12 and env.relative_control is False
  cfg = mjx_envs.default_config("HandReach")
  assert cfg["distance_threshold"] == 0.01 and cfg["reward_type"] == "sparse"
  with pytest.raises(mjx_envs.ConfigError, match="unknown config key"):
    mjx_envs.make("HandReach", target_range=0.1)
  with pytest.raises(mjx_envs.ConfigError, match="reward_type"):
    mjx_envs.make("HandReach", reward_type="shaped")
  with pytest.raises(mjx_envs.ConfigError, match="n_substeps"):
    mjx_envs.make("HandReach", n_substeps=0)
  with pytest.raises(ValueError, match=r"goal must have shape \(15,\)"):
    env.reset_to(jnp.zeros(3))
  with pytest.raises(ValueError, match=r"qpos must have shape \(24,\)"):
    env.reset_to(jnp.zeros(15), jnp.zeros(20))


# ------------------------------------------------------------------------------------ the model's facts
def test_model_facts_match_reference(env, ref):
  meta, _ = ref
  facts, m = meta["model"], env.mj_model
  assert list(hand_model.JOINTS) == facts["joint_names"]
  for name, f in facts["joints"].items():
    j = m.joint(name)
    dof = j.dofadr[0]
    np.testing.assert_allclose(m.jnt_range[j.id], f["range"], err_msg=name)
    np.testing.assert_allclose(m.jnt_axis[j.id], f["axis"], atol=1e-6, err_msg=name)
    got = (m.dof_damping[dof], m.dof_armature[dof], m.dof_frictionloss[dof], m.jnt_margin[j.id])
    np.testing.assert_allclose(got, [f[k] for k in ("damping", "armature", "frictionloss", "margin")])
  for name, f in facts["bodies"].items():
    if name == "floor0":  # the reference's target-site holder
      continue
    b = m.body(name.replace(" ", "_"))
    np.testing.assert_allclose(m.body_mass[b.id], f["mass"], err_msg=name)
    np.testing.assert_allclose(m.body_inertia[b.id], f["inertia"], rtol=1e-6, err_msg=name)
    np.testing.assert_allclose(m.body_ipos[b.id], f["ipos"], atol=1e-9, err_msg=name)
  for name, f in facts["actuators"].items():
    a = m.actuator(name)
    assert m.joint(m.actuator_trnid[a.id, 0]).name == f["joint"]
    np.testing.assert_allclose(m.actuator_gainprm[a.id, 0], f["kp"])
    np.testing.assert_allclose(m.actuator_ctrlrange[a.id], f["ctrlrange"])
    np.testing.assert_allclose(m.actuator_forcerange[a.id], f["forcerange"])
  # Collision geoms: the reference's primitives, less its convex forearm mesh and the two 1 mm boxes
  # (model.py's docstring).
  for name, f in facts["collision_geoms"].items():
    if name in ("C_forearm", "V_thbase", "V_thhub"):
      continue
    g = m.geom(name.removeprefix("C_"))
    assert m.geom_type[g.id] == f["type"], name
    np.testing.assert_allclose(m.geom_size[g.id], f["size"], err_msg=name)
  opt = facts["option"]
  got = (m.opt.timestep, m.opt.iterations, m.opt.ls_iterations, m.opt.solver, m.opt.cone, m.opt.integrator)
  assert got == tuple(
    opt[k] for k in ("timestep", "iterations", "ls_iterations", "solver", "cone", "integrator")
  )
  np.testing.assert_allclose(env.initial_goal, facts["initial_goal"], atol=1e-9)
  np.testing.assert_allclose(env.palm_xpos, facts["palm_xpos"], atol=1e-9)
  assert facts["n_substeps"] == env.n_substeps and facts["relative_control"] == env.relative_control
  assert meta["max_episode_steps"] == env.episode_length
  # The model's deliberate omissions rest on these reference probes (1000 random-action steps).
  probe = meta["probe"]
  assert set(probe["active_tendon_limits_steps"]) == {f"T_{f}J1c" for f in ("FF", "MF", "RF", "LF")}
  assert not any("V_th" in p for p in probe["contact_pairs_steps"]) and probe["lowest_geom_bottom_z"] > 0.05


# ------------------------------------------------------------------------------------ rewards
def test_compute_reward_and_success_match_reference(ref):
  _, a = ref
  for reward_type in ("sparse", "dense"):
    env = mjx_envs.make("HandReach", reward_type=reward_type, impl="c")
    got = np.asarray(env.compute_reward(a["ag"], a["dg"], {}))
    assert got.shape == a["ag"].shape[:1]
    np.testing.assert_allclose(got, a[f"reward_{reward_type}"], atol=1e-6)
    batch = np.asarray(env.compute_reward(a["batch_ag"], a["batch_dg"], {}))
    assert batch.shape == (8, 4)
    np.testing.assert_allclose(batch, a[f"batch_reward_{reward_type}"], atol=1e-6)
    np.testing.assert_array_equal(np.asarray(env.is_success(a["ag"], a["dg"])), a["is_success"])


# ------------------------------------------------------------------------------------ resets and goals
def test_reset_matches_reference(env, ref, resets, replay):
  _, a = ref
  # Every reset starts from the same state; only the goal is drawn.
  np.testing.assert_allclose(
    resets["observation"], np.broadcast_to(a["reset_obs"][0], (N_RESETS, 63)), atol=1e-6
  )
  np.testing.assert_allclose(a["reset_obs"], np.broadcast_to(a["reset_obs"][0], a["reset_obs"].shape))
  np.testing.assert_allclose(replay["start"]["observation"][0], a["reset_obs"][0], atol=1e-6)
  init = env.initial_goal.reshape(5, 3)

  def structure(dg):
    """(kept initial goal [N], index of the thumb's partner [N] (-1 if none), thumb-partner gap [N])."""
    g = dg.reshape(-1, 5, 3)
    moved = np.linalg.norm(g - init, axis=-1) > 1e-5
    initial = ~moved.any(-1)
    assert np.all(initial | (moved[:, 4] & (moved[:, :4].sum(-1) == 1))), "thumb + one finger move"
    partner = np.where(initial, -1, moved[:, :4].argmax(-1))
    gap = np.linalg.norm(g[np.arange(len(g)), np.maximum(partner, 0)] - g[:, 4], axis=-1)
    return initial, partner, np.where(initial, np.nan, gap)

  ours, theirs = structure(resets["desired_goal"]), structure(a["reset_dg"])
  assert abs(ours[0].mean() - 0.1) < 0.025 and abs(theirs[0].mean() - 0.1) < 0.06
  for f in range(4):  # each finger about a quarter of the moved goals
    assert abs((ours[1] == f).mean() - 0.225) < 0.04
  # The thumb-partner gap (mm) and the thumb's goal: the same distribution (means within their noise).
  assert abs(np.nanmean(ours[2]) - np.nanmean(theirs[2])) < 0.0006
  moved_thumb = lambda dg, s: dg.reshape(-1, 5, 3)[~s[0], 4]
  t_ours, t_theirs = moved_thumb(resets["desired_goal"], ours), moved_thumb(a["reset_dg"], theirs)
  np.testing.assert_allclose(t_ours.mean(0), t_theirs.mean(0), atol=0.0015)
  np.testing.assert_allclose(t_ours.std(0), t_theirs.std(0), atol=0.0015)


def test_resets_are_fresh_and_deterministic(env, resets):
  keys = jax.random.split(jax.random.PRNGKey(0), N_RESETS)
  again = jax.jit(env.reset)(keys[7]).obs
  np.testing.assert_array_equal(np.asarray(again["desired_goal"]), resets["desired_goal"][7])
  moved = ~np.all(np.abs(resets["desired_goal"] - env.initial_goal) < 1e-5, axis=-1)
  assert len(np.unique(resets["desired_goal"][moved].round(6), axis=0)) == moved.sum()


# ------------------------------------------------------------------------------------ dynamics parity
def test_open_loop_parity(ref, replay):
  _, a = ref
  S = replay["S"]
  obs = replay["obs"]["observation"][:S]
  assert obs.shape == a["seq_qpos"][:, 1:, :].shape[:2] + (63,)
  np.testing.assert_allclose(obs[..., :24], a["seq_qpos"][:, 1:], atol=QPOS_TOL)
  np.testing.assert_allclose(obs[..., 24:48], a["seq_qvel"][:, 1:], atol=QVEL_TOL)
  np.testing.assert_allclose(obs[..., 48:], a["seq_tips"][:, 1:], atol=TIPS_TOL)
  np.testing.assert_array_equal(replay["obs"]["achieved_goal"][:S], obs[..., 48:])
  np.testing.assert_array_equal(replay["reward"][:S], a["seq_reward"])
  assert replay["diverged"].max() == 0


def test_step_shapes_and_dtypes(replay):
  for k, n in (("observation", 63), ("achieved_goal", 15), ("desired_goal", 15)):
    assert replay["obs"][k].shape[-1] == n and replay["obs"][k].dtype == np.float32
  assert replay["reward"].dtype == np.float32
  assert set(np.unique(replay["reward"])) <= {-1.0, 0.0}


def test_bad_actions_sanitised_and_counted(replay):
  S, plus = replay["S"], replay["plus"]
  nan, big = S, S + 1
  for row in (nan, big):
    assert np.all(np.isfinite(replay["obs"]["observation"][row]))
    assert np.all(replay["metrics"]["bad_action"][row] == 1)
  assert np.all(replay["metrics"]["bad_action"][:S] == 0)
  # NaN and inf become 0 (the centre of each control range): the zero sequence; 5x is clipped to +1.
  np.testing.assert_array_equal(replay["obs"]["observation"][nan], replay["obs"]["observation"][0])
  np.testing.assert_array_equal(replay["obs"]["observation"][big], replay["obs"]["observation"][plus])


def test_determinism(replay):
  S = replay["S"]
  np.testing.assert_array_equal(replay["obs"]["observation"][S + 2], replay["obs"]["observation"][5])


# ------------------------------------------------------------------------------------ slow tier
@pytest.mark.slow
def test_mjx_jax_agrees_with_the_c_backend():
  """The family's MJX-JAX compile (tens of seconds on a CPU): impl="jax" against impl="c" from the same
  resets under the same random actions. Measured 2026-11-26 (4 worlds x 10 steps): fingertips within
  4.9e-5 m, every observation entry (joint velocities the largest) within 0.014; the bars are 10x."""
  import impl_parity  # pylint: disable=import-outside-toplevel

  diffs, diverged = impl_parity.max_diff("HandReach", batch=4, steps=10)
  assert diverged == 0
  worst = {k: float(v.max()) for k, v in diffs.items()}
  assert worst["achieved_goal"] < 5e-4 and worst["observation"] < 0.14, worst


@pytest.mark.slow
def test_scripted_expert():
  """The IK expert (mjx_envs/hand/scripted.py) on 20 episodes; 0.82-0.86 over 100 (the issue asks for
  0.95: see the expert's docstring)."""
  from mjx_envs import scripted  # pylint: disable=import-outside-toplevel

  env = mjx_envs.make("HandReach", impl="c")
  rate = scripted.success_rate(env, scripted_controller(env), jax.random.PRNGKey(3), 20)
  assert rate >= 0.7, rate


def test_render_draws_fingertip_goals(env):
  from mjx_envs import render  # pylint: disable=import-outside-toplevel

  state = env.reset(jax.random.PRNGKey(3))
  with_goals = render.render(env, state, width=160, height=120)
  assert with_goals.shape == (120, 160, 3)
  assert (with_goals != render.render(env, state, width=160, height=120, ghosts=False)).any()


def test_reachability_bound_finds_the_easy_goals_and_not_all_ring_goals(tmp_path):
  """benchmarks/hand_reach_reachability.py: the IK reaches every initial, fore-, middle- and little-finger
  goal (their kinematic error is 0.0 mm on 1,000 goals) and misses some of the ring finger's (25% on
  1,000; seed 3's 40 goals hold 11 ring-finger goals, 4 of them out of reach). About 3 s, no compile."""
  out = tmp_path / "reach.json"
  hand_reach_reachability.main(["--goals", "40", "--seed", "3", "--json", str(out)])
  result = json.loads(out.read_text())
  for kind in ("initial", "ff", "mf", "lf"):  # seed 3's goals hold every kind
    assert result[kind]["reachable"] == 1.0, (kind, result.get(kind))
  assert 0.0 < result["rf"]["reachable"] < 1.0, result["rf"]
  assert result["all"]["goals"] == 40 and result["all"]["coupled"]


# ------------------------------------------------------------------------------------ goal_kind_probs
def test_goal_kind_probs_draws_the_named_kinds_and_refuses_bad_values(env):
  """A training curriculum over goal kinds: each drawn goal is of a kind with probability > 0, in those
  proportions, built as the reference's goals are; bad values are refused by name. The default draws
  the reference's goals (the parity and reset tests above)."""
  probs = (0.0, 0.0, 0.2, 0.8, 0.0)
  cur = mjx_envs.make("HandReach", impl="c", goal_kind_probs=list(probs))
  keys = jax.random.split(jax.random.PRNGKey(3), 1000)
  goals = jax.jit(jax.vmap(cur.sample_goal))(keys)
  kinds = np.asarray(cur.goal_kind(goals))
  counts = np.bincount(kinds, minlength=5)
  assert counts[[0, 1, 4]].sum() == 0, counts
  assert 740 <= counts[3] <= 860, counts  # 800 expected, sd 12.6
  # A ring goal as the reference builds it: thumb and ring finger moved, 2 x MEETING_GAP apart at most.
  g = np.asarray(goals)[kinds == 3][0].reshape(5, 3)
  initial = np.asarray(env.initial_goal).reshape(5, 3)
  moved = np.linalg.norm(g - initial, axis=-1) > 1e-3
  assert moved.tolist() == [False, False, True, False, True], moved
  assert np.linalg.norm(g[2] - g[4]) < 0.0101
  for bad, match in (
    ([0.2, 0.2, 0.2, 0.2], "5 non-negative probabilities"),
    ([0.5, 0.5, 0.5, -0.5, 0.0], "5 non-negative probabilities"),
    ([0.1, 0.1, 0.1, 0.1, 0.1], "must sum to 1"),
    ("ring", "must be a list"),
    ([0.0, 0.0, 0.0, float("nan"), 1.0], "5 non-negative probabilities"),
  ):
    with pytest.raises(mjx_envs.ConfigError, match=match):
      mjx_envs.make("HandReach", goal_kind_probs=bad)


# ------------------------------------------------------------------------------------ path_goal_probs
def test_path_goal_probs_draws_goals_on_the_way_to_a_meeting(env):
  """A curriculum towards the ring finger's meetings: that share of the goals comes from reach_paths.npz
  (thumb and finger tips a held action reaches; the other tips initial), the rest as goal_kind_probs
  draws them; along each path the two tips close in on each other; bad values are refused by name."""
  cur = mjx_envs.make("HandReach", impl="c", path_goal_probs=[0.0, 0.0, 0.5, 0.0])
  paths = hand_reach.load_paths()
  table = paths["tips"]  # [4, poses, alphas, 2, 3]
  assert table.shape[0] == 4 and table.shape[3:] == (2, 3) and np.all(np.isfinite(table))
  gap = np.linalg.norm(table[..., 0, :] - table[..., 1, :], axis=-1).mean(1)  # [4, alphas]
  assert np.all(gap[:, -1] < 0.02) and np.all(gap[:, 0] > 0.04), gap  # apart at alpha 0.1, met at 1
  goals = np.asarray(jax.jit(jax.vmap(cur.sample_goal))(jax.random.split(jax.random.PRNGKey(4), 1000)))
  initial = np.asarray(env.initial_goal, np.float32).reshape(5, 3)
  ring_pairs = table[2].reshape(-1, 6)
  on_path = np.array(
    [np.min(np.abs(ring_pairs - g.reshape(5, 3)[[2, 4]].reshape(-1)).max(-1)) < 1e-6 for g in goals]
  )
  assert 440 <= on_path.sum() <= 560, on_path.sum()  # 500 expected, sd 16
  for g in goals[on_path][:20]:  # the other three tips stay initial
    np.testing.assert_array_equal(g.reshape(5, 3)[[0, 1, 3]], initial[[0, 1, 3]])
  kinds = np.bincount(np.asarray(cur.goal_kind(jnp.asarray(goals[~on_path]))), minlength=5)
  assert kinds.min() > 0, kinds  # the rest: the reference's kinds, all of them
  assert getattr(env.unwrapped, "_path_goals", None) is None  # the default loads no table
  # path_to_goal: levels on from each path's end, by equal steps, to the meeting goal it was solved for
  meeting = paths["goals"]  # [4, poses, 15]
  assert np.all(np.asarray(env.unwrapped.goal_kind(jnp.asarray(meeting[2]))) == 3)
  longer = hand_reach.path_goals(env.initial_goal, 4)  # [4, poses, alphas + 4, 15]
  alphas = table.shape[2]
  np.testing.assert_array_equal(longer[:, :, :alphas], hand_reach.path_goals(env.initial_goal, 0))
  np.testing.assert_allclose(longer[:, :, -1], meeting, atol=1e-6)
  steps = np.diff(longer[:, :, alphas - 1 :], axis=2)
  np.testing.assert_allclose(steps, np.broadcast_to(steps[:, :, :1], steps.shape), atol=1e-6)
  beyond = mjx_envs.make("HandReach", impl="c", path_goal_probs=[0.0, 0.0, 1.0, 0.0], path_to_goal=4)
  drawn = np.asarray(jax.jit(jax.vmap(beyond.sample_goal))(jax.random.split(jax.random.PRNGKey(5), 400)))
  at_goal = np.abs(drawn[:, None] - longer[2, :, -1][None]).max(-1).min(-1) < 1e-6
  assert 15 <= at_goal.sum() <= 60, at_goal.sum()  # 1 level in 14: 28.6 expected
  for bad in (-1, 1.5, True, "4"):
    with pytest.raises(mjx_envs.ConfigError, match="path_to_goal"):
      mjx_envs.make("HandReach", path_to_goal=bad)
  for bad in ([0.5, 0.6, 0.0, 0.0], [0.0, 0.0, -0.1, 0.0], [0.1, 0.1], [0.0, float("nan"), 0.0, 0.0]):
    with pytest.raises(mjx_envs.ConfigError, match="path_goal_probs"):
      mjx_envs.make("HandReach", path_goal_probs=bad)


# ------------------------------------------------------------------------ seen_goal_min_separation
def test_policy_goal_pushes_close_pairs_apart_and_keeps_the_rest(env):
  """`policy_goal` (the goal a learner's networks read): a ring meeting goal, its two tips 4-7 mm apart,
  is read with them pushed apart to the set separation about their unmoved midpoint; every other goal,
  and every goal under the default, is returned exactly; bad values are refused by name."""
  seen = mjx_envs.make("HandReach", impl="c", seen_goal_min_separation=[0.0, 0.0, 0.015, 0.0]).unwrapped
  goals = jax.jit(jax.vmap(seen.sample_goal))(jax.random.split(jax.random.PRNGKey(6), 600))
  view = np.asarray(jax.jit(seen.policy_goal)(goals)).reshape(-1, 5, 3)
  g = np.asarray(goals).reshape(-1, 5, 3)
  ring = np.asarray(seen.goal_kind(goals)) == 3
  assert 90 <= ring.sum() <= 180, ring.sum()  # 135 expected
  before = np.linalg.norm(g[ring, 2] - g[ring, 4], axis=-1)
  after = np.linalg.norm(view[ring, 2] - view[ring, 4], axis=-1)
  assert before.max() < 0.0101 and np.all(before > 0.001), before  # the reference's gap: under 1 cm
  np.testing.assert_allclose(after, 0.015, atol=1e-6)
  np.testing.assert_allclose(view[ring, 2] + view[ring, 4], g[ring, 2] + g[ring, 4], atol=1e-6)
  direction = lambda t: (t[:, 2] - t[:, 4]) / np.linalg.norm(t[:, 2] - t[:, 4], axis=-1, keepdims=True)
  np.testing.assert_allclose(direction(view[ring]), direction(g[ring]), atol=1e-4)
  np.testing.assert_array_equal(view[ring][:, [0, 1, 3]], g[ring][:, [0, 1, 3]])
  np.testing.assert_array_equal(view[~ring], g[~ring])  # other kinds: the ring tip is 3+ cm from the thumb
  np.testing.assert_array_equal(np.asarray(env.unwrapped.policy_goal(goals)), np.asarray(goals))
  for bad in ([0.0, 0.0, 0.015], [0.0, -0.01, 0.0, 0.0], [0.0, 0.0, float("nan"), 0.0], [0, 0, 0.5, 0]):
    with pytest.raises(mjx_envs.ConfigError, match="seen_goal_min_separation"):
      mjx_envs.make("HandReach", seen_goal_min_separation=bad)
