"""impl="c": every family stepped through the C MuJoCo backend equals a plain C MuJoCo rollout of the same
model, controls, mocap targets, equality flags and per-world model fields, bit for bit.

Each case runs the family's own jitted, vmapped `step` under random actions, reads the exact float64
state the backend carries (`CData._impl.state`), then replays the same worlds in a plain Python loop of
`mujoco.mj_step` (no project code), feeding each control step the inputs the next recorded state holds,
and compares every state bit for bit, plus the float32 fields the env reads. Compiles in seconds (no MJX).
"""

import mjx_envs
from mjx_envs import cphysics
from mjx_envs.blocks.selfplay import BlocksSelfPlay
from mjx_envs.metaworld.multitask import MultiTask
from mjx_envs.metaworld.shared import SharedMultiTask

import jax
import jax.numpy as jnp
import mujoco
import numpy as np
import pytest

SPEC = mujoco.mjtState.mjSTATE_INTEGRATION
B, K = 3, 12  # worlds, control steps

# name, overrides, how the family moves its mocap bodies within a control step
CASES = [
  ("FetchPickAndPlace", {}, ("pos",)),
  ("FetchPush", {}, ("pos",)),
  ("FetchSlide", {"finger_reset": True}, ()),  # the env writes qpos between steps (fingers to 0)
  ("BlocksPush", {"num_objects": 2}, ("pos", "quat")),
  ("BlocksSelfPlay", {"num_objects": 1}, ("pos", "quat")),
  ("metaworld/push-v3", {}, ()),
  ("metaworld/drawer-open-v3", {}, ()),
  ("MT10", {"envs_per_task": 1}, ()),
  ("HideAndSeekQuadrant", {}, ()),
]


def _physics(env, state):
  """[(MjxEnv, batched CData, world_fields(info) or None)] of a (batched) state."""
  if isinstance(env, MultiTask):
    return [(t, s.pipeline_state, None) for t, s in zip(env.tasks, state.pipeline_state)]
  if isinstance(env, SharedMultiTask):  # one padded batch: each task's worlds cut out of it
    return [(t, env.task_data(state.pipeline_state, i), None) for i, t in enumerate(env.tasks)]
  if isinstance(env, BlocksSelfPlay):  # Alice's copy: she acts for the first alice_steps (> K) steps
    return [(env.world, state.pipeline_state["alice"].pipeline_state, None)]
  fields = jax.vmap(env.world_fields)(state.info) if hasattr(env, "world_fields") else None
  return [(env, state.pipeline_state, fields)]


def _random_action(env, key, batch):
  if hasattr(env, "random_action"):
    return jax.vmap(env.random_action)(jax.random.split(key, batch))
  return jax.random.uniform(key, (batch, env.action_size), minval=-1.0, maxval=1.0)


def _record(env, batched):
  """Exact states [K+1][member] (float64 [B, nstate]), fields per step, the float32 qpos the env left
  after each step [K+1][member] ([B, nq]: what the backend merges in before the next step; Fetch sets
  locked fingers back to 0 there), float32 reads of the last step."""
  reset = jax.jit(jax.vmap(env.reset) if batched else env.reset)
  step = jax.jit(jax.vmap(env.step) if batched else env.step)
  state = reset(jax.random.split(jax.random.PRNGKey(3), B) if batched else jax.random.PRNGKey(3))
  n = B if batched else env.num_envs
  states, fields, written = [], [], []
  for k in range(K + 1):
    if k:
      state = step(state, _random_action(env, jax.random.PRNGKey(100 + k), n))
    members = _physics(env, state)
    states.append([np.asarray(d._impl.state).view(np.float64) for _, d, _ in members])
    fields.append([None if f is None else jax.tree.map(np.asarray, f) for _, _, f in members])
    written.append([np.asarray(d.qpos) for _, d, _ in members])
  return states, fields, written, [(e, d) for e, d, _ in _physics(env, state)]


def _merge_qpos(d, qpos32):
  """The backend's rule for an env's write: an entry whose float32 value differs from the float32
  rounding of the exact one is taken as written."""
  changed = qpos32 != d.qpos.astype(np.float32)
  d.qpos[changed] = qpos32[changed]


def _replay(m, nsub, s0, nexts, fields, interp, written):
  """Plain C MuJoCo: from s0, each control step's inputs from the next recorded state, the env's qpos
  writes (`written`, the float32 qpos before each step) merged in first; the states."""
  d, nxt = mujoco.MjData(m), mujoco.MjData(m)
  mujoco.mj_setState(m, d, s0, SPEC)
  out = []
  for k, s in enumerate(nexts):
    _merge_qpos(d, written[k])
    mujoco.mj_setState(m, nxt, s, SPEC)
    for name, value in (fields[k] or {}).items():
      getattr(m, name)[...] = value.reshape(getattr(m, name).shape)
      if name.startswith("geom_"):  # per-world geoms: no midphase (its boxes are the compiled poses)
        m.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_MIDPHASE)
    d.ctrl[:], d.eq_active[:] = nxt.ctrl, nxt.eq_active
    d.qfrc_applied[:], d.xfrc_applied[:] = nxt.qfrc_applied, nxt.xfrc_applied
    if not interp:
      d.mocap_pos[:], d.mocap_quat[:] = nxt.mocap_pos, nxt.mocap_quat
      mujoco.mj_step(m, d, nsub)
    else:
      p0, pt = d.mocap_pos.copy(), nxt.mocap_pos.copy()
      q0, qt = d.mocap_quat.copy(), nxt.mocap_quat.copy()  # qt: the normalised, sign-chosen target
      for j in range(nsub):
        frac = (j + 1) / nsub
        if "pos" in interp:
          d.mocap_pos[:] = pt if j == nsub - 1 else p0 + (pt - p0) * frac
        if "quat" in interp:
          q = q0 + (qt - q0) * frac
          d.mocap_quat[:] = qt if j == nsub - 1 else q / np.linalg.norm(q, axis=-1, keepdims=True)
        mujoco.mj_step(m, d)
    got = np.empty(mujoco.mj_stateSize(m, SPEC))
    mujoco.mj_getState(m, d, got, SPEC)
    out.append(got)
  return out, d


