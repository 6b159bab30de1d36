"""Meta-World on MJX against the metaworld 3.1.1 fixture (scripts/make_metaworld_reference.py).

Every task of every fixture (`tests/fixtures/metaworld_reference*.json`: MT10's, and one per group of the
other tasks) is checked.

1. Reward parity: each task module's `reward(obs, action, reads)` on the reference's recorded
   observations, actions and state reads (no physics: one small jit per task) gives the reference's
   reward and every info value.
2. Reset distributions: rand_vec bounds equal to the reference's `_random_reset_space`, our sampler's
   draws inside them, obeying the reference's rejection rule and spanning the reference's draws;
   `reset_to(rand_vec)` places the episode's objects and goal where the reference's reset does.
3. Hand motion: the fixture's open-loop action sequences from the reference's start state, replayed in
   our reach-v3 (one jitted scan for all sequences): the hand path and the gripper opening follow the
   reference's.

A task whose module is not there yet is skipped (with the reason).
"""

import mjx_envs
from mjx_envs.metaworld import tasks as mw_tasks
from mjx_envs.metaworld.sawyer import INFO_KEYS

import json
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")
MT10 = mw_tasks.MT10
RTOL = ATOL = 1e-4  # float32 against the reference's float64
N_SAMPLES = 300  # our rand_vec draws per task
COVER = 0.03  # our draws reach within 3% of the range of the reference's extremes
# reset_to parity: tasks whose derived obj_init_pos / target_pos are more than a copy of rand_vec
# (drawer-close pulls the drawer out and reads it back, button-press reads the hole site, window-close
# reads the handle, peg-insert-side offsets the box); reach-v3's is exercised by the hand-motion test.
RESET_TO_TASKS = ("drawer-close-v3", "button-press-topdown-v3", "peg-insert-side-v3", "window-close-v3")
# assembly group: basketball's target is the hoop's ring (hoop + (0, -0.083, 0.25)), disassemble's 0.15 above
# the nut (measured within 3.2e-8 m; init_tcp 6.6e-3 m, the arm's sag)
RESET_TO_TASKS += ("basketball-v3", "disassemble-v3")
RESET_TO_N = 4
# Hand motion (reach-v3), measured on the fixture (mjx_envs reach-v3, default config: the reference's arm
# carries the hand; displacement from each one's own start, per step): inside the arm's workspace (mocap
# y <= ARM_Y) mean 1.0 mm, max 2.5 mm; beyond it (the arm stretched) max 1.8 mm; the settled start 0.2 mm
# apart, every task's init_tcp within 0.3 mm. With the free hand of `arm=False` (before 2026-11-27): mean
# 6.4 mm, max 15.5 mm, up to 9.3 cm beyond ARM_Y (the free hand does not slow when the arm would stretch),
# the start 4.9 mm apart, init_tcp up to 6.6 mm. Gripper opening obs[3] mean 0.001, max 0.016.
ARM_Y = 0.7
HAND_PATH_MEAN, HAND_PATH_MAX = 0.0015, 0.004  # m, inside the arm's workspace
STRETCHED_MAX = 0.004  # m, beyond it
HAND_START_MAX = 0.001  # m, the settled start and every task's init_tcp
GRIP_MEAN, GRIP_MAX = 0.01, 0.05  # obs[3] (opening / 0.1)


def fixture_files():
  """Every Meta-World fixture's base path: MT10's `metaworld_reference` and one per group of part-2 tasks
  (`metaworld_reference_<group>`, scripts/make_metaworld_reference.py --tasks ... --out ...)."""
  return sorted(
    os.path.join(FIXTURES, f[: -len(".json")])
    for f in os.listdir(FIXTURES)
    if f.startswith("metaworld_reference") and f.endswith(".json")
  )


def fixture_tasks():
  """Every task some fixture records, MT10's first (read from the JSONs alone: cheap at collection)."""
  tasks = []
  for base in fixture_files():
    with open(base + ".json") as f:
      tasks += [t for t in json.load(f)["tasks"] if t not in tasks]
  return sorted(tasks, key=lambda t: (t not in MT10, t))


TASKS = fixture_tasks()


