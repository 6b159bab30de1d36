"""The `impl` option ("auto", the default: "c" on a CPU, "jax" on an accelerator; "c": C MuJoCo; "jax":
MJX-JAX; "warp": MuJoCo Warp through the MJX API) and the physics config keys.

The Warp comparisons need the optional `[warp]` extra (mujoco-warp, warp-lang: ~150 MB); CI does not
install it, so there they are skipped. Everything else here builds models only (no compilation).
"""

import mjx_envs
from mjx_envs import core

import jax
import jax.numpy as jnp
import numpy as np
import pytest

WARP = core.warp_available()
CASES = [("BlocksPush", {"num_objects": 1}), ("FetchPush", {})]


@pytest.mark.parametrize(
  "name", ["BlocksPush", "FetchPush", "BlocksSelfPlay", "metaworld/reach-v3", "MT10", "HideAndSeekQuadrant"]
)
def test_impl_defaults_to_auto_which_is_c_on_a_cpu(name):
  assert mjx_envs.default_config(name)["impl"] == "auto"
  assert jax.default_backend() == "cpu"  # this suite's machine
  env = mjx_envs.make(name)
  for e in getattr(env, "tasks", None) or [getattr(env, "world", env)]:
    assert e.impl == "c"


def test_auto_is_mjx_on_an_accelerator(monkeypatch):
  monkeypatch.setattr(jax, "default_backend", lambda: "gpu")
  assert core.resolve_impl("auto") == "jax"
  assert core.resolve_impl("c") == "c"


def test_c_rejects_unknown_fields_and_bad_models():
  from mjx_envs import cphysics  # pylint: disable=import-outside-toplevel

  import mujoco  # pylint: disable=import-outside-toplevel

  m = mujoco.MjModel.from_xml_string(
    "<mujoco><worldbody><body><freejoint/><geom size='.1'/></body></worldbody></mujoco>"
  )
  with pytest.raises(ValueError, match="c_fields"):
    cphysics.Backend(m, 1, fields=("qacc_smooth_typo",))


@pytest.mark.parametrize(
  "name,overrides,match",
  [
    ("BlocksPush", {"impl": "cuda"}, "impl must be one of"),
    ("FetchPush", {"impl": "cuda"}, "impl must be one of"),
    ("BlocksPush", {"cone": "round"}, "cone"),
    ("FetchSlide", {"cone": "round"}, "cone"),
    ("BlocksPush", {"condim": 6}, "condim"),
    ("FetchPush", {"condim": 1}, "condim"),
  ],
)
def test_invalid_physics_values(name, overrides, match):
  with pytest.raises(mjx_envs.ConfigError, match=match):
    mjx_envs.make(name, **overrides)


@pytest.mark.parametrize("name,overrides", CASES)
def test_warp_without_its_packages_names_them(monkeypatch, name, overrides):
  monkeypatch.setattr(core, "warp_available", lambda: False)
  with pytest.raises(mjx_envs.ConfigError, match="mujoco-warp and warp-lang"):
    mjx_envs.make(name, impl="warp", **overrides)


@pytest.mark.parametrize(
  "name,key,value,field",
  [
    ("BlocksPush", "cone", "elliptic", "cone"),
    ("FetchPush", "cone", "pyramidal", "cone"),
    ("BlocksPush", "iterations", 2, "iterations"),
    ("FetchPush", "ls_iterations", 3, "ls_iterations"),
  ],
)
def test_physics_keys_reach_the_model(name, key, value, field):
  import mujoco  # pylint: disable=import-outside-toplevel

  m = mjx_envs.make(name, **{key: value}).mj_model
  got = getattr(m.opt, field)
  if field == "cone":
    got = {
      int(mujoco.mjtCone.mjCONE_PYRAMIDAL): "pyramidal",
      int(mujoco.mjtCone.mjCONE_ELLIPTIC): "elliptic",
    }[int(got)]
  assert got == value


