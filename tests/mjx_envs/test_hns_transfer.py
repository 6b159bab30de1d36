"""The hide-and-seek transfer suite (mjx_envs/hide_and_seek/transfer.py): registration, shapes, and per
task one compiled function: a reset, constructed scenes (solved, unsolved, lock in and out of order) and
a short batched rollout from all of them (row 0 random actions, the rest neutral or pressing lock)."""

import mjx_envs
from mjx_envs.hide_and_seek import scene as S
from mjx_envs.hide_and_seek import transfer

import copy

import jax
import jax.numpy as jnp
import mujoco
import numpy as np
import pytest

NAMES = tuple(transfer.TASKS)
STEPS = 4
COUNTING_STEPS = 70  # past the last box's disappearance (step 64)
KEY = jax.random.PRNGKey(3)


def _stack(states):
  return jax.tree.map(lambda *x: jnp.stack(x), *states)


def _neutral(lock=0, count=None):
  a = {"move": jnp.full((1, 3), 5, jnp.int32), "grab": jnp.zeros(1, jnp.int32), "lock": jnp.full(1, lock)}
  if count is not None:
    a["count"] = jnp.reshape(jnp.asarray(count, jnp.int32), (1,))
  return a


def _set_info(state, **kw):
  return state.replace(info={**state.info, **kw})


def _empty_walls(env):
  pos, size = env._unused_walls(env.n_walls)
  return pos, size


def _lock_all(env, state, which):
  """`state` with the boxes where `which` [B] is True locked (by the agent's team) at their poses."""
  info = state.info
  O, B = env.n_objects, env.n_boxes
  on = jnp.concatenate([which, jnp.zeros(O - B, bool)])
  q = state.pipeline_state.qpos[env._obj_j]
  return _set_info(
    state,
    locked=jnp.where(on, 1.0, info["locked"]),
    lock_team=jnp.where(on, 1.0, info["lock_team"]),
    lock_q=jnp.where(on[:, None], q, info["lock_q"]),
  )


def _at_box(env, state, target, spots):
  """An empty arena: box `target` at (3, 3), the other objects at `spots` [O, 2], the agent facing the
  box from 0.35 m (0.1 m from its side: within grab reach, in sight)."""
  O = env.n_objects
  xy = jnp.where((jnp.arange(O) == target)[:, None], jnp.array([3.0, 3.0]), jnp.asarray(spots))
  z = jnp.where(jnp.arange(O) < env.n_boxes, S.BOX_HALF, 0.0)
  obj = jnp.concatenate([xy, z[:, None], jnp.zeros((O, 1))], -1)
  agent = jnp.array([[2.65, 3.0, S.AGENT_RADIUS, 0.0]])
  pos, size = _empty_walls(env)
  return env.with_poses(state, agent_pose=agent, object_pose=obj, wall_pos=pos, wall_size=size)


# --- per-task scenes: (states, actions) rows after row 0 (random actions from the reset) ----------
def _counting(env, s0):
  label = s0.info["label"]
  late = _set_info(s0, t=jnp.asarray(env.all_hidden_step - 1, jnp.int32))
  return [late, late], [_neutral(count=label), _neutral(count=(label + 1) % 7)]


def _lock_and_return(env, s0):
  solved = _lock_all(env, s0, jnp.ones(1, bool))  # agent at its start, box locked
  lock_now = _at_box(env, s0, 0, [[0.0, 0.0]])
  return [solved, s0, lock_now], [_neutral(), _neutral(), _neutral(lock=1)]


def _sequential_lock(env, s0):
  order = s0.info["order"]
  solved = _lock_all(env, s0, jnp.ones(4, bool))
  unsolved = _lock_all(env, s0, jnp.arange(4) != order[3])
  spots = [[1.0, 1.0], [1.0, 5.0], [5.0, 1.0], [5.0, 5.0], [1.0, 3.0], [5.0, 3.0], [3.0, 5.0]]
  wrong = _at_box(env, s0, order[1], spots)
  right = _at_box(env, s0, order[0], spots)
  return [solved, unsolved, wrong, right], [_neutral(), _neutral(), _neutral(lock=1), _neutral(lock=1)]


def _blueprint(env, s0):
  K = env.max_sites
  on = s0.info["site_on"] > 0
  xy = s0.info["site_xy"]
  obj = jnp.full((env.n_boxes, 4), jnp.nan)
  obj = obj.at[:K].set(
    jnp.where(
      on[:, None], jnp.concatenate([xy, jnp.full((K, 1), S.BOX_HALF), jnp.zeros((K, 1))], -1), jnp.nan
    )
  )
  solved = env.with_poses(s0, object_pose=obj)
  return [solved, s0], [_neutral(), _neutral()]