@pytest.fixture(scope="module")
def ref():
  """All fixtures merged: meta {"tasks": {task: ...}, "versions": MT10's, "fixtures": {base: meta}} and
  the arrays (keys are prefixed by their task, so they do not collide)."""
  merged, arrays = {"tasks": {}, "fixtures": {}}, {}
  for base in fixture_files():
    with open(base + ".json") as f:
      meta = json.load(f)
    clash = set(meta["tasks"]) & set(merged["tasks"])
    assert not clash, f"{base}: tasks {sorted(clash)} are in another fixture too"
    merged["tasks"].update(meta["tasks"])
    merged["fixtures"][os.path.basename(base)] = meta
    data = np.load(base + ".npz")
    arrays.update({k: data[k] for k in data.files})
  merged["versions"] = merged["fixtures"]["metaworld_reference"]["versions"]
  return merged, arrays


_ENVS = {}


def task_module(task):
  assert task in mw_tasks.available(), (
    f"{task}: module mjx_envs/metaworld/tasks/{mw_tasks.MODULES[task]}.py is missing"
  )
  return mw_tasks.module(task)


def make_env(task):
  task_module(task)
  if task not in _ENVS:
    _ENVS[task] = mjx_envs.make(f"metaworld/{task}")
  return _ENVS[task]


def fixture_reads(arrays, task):
  prefix = f"{task}/reads/"
  return {k[len(prefix) :]: arrays[k] for k in arrays if k.startswith(prefix)}


# ------------------------------------------------------------------------------------ fixture itself


def test_fixture_covers_mt10(ref):
  meta, arrays = ref
  for name, m in meta["fixtures"].items():
    assert m["versions"]["metaworld"] == "3.1.1", name
  assert sorted(meta["fixtures"]["metaworld_reference"]["tasks"]) == sorted(MT10)
  for task in TASKS:
    n = arrays[f"{task}/obs"].shape[0]
    assert arrays[f"{task}/obs"].shape == (n, 39) and arrays[f"{task}/action"].shape == (n, 4)
    success = arrays[f"{task}/info/success"]
    assert 0 < success.sum() < n, task  # both successes and failures recorded
    reads = fixture_reads(arrays, task)
    assert set(meta["tasks"][task]["reads"]) <= set(reads), task


# ------------------------------------------------------------------------------------ reward parity


@pytest.mark.parametrize("task", TASKS)
def test_reward_and_info_match_reference(task, ref):
  """Our reward(obs, action, reads) on the reference's records: reward and every info value within
  float32 tolerance, success exactly."""
  meta, arrays = ref
  mod = task_module(task)
  reward_fn = getattr(mod, "reward", None) or mod.TASK.reward
  recorded = fixture_reads(arrays, task)
  names = getattr(mod, "READS", None)
  if names is not None:
    missing = [n for n in names if n not in recorded]
    if missing:
      pytest.fail(
        f"{task}: the module's READS names {missing}, which the fixture does not record "
        f"(recorded: {sorted(recorded)}); check the naming rule or extend "
        f"scripts/make_metaworld_reference.py"
      )
  else:
    names = sorted(recorded)  # a module without READS gets every recorded quantity
  reads = {n: jnp.asarray(recorded[n], jnp.float32) for n in names}
  obs = jnp.asarray(arrays[f"{task}/obs"], jnp.float32)
  act = jnp.asarray(arrays[f"{task}/action"], jnp.float32)
  try:
    reward, info = jax.jit(jax.vmap(reward_fn))(obs, act, reads)
  except KeyError as e:
    pytest.fail(
      f"{task}: reward reads {e}, which is not in the module's READS {tuple(names)} or not "
      f"recorded in the fixture (recorded: {sorted(recorded)})"
    )
  episode, step = arrays[f"{task}/episode"], arrays[f"{task}/step"]
  problems = []

  def check(key, ours, theirs, exact=False):
    ours, theirs = np.asarray(ours, np.float64), np.asarray(theirs, np.float64)
    assert ours.shape == theirs.shape, (task, key, ours.shape, theirs.shape)
    bad = ours != theirs if exact else ~np.isclose(ours, theirs, rtol=RTOL, atol=ATOL)
    for i in np.flatnonzero(bad)[:3]:
      problems.append(
        f"{key}[{i}] (episode {episode[i]} step {step[i]}): ours {ours[i]:.6g} reference {theirs[i]:.6g}"
      )
    if bad.any():
      problems.append(
        f"{key}: {int(bad.sum())}/{bad.size} records differ, max |diff| "
        f"{np.abs(ours - theirs)[bad].max():.3g}"
      )

  check("reward", reward, arrays[f"{task}/reward"])
  missing_info = [k for k in INFO_KEYS if k not in info]
  assert not missing_info, f"{task}: info lacks {missing_info}"
  for k in INFO_KEYS:
    check(f"info/{k}", info[k], arrays[f"{task}/info/{k}"], exact=(k == "success"))
  assert not problems, f"{task}: reward parity:\n  " + "\n  ".join(problems)