@pytest.mark.parametrize("name,condim", [("BlocksPush", 3), ("FetchPush", 3), ("FetchPush", 4)])
def test_condim_reaches_object_and_fingers(name, condim):
  m = mjx_envs.make(name, condim=condim).mj_model
  for geom in ("object0", "finger_l", "finger_r"):
    assert m.geom(geom).condim[0] == condim


@pytest.mark.skipif(not WARP, reason="MuJoCo Warp not installed (optional extra: pip install -e '.[warp]')")
@pytest.mark.parametrize("name,overrides", CASES)
def test_warp_steps_like_jax(name, overrides):
  """A small batch stepped 5 times with the same actions: MJX-Warp follows MJX-JAX closely."""
  batch, steps = 4, 5
  keys = jax.random.split(jax.random.PRNGKey(0), batch)
  out = {}
  for impl in ("jax", "warp"):
    env = mjx_envs.make(name, impl=impl, **overrides)
    assert env.impl == impl and env.mjx_model.impl.value == impl
    state = jax.jit(jax.vmap(env.reset))(keys)
    step = jax.jit(jax.vmap(env.step))
    actions = jax.random.uniform(jax.random.PRNGKey(1), (steps, batch, env.action_size), minval=-1, maxval=1)
    qpos = []
    for a in actions:
      state = step(state, a)
      qpos.append(np.asarray(state.pipeline_state.qpos))
    out[impl] = (np.stack(qpos), jax.tree.map(np.asarray, state.obs), np.asarray(state.info["diverged"]))
  (q_jax, obs_jax, div_jax), (q_warp, obs_warp, div_warp) = out["jax"], out["warp"]
  assert q_warp.shape == q_jax.shape and np.all(np.isfinite(q_warp))
  assert jax.tree.map(np.shape, obs_warp) == jax.tree.map(np.shape, obs_jax)
  assert not div_warp.any() and not div_jax.any()
  # Both run float32 and differ in solver details; over 5 control steps positions agree to ~1e-4 m.
  np.testing.assert_allclose(q_warp, q_jax, atol=1e-3)


@pytest.mark.skipif(not WARP, reason="MuJoCo Warp not installed (optional extra: pip install -e '.[warp]')")
def test_warp_contact_buffer_holds_the_whole_batch():
  """MJX-Warp shares one contact buffer across a vmapped batch. Sized for the batch (warp_max_envs), 64
  resting blocks stay on the table as under MJX-JAX; sized for one env, most envs lose their contacts and
  the blocks sink: the comparison detects an undersized buffer."""
  batch, steps = 64, 10
  keys = jax.random.split(jax.random.PRNGKey(0), batch)
  z = {}
  for label, over in (
    ("jax", {"impl": "jax"}),
    ("warp", {"impl": "warp", "warp_max_envs": batch}),
    ("warp_one", {"impl": "warp", "warp_max_envs": 1}),
  ):
    env = mjx_envs.make("BlocksPush", **over)
    state = jax.jit(jax.vmap(env.reset))(keys)
    step = jax.jit(jax.vmap(env.step))
    for _ in range(steps):
      state = step(state, jnp.zeros((batch, env.action_size)))
    z[label] = np.asarray(state.pipeline_state.xpos[:, env.mj_model.body("object0").id, 2])
  np.testing.assert_allclose(z["warp"], z["jax"], atol=1e-3)
  assert np.sum(np.abs(z["warp_one"] - z["jax"]) > 1e-2) > batch // 2


@pytest.mark.skipif(not WARP, reason="MuJoCo Warp not installed (optional extra: pip install -e '.[warp]')")
def test_warp_max_envs_follows_the_run():
  from agents import experiment  # pylint: disable=import-outside-toplevel

  cfg = {
    "env": {"name": "FetchReach", "impl": "warp"},
    "agent": {"algo": "ppo", "num_envs": 256},
    "run": {"num_eval_envs": 128},
  }
  assert experiment.resolve(cfg)["env"]["warp_max_envs"] == 256
  cfg["env"]["warp_max_envs"] = 128
  with pytest.raises(mjx_envs.ConfigError, match=r"agent.num_envs=256 exceeds env.warp_max_envs=128"):
    experiment.resolve(cfg)