def _shelter(env, s0):
  """A closed ring around the pillar: the 3 elongated boxes on its top, left and right sides, 4 cubes
  under it; the 8th cube and the agent in the corner farthest from it."""
  c = s0.info["wall_pos"][0, :2]
  h = s0.info["wall_size"][0, 0]
  L, t, g = S.ELONGATED_HALF[0], S.ELONGATED_HALF[1], 0.01
  along_x = s0.info["box_size"][:, 0] > s0.info["box_size"][:, 1]
  side_y = -(L - (h + g)) - g  # the side boxes end just under the top box
  rows = [
    (0.0, h + t + g, jnp.where(along_x[0], 0.0, np.pi / 2)),
    (-(h + t + g), side_y, jnp.where(along_x[1], np.pi / 2, 0.0)),
    (h + t + g, side_y, jnp.where(along_x[2], np.pi / 2, 0.0)),
  ]
  cube_y = side_y - L - S.BOX_HALF - g
  rows += [(x, cube_y, 0.0) for x in (-0.75, -0.25, 0.25, 0.75)]
  corners = jnp.array([[0.4, 0.4], [5.6, 0.4], [0.4, 5.6], [5.6, 5.6]])
  far = corners[jnp.argmax(jnp.linalg.norm(corners - c, axis=-1))]
  obj = [
    jnp.stack([c[0] + dx, c[1] + dy, jnp.asarray(S.BOX_HALF), jnp.asarray(yaw, jnp.float32)])
    for dx, dy, yaw in rows
  ]
  obj.append(jnp.stack([far[0], far[1], jnp.asarray(S.BOX_HALF), jnp.asarray(0.0)]))
  agent = jnp.array([[0.0, 0.0, S.AGENT_RADIUS, 0.0]]).at[0, :2].set(far + jnp.sign(c - far) * 0.6)
  solved = env.with_poses(s0, agent_pose=agent, object_pose=jnp.stack(obj))
  return [solved, s0], [_neutral(), _neutral()]


SCENES = {
  "HnsObjectCounting": (_counting, {}),
  "HnsLockAndReturn": (_lock_and_return, {}),
  "HnsSequentialLock": (_sequential_lock, {}),
  "HnsBlueprint": (_blueprint, {}),
  "HnsShelter": (_shelter, {"diameter": [1.5, 1.5]}),  # a pillar the 8 boxes can ring
}


def _runner(name):
  scene, overrides = SCENES[name]
  env = mjx_envs.make(name, **overrides)
  counting = name == "HnsObjectCounting"
  steps = COUNTING_STEPS if counting else STEPS

  @jax.jit
  def run(key):
    s0 = env.reset(key)
    states, actions = scene(env, s0)
    batch = _stack([s0] + states)
    fixed = _stack(actions)

    def body(s, k):
      a = env.random_action(k)
      if counting:
        a["count"] = jnp.zeros(1, jnp.int32)
      a = jax.tree.map(lambda r, f: jnp.concatenate([r[None], f]), a, fixed)
      s = jax.vmap(env.step)(s, a)
      out = {"reward": s.reward, "success": s.info["success"], "done": s.done, **s.metrics}
      return s, out

    _, out = jax.lax.scan(body, batch, jax.random.split(key, steps))
    return s0, out

  return env, run


@pytest.fixture(scope="module")
def suite():
  out = {}
  for name in NAMES:
    env, run = _runner(name)
    s0, traj = run(KEY)
    out[name] = (env, run, jax.device_get(s0), jax.device_get(traj))
  return out


def test_registered_with_single_agent_shapes(suite):
  assert set(NAMES) <= set(mjx_envs.registered())
  for name in NAMES:
    env, _, s0, traj = suite[name]
    cfg = mjx_envs.default_config(name)
    assert cfg["episode_length"] == env.episode_length
    assert env.num_agents == 1 and env.action_shapes == {"move": (1, 3), "grab": (1,), "lock": (1,)}
    assert s0.obs["self"].shape == (1, 11) and s0.obs["lidar"].shape == (1, 30)
    assert s0.obs["boxes"].shape == (1, env.n_boxes, 14) and s0.obs["boxes_mask"].shape == (1, env.n_boxes)
    np.testing.assert_array_equal(s0.obs["self"][:, 9:], 0.0)  # fake hider and prep observations
    assert traj["reward"].shape[-1] == 1 and np.all(np.isfinite(traj["reward"])), name
    assert np.all(traj["bad_action"] == 0), name
    for k, v in s0.obs.items():
      assert np.all(np.isfinite(v)), (name, k)
  lengths = {n: suite[n][0].episode_length for n in NAMES}
  assert lengths == {
    "HnsObjectCounting": 120,
    "HnsLockAndReturn": 120,
    "HnsSequentialLock": 120,
    "HnsBlueprint": 240,
    "HnsShelter": 150,
  }
  rooms = suite["HnsLockAndReturn"][0]
  assert rooms._layouts[0].shape == (256, 10, 3) and np.all(
    np.asarray(rooms._layouts[0])[..., 2] > 0
  )  # 6 rooms
  assert suite["HnsBlueprint"][2].obs["sites"].shape == (1, 4, 15)
  assert suite["HnsShelter"][2].obs["objective"].shape == (1, 4)