# ------------------------------------------------------------------------------------ resets


def reference_rule(meta, task, rand_vec):
  """The reference's rejection rule (reset_model's `while` loop) on rand_vec [..., R] -> bool [...]."""
  c = meta["tasks"][task]["constraint"]
  if c is None:
    return np.ones(rand_vec.shape[:-1], bool)
  return constraint_distance(c, rand_vec) >= c["min"]


def constraint_distance(c, rand_vec):
  """The distance a rejection rule bounds: between two xy pairs of rand_vec ("xy_distance_at_least") or
  from one pair to a fixed point ("xy_distance_to_point_at_least": sweep-into's target)."""
  if c["kind"] == "xy_distance_to_point_at_least":
    return np.linalg.norm(rand_vec[..., c["a"]] - np.asarray(c["point"]), axis=-1)
  assert c["kind"] == "xy_distance_at_least", c
  return np.linalg.norm(rand_vec[..., c["a"]] - rand_vec[..., c["b"]], axis=-1)


@pytest.mark.parametrize("task", TASKS)
def test_reset_distribution_matches_reference(task, ref):
  meta, arrays = ref
  mod = task_module(task)
  T = mod.TASK
  low, high = arrays[f"{task}/rand_low"], arrays[f"{task}/rand_high"]
  # The same bounds as the reference's _random_reset_space (exactly, at float32) and constants.
  np.testing.assert_array_equal(np.float32(T.rand_low), np.float32(low), err_msg=f"{task} rand_low")
  np.testing.assert_array_equal(np.float32(T.rand_high), np.float32(high), err_msg=f"{task} rand_high")
  for name in ("hand_init_pos", "hand_low", "hand_high"):
    np.testing.assert_allclose(
      getattr(T, name), arrays[f"{task}/{name}"], atol=1e-9, err_msg=f"{task} {name}"
    )
  np.testing.assert_allclose(T.mocap_low or T.hand_low, arrays[f"{task}/mocap_low"], atol=1e-9)
  np.testing.assert_allclose(T.mocap_high or T.hand_high, arrays[f"{task}/mocap_high"], atol=1e-9)
  np.testing.assert_allclose(T.goal_low, arrays[f"{task}/goal_low"], atol=1e-9, err_msg=f"{task} goal_low")
  np.testing.assert_allclose(T.goal_high, arrays[f"{task}/goal_high"], atol=1e-9, err_msg=f"{task} goal_high")
  # Our rule is the reference's: on the reference's accepted draws and on uniform candidates.
  ref_rv = arrays[f"{task}/reset/rand_vec"]
  cands = np.random.default_rng(0).uniform(low, high, (2000, low.size))
  ours_valid = np.asarray(jax.vmap(T.valid)(jnp.asarray(cands, jnp.float32)))
  theirs_valid = reference_rule(meta, task, cands)
  # (float32 against float64 may disagree only within 1e-6 m of the threshold)
  c = meta["tasks"][task]["constraint"]
  if c is not None:
    margin = np.abs(constraint_distance(c, cands) - c["min"])
    ours_valid, theirs_valid = ours_valid[margin > 1e-6], theirs_valid[margin > 1e-6]
  np.testing.assert_array_equal(
    ours_valid, theirs_valid, err_msg=f"{task}: valid() differs from the reference's rule"
  )
  assert np.asarray(jax.vmap(T.valid)(jnp.asarray(ref_rv, jnp.float32))).all(), task
  # Our sampler: inside the bounds, obeying the rule, spanning what the reference's draws span.
  env = make_env(task)
  ours = np.asarray(
    jax.jit(jax.vmap(env.sample_rand_vec))(jax.random.split(jax.random.PRNGKey(0), N_SAMPLES)), np.float64
  )
  assert ours.shape == (N_SAMPLES, low.size)
  lo32, hi32 = np.float32(low), np.float32(high)
  assert np.all(ours >= lo32) and np.all(ours <= hi32), task
  assert (
    reference_rule(meta, task, ours + 0.0).all()
    or c is None
    or (constraint_distance(c, ours) >= c["min"] - 1e-6).all()
  ), task
  span = high - low
  tol = COVER * span + 1e-7
  print(
    f"{task} rand_vec range: ours min-ref min max {np.max(ours.min(0) - ref_rv.min(0)):+.4f}, "
    f"ref max-ours max max {np.max(ref_rv.max(0) - ours.max(0)):+.4f} (span {span.round(3).tolist()})"
  )
  assert np.all(ours.min(0) <= ref_rv.min(0) + tol), (task, ours.min(0), ref_rv.min(0))
  assert np.all(ours.max(0) >= ref_rv.max(0) - tol), (task, ours.max(0), ref_rv.max(0))
  # Same mean (within 4 standard errors) where the range is not a point.
  var = ours.var(0) / len(ours) + ref_rv.var(0) / len(ref_rv)
  live = span > 0
  z = np.abs(ours.mean(0) - ref_rv.mean(0))[live] / np.sqrt(var[live])
  assert np.all(z < 4.0), (task, z)