@pytest.mark.parametrize("name,overrides,interp", CASES, ids=[c[0] for c in CASES])
def test_c_backend_equals_plain_c_rollout(name, overrides, interp):
  env = mjx_envs.make(name, impl="c", **overrides)
  batched = not isinstance(env, (MultiTask, SharedMultiTask))
  states, fields, written, last = _record(env, batched)
  moved = False
  for j, (member, data) in enumerate(last):
    m = member.mj_model
    assert member.impl == "c" and isinstance(data, cphysics.CData)
    for b in range(states[0][j].shape[0]):
      per_world = [None if f[j] is None else {k: v[b] for k, v in f[j].items()} for f in fields[1:]]
      model = _copy(m)
      replay, d = _replay(
        model,
        member.n_substeps,
        states[0][j][b],
        [s[j][b] for s in states[1:]],
        per_world,
        interp,
        [w[j][b] for w in written],
      )
      for k, got in enumerate(replay):
        want = states[k + 1][j][b]
        assert np.array_equal(got.view(np.uint64), want.view(np.uint64)), (
          f"{name} member {j} world {b}: state differs from plain C at control step {k + 1}"
        )
      moved |= not np.array_equal(states[0][j][b], states[-1][j][b])
      # The float32 fields the env reads are C's, rounded (qpos with the env's last write).
      _merge_qpos(d, written[-1][j][b])
      np.testing.assert_array_equal(np.asarray(data.qpos[b]), d.qpos.astype(np.float32))
      for f in member.cphysics.fields:
        np.testing.assert_array_equal(
          np.asarray(getattr(data, f)[b]).reshape(-1),
          np.asarray(getattr(d, f), np.float32).reshape(-1),
          err_msg=f,
        )
  assert moved, f"{name}: nothing moved in {K} random steps"


def _copy(m):
  import copy  # pylint: disable=import-outside-toplevel

  return copy.copy(m)


def test_a_diverged_c_state_ends_the_episode_and_writes_merge_by_entry():
  """C MuJoCo resets a world whose state is not finite, with a warning instead of NaN: the step reports
  `info['diverged']` (the auto-reset wrapper then draws a fresh episode). An env's float32 write reaches
  the exact state entry by entry: entries it did not touch keep their float64 values."""
  env = mjx_envs.make("FetchPush", impl="c")
  state = jax.jit(env.reset)(jax.random.PRNGKey(0))
  step = jax.jit(env.step)
  exact = np.asarray(state.pipeline_state._impl.state).view(np.float64)
  qpos = env.cphysics.slices["qpos"]
  d = state.pipeline_state
  moved = state.replace(pipeline_state=d.replace(qpos=d.qpos.at[0].add(0.01)))
  merged = env.cphysics.merge(
    exact[None], {f: np.asarray(getattr(moved.pipeline_state, f))[None] for f in env.cphysics.slices}
  )[0]
  changed = np.nonzero(merged != exact)[0]
  assert changed.tolist() == [qpos.start], changed  # only the entry written
  ok = step(moved, jnp.zeros(4))
  assert float(ok.info["diverged"]) == 0
  poisoned = state.replace(pipeline_state=d.replace(qvel=d.qvel.at[3].set(jnp.nan)))
  bad = step(poisoned, jnp.zeros(4))
  assert float(bad.info["diverged"]) == 1 and float(bad.pipeline_state._impl.warned) == 1
  assert np.all(np.isfinite(np.asarray(bad.obs["observation"])))


def test_fetch_finger_reset_sets_locked_fingers_back_to_zero():
  """finger_reset=True (the reference's `_step_callback`): Slide's locked fingers read exactly 0 after
  every step; without it the servos let them yield under the jumping mocap."""
  out = {}
  for reset in (False, True):
    env = mjx_envs.make("FetchSlide", impl="c", finger_reset=reset)
    state = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.PRNGKey(0), B))
    step = jax.jit(jax.vmap(env.step))
    fingers = []
    for k in range(6):
      state = step(state, _random_action(env, jax.random.PRNGKey(k), B))
      fingers.append(np.asarray(state.obs["observation"])[:, 9:11])
    out[reset] = np.abs(np.stack(fingers)).max()
  assert out[True] == 0.0 and out[False] > 1e-4, out