def test_object_counting_boxes_appear_then_hide_and_the_count_scores(suite):
  env, _, s0, traj = suite["HnsObjectCounting"]
  seen = traj["boxes_seen"][:, 0]  # the random row: the agent is pinned, actions do nothing
  assert seen[: env.task["first_step"] - 1].max() == 0  # all wait behind the garage wall
  assert seen.max() == 1  # one box at a time slides in view
  assert seen[env.all_hidden_step :].max() == 0  # all hidden
  assert 0 <= int(s0.info["label"]) <= 6 and int(s0.info["label"]) == int(s0.info["went_left"].sum())
  # Row 1: the right count once all are hidden; row 2: a wrong one; row 0: before the label is valid.
  assert traj["success"][0, 1] == 1 and traj["reward"][0, 1, 0] == 1.0
  assert traj["success"][0, 2] == 0 and traj["reward"][0, 2, 0] == 0.0
  assert traj["success"][: env.all_hidden_step - 1, 0].max() == 0


def test_lock_and_return_rewards(suite):
  _, _, _, traj = suite["HnsLockAndReturn"]
  assert traj["success"][0, 1] == 1 and traj["reward"][0, 1, 0] == pytest.approx(1.0, abs=0.02)
  assert traj["success"][0, 2] == 0 and abs(traj["reward"][0, 2, 0]) < 0.02
  assert traj["box_locked"][0, 3] == 1 and traj["reward"][0, 3, 0] == pytest.approx(5.0, abs=0.02)
  assert traj["success"][0, 3] == 0  # locked, but away from the start


def test_sequential_lock_only_in_order(suite):
  _, _, _, traj = suite["HnsSequentialLock"]
  assert traj["success"][0, 1] == 1 and traj["reward"][0, 1, 0] == pytest.approx(1.0, abs=0.02)
  assert traj["success"][0, 2] == 0 and traj["n_locked"][0, 2] == 3 and abs(traj["reward"][0, 2, 0]) < 0.02
  assert traj["n_locked"][0, 3] == 0 and abs(traj["reward"][0, 3, 0]) < 0.02  # the second box first: no
  assert traj["n_locked"][0, 4] == 1 and traj["reward"][0, 4, 0] == pytest.approx(5.0, abs=0.02)


def test_blueprint_completion_terminates_with_bonus(suite):
  _, _, s0, traj = suite["HnsBlueprint"]
  k = s0.info["site_on"].sum()
  assert traj["success"][0, 1] == 1 and traj["done"][0, 1] == 1 and traj["sites_done"][0, 1] == 1
  assert traj["reward"][0, 1, 0] == pytest.approx(3.0 * k - 0.05 * traj["corner_dist"][0, 1], abs=1e-4)
  assert traj["success"][0, 2] == 0 and traj["done"][0, 2] == 0
  assert traj["reward"][0, 2, 0] == pytest.approx(-0.05 * traj["corner_dist"][0, 2], abs=1e-5)
  assert traj["corner_dist"][0, 2] > 0.3


def test_shelter_ring_blocks_every_ray(suite):
  _, _, _, traj = suite["HnsShelter"]
  assert traj["rays_reaching"][0, 1] == 0 and traj["success"][0, 1] == 1 and traj["reward"][0, 1, 0] == 0.0
  n = traj["rays_reaching"][0, 2]
  assert 0 < n <= 100 and traj["success"][0, 2] == 0
  assert traj["reward"][0, 2, 0] == pytest.approx(-0.001 * n)


def test_shelter_rays_match_mujoco_rays(suite):
  """The analytic count equals C MuJoCo's mj_ray, one ray a start point, at the reset's poses."""
  env, _, s0, _ = suite["HnsShelter"]
  m = copy.deepcopy(env.mj_model)
  for k, v in env.world_fields(s0.info).items():
    getattr(m, k)[...] = np.asarray(v).reshape(getattr(m, k).shape)
  d = mujoco.MjData(m)
  d.qpos[:] = s0.pipeline_state.qpos
  mujoco.mj_forward(m, d)
  pillar = m.geom("wall0").id
  centre = np.asarray(s0.info["wall_pos"][0], np.float64).copy()
  centre[2] = env.task["ray_height"]
  geom = np.zeros(1, np.int32)
  groups = np.array([g != S.DECOR_GROUP for g in range(6)], np.uint8)
  hits = 0
  for start in env.ray_starts.astype(np.float64):
    vec = (centre - start) / np.linalg.norm(centre - start)
    mujoco.mj_ray(m, d, start, vec, groups, 1, -1, geom)
    hits += int(geom[0] == pillar)
  assert int(env.rays_reaching(s0)) == hits


def test_deterministic_for_a_key(suite):
  for name in ("HnsBlueprint", "HnsSequentialLock"):
    _, run, s0, traj = suite[name]
    s1, traj1 = jax.device_get(run(KEY))
    jax.tree.map(np.testing.assert_array_equal, (s0.obs, traj), (s1.obs, traj1))
    s2, _ = jax.device_get(run(jax.random.PRNGKey(4)))
    assert not np.array_equal(s0.obs["boxes_full"], s2.obs["boxes_full"])