@pytest.mark.parametrize("task", RESET_TO_TASKS)
def test_reset_to_places_episode_as_reference(task, ref):
  """reset_to(the reference's rand_vec) gives the reference's obj_init_pos and target_pos (RESET_TO_N of
  the recorded resets) and every other episode constant the reward reads (the reward records' episodes:
  e.g. maxDist, _obj_to_target_init, peg_head_pos_init, window_handle_pos_init), and the reference's
  settled tcp and pads within the arm's sag."""
  meta, arrays = ref
  env = make_env(task)
  n = RESET_TO_N
  rv = np.concatenate([arrays[f"{task}/reset/rand_vec"][:n], arrays[f"{task}/episode_rand_vec"]])
  ctx = jax.jit(jax.vmap(lambda r: env.reset_to(r).info["ctx"]))(jnp.asarray(rv, jnp.float32))
  ctx = {k: np.asarray(v, np.float64) for k, v in ctx.items()}
  # The episode constants at each episode's first record (they do not change during an episode).
  episode = arrays[f"{task}/episode"]
  first = np.array([np.flatnonzero(episode == e)[0] for e in range(len(rv) - n)])
  recorded = {k: v[first] for k, v in fixture_reads(arrays, task).items()}
  expected = {
    "target_pos": np.concatenate([arrays[f"{task}/reset/target_pos"][:n], recorded["target_pos"]]),
    "obj_init_pos": np.concatenate([arrays[f"{task}/reset/obj_init_pos"][:n], recorded["obj_init_pos"]]),
    "init_tcp": np.concatenate([arrays[f"{task}/reset/init_tcp"][:n], recorded["init_tcp"]]),
  }
  sag = ("init_tcp",)
  live = ("init_left_pad", "init_right_pad")  # the reference's alias the live pads: test_init_pads_...
  compared = []
  for key in sorted((set(ctx) & set(recorded)) - set(live)):
    theirs = expected.get(key)
    ours = ctx[key] if theirs is not None else ctx[key][n:]
    theirs = recorded[key] if theirs is None else theirs
    ours = ours.reshape(theirs.shape)
    if key in sag:
      # The settled hand: the reference's arm sags (hand 5 mm below / 4.6 mm beside its mocap target).
      gap = np.linalg.norm(np.atleast_2d(ours - theirs), axis=-1)
      print(f"{task} reset_to {key}: |ours - reference| max {gap.max():.4f} m")
      assert gap.max() < HAND_START_MAX, (task, key, gap)
    else:
      # Copies or offsets of rand_vec, or read back from the settled world (the drawer pulled out, the
      # button's hole site, the window handle, the peg's head): measured within 6e-8 m (float32) except
      # peg_head_pos_init, 1.1e-4 m (the peg rests at a slightly different tilt after the hand reset).
      print(f"{task} reset_to {key}: max |ours - reference| {np.abs(ours - theirs).max():.2e}")
      np.testing.assert_allclose(ours, theirs, atol=1e-3, err_msg=f"{task} {key}")
    compared.append(key)
  assert {"target_pos", "obj_init_pos", "init_tcp"} <= set(compared), (task, compared)


def test_init_pads_are_live_pads_as_reference(ref):
  """metaworld 3.1.1 sets `self.init_left_pad = self.get_body_com("leftpad")` (likewise the right pad):
  `get_body_com` returns a view into `data.xpos`, so the reference's "init" pads are the CURRENT pad
  positions at every step (the fixture: equal to left_pad / right_pad in every record). A reward that
  reads init_left_pad / init_right_pad (pick-place-v3's caging margins) must see the live pads in our env
  too: after the fingers and the hand move, reads["init_left_pad"] == reads["left_pad"]."""
  meta, arrays = ref
  for task in TASKS:
    rec = fixture_reads(arrays, task)
    if "init_left_pad" not in rec:
      continue
    for side in ("left", "right"):
      np.testing.assert_array_equal(rec[f"init_{side}_pad"], rec[f"{side}_pad"], err_msg=task)
  users = [
    t
    for t in mw_tasks.available()
    if {"init_left_pad", "init_right_pad"} & set(getattr(mw_tasks.module(t), "READS", ()))
  ]
  assert "pick-place-v3" in users, users  # the reference's pick-place reads them
  for task in users:
    env = make_env(task)
    rv = jnp.asarray(arrays[f"{task}/episode_rand_vec"][0], jnp.float32)
    m = env.mj_model

    @jax.jit
    def moved_reads(rv):
      state = env.reset_to(rv)
      d = state.pipeline_state
      qpos = d.qpos.at[m.joint("r_close").qposadr[0]].set(0.03).at[m.joint("l_close").qposadr[0]].set(-0.02)
      qpos = qpos.at[m.joint("right_j0").qposadr[0]].add(0.1)  # the arm turns the hand ~6 cm sideways
      d = env.reset_forward(d.replace(qpos=qpos))
      return env.reward_reads(d, state.info["ctx"])

    reads = {k: np.asarray(v) for k, v in moved_reads(rv).items()}
    for side in ("left", "right"):
      np.testing.assert_allclose(
        reads[f"init_{side}_pad"],
        reads[f"{side}_pad"],
        atol=1e-6,
        err_msg=f"{task}: reads['init_{side}_pad'] is not the live {side} pad (the reference's is an alias of "
        f"data.xpos: get_body_com returns a view); a reward using it differs from the reference's "
        f"once the pads move",
      )


# ------------------------------------------------------------------------------------ hand motion


@pytest.fixture(scope="module")
def reach_motion(ref):
  """Our reach-v3 replay of the fixture's sequences: (hand [S, T + 1, 3], grip [S, T + 1])."""
  meta, arrays = ref
  env = make_env("reach-v3")
  p = "reach-v3/motion"
  actions = jnp.asarray(arrays[f"{p}/actions"], jnp.float32)
  rand_vec = jnp.asarray(arrays[f"{p}/rand_vec"], jnp.float32)

  @jax.jit
  def rollouts(actions):  # one compiled function: the reset and all sequences' scans
    state0 = env.reset_to(rand_vec)

    def rollout(acts):
      def body(s, a):
        s = env.step(s, a)
        return s, s.obs[:4]

      _, obs = jax.lax.scan(body, state0, acts)
      return jnp.concatenate([state0.obs[None, :4], obs])

    return jax.vmap(rollout)(actions)

  obs = np.asarray(rollouts(actions))
  return obs[..., :3], obs[..., 3]


def test_hand_motion_matches_reference(ref, reach_motion):
  """The fixture's open-loop sequences (constant +-x/y/z at full and half scale, two smooth random
  sequences, the gripper closing then opening) from the same start: our hand follows the reference's.

  Both hands are welded to the Sawyer's 7-DoF arm, which sags (the hand settles 5 mm below and 4.6 mm
  beside the mocap target) and, stretched towards +y (mocap y > ARM_Y), slows down. The paths are
  compared as displacements from each one's own start, with the tolerances above (measured, about 1.5x
  margin), inside the arm's workspace and beyond it."""
  meta, arrays = ref
  names = meta["tasks"]["reach-v3"]["motion_sequences"]
  ref_hand, ref_grip = arrays["reach-v3/motion/hand"], arrays["reach-v3/motion/grip"]
  mocap_y = arrays["reach-v3/motion/mocap"][..., 1]
  hand, grip = reach_motion
  assert hand.shape == ref_hand.shape
  start_gap = np.linalg.norm(hand[:, 0] - ref_hand[:, 0], axis=-1)
  assert start_gap.max() < HAND_START_MAX, start_gap
  disp, ref_disp = hand - hand[:, :1], ref_hand - ref_hand[:, :1]
  gap = np.linalg.norm(disp - ref_disp, axis=-1)  # [S, T + 1]
  inside = np.cumsum(mocap_y > ARM_Y, axis=1) == 0  # until the mocap first leaves the workspace
  per_seq = {
    n: (round(float(gap[i][inside[i]].mean()), 4), round(float(gap[i][inside[i]].max()), 4))
    for i, n in enumerate(names)
  }
  print(
    f"hand path gap inside the arm's workspace (mean, max) m: {per_seq}; overall mean "
    f"{gap[inside].mean():.4f} max {gap[inside].max():.4f} ({inside.sum()}/{inside.size} steps); beyond: max "
    f"{gap[~inside].max() if (~inside).any() else 0:.4f}; all steps mean {gap.mean():.4f}; start gap max "
    f"{start_gap.max():.4f}"
  )
  assert gap[inside].mean() < HAND_PATH_MEAN, per_seq
  assert gap[inside].max() < HAND_PATH_MAX, per_seq
  if (~inside).any():
    assert gap[~inside].max() < STRETCHED_MAX, gap[~inside].max()
    assert np.all(disp[..., 1][~inside] >= ref_disp[..., 1][~inside] - 0.005)  # the reference lags, not ours
  # Constant sequences: the displacement along the commanded axis at the last step inside the workspace
  # agrees within 20% (+ 5 mm); the others stay within 1.5 cm.
  for i, n in enumerate(names):
    if n[0] in "+-" and "@" in n:
      axis, t = "xyz".index(n[1]), int(np.flatnonzero(inside[i])[-1])
      ours, theirs = disp[i, t, axis], ref_disp[i, t, axis]
      assert np.sign(ours) == np.sign(theirs) and abs(ours - theirs) <= 0.2 * abs(theirs) + 0.005, (
        n,
        ours,
        theirs,
      )
      others = [k for k in range(3) if k != axis]
      assert np.abs(disp[i, : t + 1][:, others] - ref_disp[i, : t + 1][:, others]).max() < 0.015, n
  ggap = np.abs(grip - ref_grip)
  print(f"gripper obs[3] gap mean {ggap.mean():.4f} max {ggap.max():.4f}")
  assert ggap.mean() < GRIP_MEAN and ggap.max() < GRIP_MAX, ggap.max(1)
  # The gripper sequence closes then reopens in both.
  g = names.index("grip_close_open")
  half = ref_grip.shape[1] // 2
  for series in (grip[g], ref_grip[g]):
    assert series[half] < series[0] - 0.3 and series[-1] > series[half] + 0.3, series


# The episode's object pose as the reference first observes it: within 1 mm for every task (measured: 0 for
# the furniture, 0.6 mm for the free objects, which settle on the table), except two whose first record
# comes after objects moved: drawer-close (the reference pulls the drawer out in its reset and it is still
# sliding: 8.6 mm) and peg-insert-side (the peg settles at a slightly different tilt: 12.4 mm).
FIRST_OBS_ATOL = {"drawer-close-v3": 0.015, "peg-insert-side-v3": 0.015}
# Walls group: reach-wall's puck (a cylinder of half-height 0.015 in the reference, a box here) sinks 1.3 mm
# into the reference's table box (measured 1.31e-3 m); pick-place-wall's reset puts the puck at the drawn
# z 0.015, 5 mm into the table, and the reference's first records see it risen to rest (0.0194) where our
# reset_to still observes the placed pose (measured 4.41e-3 m).
FIRST_OBS_ATOL.update({"reach-wall-v3": 0.002, "pick-place-wall-v3": 0.006})
# plate-slide-back: one episode's first record (step 31) comes after the reference's hand had already moved
# the plate (measured 4.58e-3 m; the plate's joints are at the reset's (0, 0.15) in the other episodes').
FIRST_OBS_ATOL["plate-slide-back-v3"] = 0.006
# Press group: door-close's reference door starts open at -1.5708 with its panel 0.5 mm into the safe's left
# wall (mjx_envs/metaworld/tasks/_door.py); that contact swings it shut towards -1.30 from the first step, so
# its first records (steps 1 .. 21) see the handle up to 9.39e-2 m (quaternion 0.070) from the reset pose that
# our reset_to observes (the reference's own reset observation: within 1e-7). test_metaworld_press.py checks
# the swing.
FIRST_OBS_ATOL["door-close-v3"] = 0.1
FIRST_OBS_QUAT_ATOL = {"door-close-v3": 0.08}
# Dials group: lever-pull's first records come at steps 1 .. 22, after the reference's hand had begun to lift
# the light arm in two episodes (-0.09 rad: the ball 1.79e-2 m higher, quaternion 0.030 apart; the others
# within 3e-4). The coffee mugs: the reference's rests 2.8-3.0 mm into its table (z -0.0029; reset_to
# observes the drawn z, within 1 mm of 0: measured 3.88e-3 m) and yawed 3.5-4.5 deg (quaternion up to 0.039):
# its reset sets the mug's position only, so the yaw from the model's first drop carries over.
FIRST_OBS_ATOL.update({"lever-pull-v3": 0.02, "coffee-push-v3": 0.005, "coffee-pull-v3": 0.005})
FIRST_OBS_QUAT_ATOL.update({"lever-pull-v3": 0.035, "coffee-push-v3": 0.045, "coffee-pull-v3": 0.045})
# door-lock: the reference's reset steps the physics once after moving the door, and where the door lands on
# the hand's open finger (benchmark episode 0) the finger knocks the lock down 0.058 rad before the first
# record (ours, 5 mm higher without the arm's sag, nudges it 0.01 rad up after the reset: measured 5.10e-3 m).
# door-unlock: the reference's lock, set to 1.5708 past its 1.57 limit, springs back to 1.543 over 7 steps (ours
# settles 0.005 rad deeper into the limit): a first record at step 7 sees the tip 2.52e-3 m away.
FIRST_OBS_ATOL.update({"door-lock-v3": 0.006, "door-unlock-v3": 0.003})
# The handle tasks: the first records of some episodes (steps 9 .. 34) come after the reference's hand (its
# policy, or random actions) had moved the handle; the step-1 records agree within 1e-7 m. Measured:
# handle-press 6.69e-3 m, handle-press-side 7.97e-3 m, handle-pull 1.33e-2 m (handle-pull-side within 1e-3).
FIRST_OBS_ATOL.update({"handle-press-v3": 0.008, "handle-press-side-v3": 0.009, "handle-pull-v3": 0.015})
# Objects group: sweep's reset puts the block's body origin (its bottom) at the drawn z 0.02, 2 cm above the
# table; the reference's first records (steps 1 .. 26) see it falling or landed at z 0.0191 .. -0.003, where
# our reset_to observes the placed pose (measured 2.30e-2 m in z; x and y within 3e-8 m).
FIRST_OBS_ATOL["sweep-v3"] = 0.025
# sweep-into: two episodes' first records (steps 12 and 22) come after the reference policy's hand has pushed
# the block (measured 1.57e-2 m in y, 7.6e-3 m in x); the others (steps 1 .. 19) within 1.1e-3 m.
FIRST_OBS_ATOL["sweep-into-v3"] = 0.02
# soccer: the ball is placed at z 0.03 and rests at 0.026 (measured 4.2e-3 m at steps 9 .. 30); two episodes'
# first records (steps 26 and 30) come after the reference policy's hand has pushed the ball, which rolled:
# measured 6.86e-2 m and, its orientation, 0.671 in the quaternion (a rolling ball's orientation is free).
FIRST_OBS_ATOL["soccer-v3"] = 0.075
FIRST_OBS_QUAT_ATOL["soccer-v3"] = 0.7
# hand-insert: the reset puts the block's centre at z 0.05, 2 cm into the table top around the hole, and the
# reference's first records (steps 1 .. 27) see it pushed up to rest on it (0.0699): measured 1.99e-2 m in z
# (x within 3.8e-3 m: the policy's fingers touch it); our reset_to observes the placed pose.
FIRST_OBS_ATOL["hand-insert-v3"] = 0.021
# shelf-place: one episode's first record (step 20) comes after the reference policy has moved the block
# (measured 9.93e-3 m); the other five (steps 1 .. 30) within 1e-6 m.
FIRST_OBS_ATOL["shelf-place-v3"] = 0.011
# box-close: the reset puts the lid's free body at z 0.02 (the observed top_link origin at 0.095), and the
# reference's first records (steps 13 .. 30) see it fallen onto the table (origin 0.016): measured 8.41e-2 m in
# z; one record (step 13) after the reference policy's fingers tipped it: 0.1175 in the quaternion.
FIRST_OBS_ATOL["box-close-v3"] = 0.09
FIRST_OBS_QUAT_ATOL["box-close-v3"] = 0.12
# bin-picking: one episode's cube is drawn at x -0.0363, overlapping the start bin's wall (inner face at -0.03),
# and the reference's contact has pushed it out by its first record (step 32): measured 1.37e-2 m in x; the
# other five (steps 1 .. 31) within 1e-6 m.
FIRST_OBS_ATOL["bin-picking-v3"] = 0.015
# Tools group: peg-unplug-side's plug is placed in the wall's socket with its tail sphere (r 0.03) 8 mm into
# the socket's 0.044 m sides; the reference's first records (steps 1 .. 30) see it pushed out to rest (and
# the policy's fingers on it): measured 1.01e-3 m, and it tilts as it is pushed: 1.02e-2 in the quaternion;
# our reset_to observes the placed pose.
FIRST_OBS_ATOL["peg-unplug-side-v3"] = 0.0015
FIRST_OBS_QUAT_ATOL["peg-unplug-side-v3"] = 0.015
# Sticks group: hammer-v3's reset moves the hammer to the drawn z 0 (its handle 2 cm and its head 3.8 cm into the
# table) keeping the tilt it settled to (3.4 deg: the head's round faces and the handle's end on the table;
# ours the same within 1e-4 in the quaternion); the reference's first records see it risen towards rest
# (step 1: z 0.0073; steps 30-31: at rest, 0.0284) or lifted by its policy (steps 29-33: measured 5.37e-2 m,
# 2.52e-2 in the quaternion), where our reset_to observes the placed pose.
FIRST_OBS_ATOL["hammer-v3"] = 0.055
FIRST_OBS_QUAT_ATOL["hammer-v3"] = 0.03
# stick-pull: one episode's first record (step 23) comes after the reference policy's fingers have lifted the stick
# (measured 7.85e-3 m, 3.46e-2 in the quaternion); the other five (steps 1 .. 30) within 2e-4 m (the stick, placed
# at z 0.02, rests 0.2 mm lower on the reference's table box).
FIRST_OBS_ATOL["stick-pull-v3"] = 0.009
FIRST_OBS_QUAT_ATOL["stick-pull-v3"] = 0.04

# Assembly group: assembly's reset puts the nut at z 0.02, 1.1 mm above its rest on the ring's capsules
# (r 0.019); the reference's first records (steps 1 .. 31) see it dropped (one, at step 3, bouncing 0.6 mm
# lower): measured 1.62e-3 m in z, where our reset_to observes the placed pose.
FIRST_OBS_ATOL["assembly-v3"] = 0.002
# disassemble: the reference's reset runs its 50-step hand reset with the nut back at its model position
# (0.1, 0.6) and the peg already at the episode's (its reset_model runs twice: before and after
# mj_resetData); where the peg overlaps the ring there it ejects the nut, and the nut keeps the yaw it lands
# with (its reset sets the position only). Over an 11 x 16 grid of the nut's draws 28 % start yawed by more
# than 1 degree, up to 233 (chaotic in the draw); ours starts at the model's yaw. The fixture's episodes:
# three of six yawed 11 to 33 degrees (the handle up to 7.07e-2 m and the quaternion 0.2295 apart); the
# others differ by the nut's 6 mm drop to rest (6.0e-3 m), where our reset_to observes the placed pose.
FIRST_OBS_ATOL["disassemble-v3"] = 0.075
FIRST_OBS_QUAT_ATOL["disassemble-v3"] = 0.24


@pytest.mark.parametrize("task", TASKS)
def test_first_observed_object_pose_as_reference(task, ref):
  """reset_to(the reference's episode rand_vec) observes the object where the reference's first record
  does: catches furniture that does not follow rand_vec (MJX-JAX leaves bodies below a mocap body at the
  model's position unless the env places them, mjx_envs/core.py)."""
  _, arrays = ref
  env = make_env(task)
  rv = arrays[f"{task}/episode_rand_vec"]
  episode = arrays[f"{task}/episode"]
  first = np.array([np.flatnonzero(episode == e)[0] for e in range(len(rv))])
  theirs = arrays[f"{task}/obs"][first][:, 4:11]
  ours = np.asarray(jax.jit(jax.vmap(lambda r: env.reset_to(r).obs[4:11]))(jnp.asarray(rv, jnp.float32)))
  gap = np.abs(ours[:, :3] - theirs[:, :3]).max()
  print(f"{task}: first observed object position, max |ours - reference| {gap:.2e} m")
  assert gap <= FIRST_OBS_ATOL.get(task, 1e-3), (task, gap)
  # quaternion up to sign: the free objects settle within 1e-3
  np.testing.assert_allclose(
    np.abs(ours[:, 3:]), np.abs(theirs[:, 3:]), atol=FIRST_OBS_QUAT_ATOL.get(task, 2e-3), err_msg=task
  )
