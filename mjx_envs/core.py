"""The environment API: `Env`, `GoalEnv` and the MJX physics helpers every family shares.

An environment is a set of pure functions over a `State` pytree:

  reset(key) -> State                 key: PRNG key, shape [2] (or typed key [])
  step(state, action[action_size]) -> State

Both are jittable and vmappable. `State` is Brax's `brax.envs.base.State` (fields `pipeline_state`, the
`mjx.Data`; `obs`; `reward`; `done`; `metrics`; `info`), so our envs also plug into Brax's trainers.

Robustness, inside jit: a non-finite or out-of-range action is sanitised before it reaches the physics
and counted in `metrics['bad_action']`; a diverged physics state (non-finite, or velocities beyond
`max_qvel`) ends the episode as a truncation with `info['diverged'] = 1`, and the auto-reset wrapper then
draws a fresh state (counted in the episode statistics).
"""

from __future__ import annotations

from mjx_envs import cphysics
from mjx_envs.elliptic_newton import fast_elliptic_newton
from mjx_envs.jdotv import c_jdotv

import abc
import functools
from collections.abc import Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import mujoco
import numpy as np
from brax.envs.base import Env as _BraxEnv
from brax.envs.base import State
from mujoco import mjx

__all__ = [
  "State",
  "Env",
  "MjxEnv",
  "GoalEnv",
  "DistanceGoalEnv",
  "goal_distance",
  "sanitize_action",
  "ConfigError",
  "camera_xml",
  "IMPLS",
  "check_impl",
  "resolve_impl",
  "warp_available",
]


class ConfigError(ValueError):
  """A bad environment name, config key or config value."""


def check_config(name: str, defaults: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
  """Merges `overrides` into `defaults`, refusing keys that `defaults` does not have and values of another
  type than the default's (see `check_type`). Value ranges are each env's own to check."""
  unknown = sorted(set(overrides) - set(defaults))
  if unknown:
    raise ConfigError(f"{name}: unknown config key(s) {unknown}; valid keys are {sorted(defaults)}")
  return {**defaults, **{k: check_type(name, k, defaults[k], v) for k, v in overrides.items()}}


def check_type(name: str, key: str, default: Any, value: Any) -> Any:
  """`value` for config `key` of `name` if it has the type of `default` (see `coerce_like`), else a
  ConfigError naming the key, the value and the type allowed."""
  try:
    return coerce_like(default, value)
  except TypeError as e:
    raise ConfigError(f"{name}: config {key!r} must be {e}, got {value!r}") from None


def coerce_like(default: Any, value: Any) -> Any:
  """`value`, normalised, if it has the type of `default`; else TypeError(what is allowed).

  An int default takes an int, or an integral float such as 2e6 (returned as an int); a float default any
  finite real number; a bool default only True or False (not 0 or 1); a str default a string; a list or
  tuple default a list or tuple; a None default None or a number (the envs' optional sizes). A bool is
  never a number here, so a flag cannot silently become a count.
  """
  is_bool = isinstance(value, (bool, np.bool_))
  is_int = isinstance(value, (int, np.integer)) and not is_bool
  is_float = isinstance(value, (float, np.floating)) and bool(np.isfinite(value))
  if isinstance(default, (bool, np.bool_)):
    if not is_bool:
      raise TypeError("True or False")
    return bool(value)
  if isinstance(default, (int, np.integer)):
    if is_int or (is_float and float(value).is_integer()):
      return int(value)
    raise TypeError("an integer")
  if isinstance(default, (float, np.floating)):
    if not (is_int or is_float):
      raise TypeError("a finite number")
    return value
  if isinstance(default, str):
    if not isinstance(value, str):
      raise TypeError("a string")
    return value
  if isinstance(default, (list, tuple)):
    if not isinstance(value, (list, tuple)):
      raise TypeError("a list")
    return value
  if default is None and value is not None and not (is_int or is_float):
    raise TypeError("None or a number")
  return value


def sanitize_action(action: jax.Array, low: float = -1.0, high: float = 1.0):
  """Replaces non-finite entries by 0 and clips to [low, high].

  Returns (clean action [A], bad: float scalar 1.0 if anything was non-finite or out of range).
  """
  finite = jnp.isfinite(action)
  clean = jnp.clip(jnp.where(finite, action, 0.0), low, high)
  bad = jnp.any(~finite) | jnp.any((action < low) | (action > high))
  return clean, bad.astype(jnp.float32)


def camera_xml(name: str, eye, target, fovy: float = 45.0) -> str:
  """MJCF of a fixed camera at `eye` [3] looking at `target` [3], horizon level."""
  eye, target = np.asarray(eye, float), np.asarray(target, float)
  back = (eye - target) / np.linalg.norm(eye - target)  # a MuJoCo camera looks along its -z axis
  right = np.cross([0.0, 0.0, 1.0], back)
  right /= np.linalg.norm(right)
  up = np.cross(back, right)
  axes = " ".join(f"{v:.5f}" for v in (*right, *up))
  return f'<camera name="{name}" pos="{eye[0]} {eye[1]} {eye[2]}" xyaxes="{axes}" fovy="{fovy}"/>'


class Env(_BraxEnv):
  """Base class: subclasses implement `reset`, `step` and the size properties."""

  @property
  def backend(self) -> str:
    return "mjx"

  @property
  def observation_size(self):
    """int for array observations; {key: shape} for dict observations."""
    obs = jax.eval_shape(self.reset, jax.random.PRNGKey(0)).obs
    if isinstance(obs, Mapping):
      return {k: v.shape for k, v in obs.items()}
    return obs.shape[-1]

  def check_action(self, action) -> None:
    """Host-side shape check, for use outside jit by wrappers and tools."""
    if getattr(action, "shape", None) is None or action.shape[-1:] != (self.action_size,):
      raise ValueError(
        f"{type(self).__name__}: action must have trailing shape ({self.action_size},), "
        f"got {getattr(action, 'shape', type(action))}"
      )


IMPLS = ("auto", "c", "jax", "warp")


def resolve_impl(impl: str) -> str:
  """The physics implementation `impl` stands for: "auto" is C MuJoCo ("c") when JAX's default backend is
  the CPU, MJX-JAX ("jax") on a GPU or TPU; the others are themselves (checked by `check_impl`)."""
  check_impl(impl)
  if impl == "auto":
    return "c" if jax.default_backend() == "cpu" else "jax"
  return impl


def warp_available() -> bool:
  """True when MuJoCo Warp and warp-lang import (the optional `[warp]` extra)."""
  try:
    import mujoco_warp  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
    import warp  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
  except ImportError:
    return False
  return True


def check_impl(impl) -> None:
  """Raises ConfigError for an `impl` not in IMPLS ("auto", "c", "jax", "warp"), or "warp" without its
  packages."""
  if impl not in IMPLS:
    raise ConfigError(f"impl must be one of {IMPLS}, got {impl!r}")
  if impl == "warp" and not warp_available():
    raise ConfigError(
      'impl="warp" needs the packages mujoco-warp and warp-lang, which are not installed; '
      "install them with `pip install -e '.[warp]'` (or `pip install mujoco-warp warp-lang`)"
    )


WARP_DEFAULT_MAX_ENVS = 1024  # impl="warp" with warp_max_envs=None: the batch Warp's buffers are sized for


class MjxEnv(Env):
  """An env backed by one MJX model, stepped `n_substeps` times per control step.

  Subclasses build an `mujoco.MjModel`, pass it here, and use `make_data`, `physics_step`, `diverged`.
  `impl` picks the physics: "c" (C MuJoCo on the host through a host callback, `mjx_envs.cphysics`),
  "jax" (MJX-JAX), "warp" (MuJoCo Warp through the MJX API, the optional `[warp]` extra) or "auto" (the
  default: "c" on a CPU-only machine, "jax" on a GPU or TPU). `self.impl` is the resolved choice.
  Under "c", `c_fields` names the derived fields (body, site, geom poses, sensors: `cphysics.DERIVED`)
  the family reads after a step, and `contact_pairs` the geom groups whose contacts it reads
  (`pair_contacts`).
  """

  def __init__(
    self,
    mj_model: mujoco.MjModel,
    n_substeps: int,
    max_qvel: float = 100.0,
    impl: str = "auto",
    warp_max_envs: int | None = None,
    c_fields: Sequence[str] = cphysics.DEFAULT_FIELDS,
    contact_pairs: Sequence[tuple[Sequence[int], Sequence[int]]] = (),
  ):
    impl = resolve_impl(impl)
    self.mj_model = mj_model
    self.impl = impl
    # Per contact pair, whether each geom id is in group a / b; one extra False entry: what an unused MJX
    # contact slot's geom id -1 reads.
    ids = np.arange(mj_model.ngeom + 1)
    self.contact_pairs = tuple((np.isin(ids, a), np.isin(ids, b)) for a, b in contact_pairs)
    mjx_impl = "jax" if impl == "c" else impl
    self._mjx_impl = mjx_impl
    if impl != "c":
      _ = self.mjx_model  # built now: every step reads it
    # The zero state, built once on the host: MJX-Warp's make_data takes only an MjModel and is not
    # traceable, so `reset` starts from this template instead of calling make_data under jit.
    self._data_template = mjx.make_data(mj_model, impl=mjx_impl)
    self.cphysics = None
    if impl == "c":
      self.cphysics = cphysics.Backend(
        mj_model, n_substeps, c_fields, self.contact_pairs, name=type(self).__name__
      )
      self._data_template = self.cphysics.make_data(self._data_template)
    self.warp_max_envs = int(warp_max_envs or WARP_DEFAULT_MAX_ENVS)
    if impl == "warp":
      # MJX-Warp's contact buffer is one array shared by every env of a vmapped batch (JAX does not tell
      # it the batch size), sized by default for ONE world: a batch of B envs would silently drop all
      # contacts past that (Warp only prints "broadphase overflow"). Size it for `warp_max_envs` worlds;
      # not more than needed: on the CPU, Warp's cost grows with the buffer (BlocksPush-1 at batch 64:
      # 779 ctrl steps/s sized for 64 envs, 242 sized for 8192; BENCHMARKS.md, "MuJoCo Warp (`impl="warp"`)").
      per_world = int(self._data_template._impl.naconmax)  # pylint: disable=protected-access
      self._data_template = mjx.make_data(mj_model, impl=impl, naconmax=per_world * self.warp_max_envs)
    self.n_substeps = int(n_substeps)
    self.max_qvel = float(max_qvel)
    # MJX-JAX's kinematics writes a mocap body's pose from mocap_pos / mocap_quat only AFTER walking the
    # body tree, so the bodies below a mocap body (Meta-World's drawer, door and window frames) stay where
    # the model put them. Where the model has such children, every traced step and reset first copies the
    # mocap poses into the mocap bodies' body_pos / body_quat (their parent is the world), as C MuJoCo
    # places them. Models without them are used as they are.
    mocap_bodies = np.nonzero(mj_model.body_mocapid >= 0)[0]
    has_children = np.isin(mj_model.body_parentid[1:], mocap_bodies).any()
    self._mocap_bodies = mocap_bodies if (impl == "jax" and has_children) else None
    self._mocap_order = mj_model.body_mocapid[mocap_bodies] if self._mocap_bodies is not None else None

  @functools.cached_property
  def mjx_model(self) -> mjx.Model:
    """The MJX model (`mjx.put_model`). Under C physics built when first read: few families read it
    there, and MT50's 50 copies cost 1.4 s of its start."""
    with jax.ensure_compile_time_eval():  # first read under a trace: concrete arrays all the same
      return mjx.put_model(self.mj_model, impl=self._mjx_impl)

  def model_for(self, data: mjx.Data) -> mjx.Model:
    """The MJX model to step `data` with: `mjx_model`, with the mocap bodies placed at `data`'s mocap poses
    where bodies hang below them (see __init__)."""
    if self._mocap_bodies is None:
      return self.mjx_model
    m = self.mjx_model
    quat = data.mocap_quat[self._mocap_order]
    quat = quat / jnp.linalg.norm(quat, axis=-1, keepdims=True)
    return m.replace(
      body_pos=m.body_pos.at[self._mocap_bodies].set(data.mocap_pos[self._mocap_order]),
      body_quat=m.body_quat.at[self._mocap_bodies].set(quat),
    )

  def make_data(self) -> mjx.Data:
    """A fresh `mjx.Data` of this env's model and `impl` (jittable: returns a built template)."""
    return self._data_template

  @property
  def dt(self) -> float:
    """Control period in seconds."""
    return float(self.mj_model.opt.timestep) * self.n_substeps

  def physics_step(
    self,
    data: mjx.Data,
    ctrl: jax.Array | None = None,
    mocap_pos: jax.Array | None = None,
    mocap_quat: jax.Array | None = None,
    interpolate_mocap: bool = False,
    model_fields: Mapping[str, jax.Array] | None = None,
  ) -> mjx.Data:
    """Sets controls and mocap targets, then runs `n_substeps` of `mjx.step` (under "c": C's mj_step).

    `model_fields` ({model field: array}) replaces fields of the model for this world's step (e.g.
    hide-and-seek's walls and joint ranges).

    With `interpolate_mocap`, the mocap bodies move from where they are to the new targets in equal steps
    over the substeps (positions linearly, orientations by normalised linear interpolation), arriving on
    the last one: a target that jumps once per control step makes a stiff mocap weld jerk its body, which
    then kicks objects (block world, a full 0.05 m step from rest: peak gripper speed 1.56 m/s, 0.95 here).
    """
    replace = {}
    if ctrl is not None:
      replace["ctrl"] = ctrl
    if mocap_pos is not None and not interpolate_mocap:
      replace["mocap_pos"] = mocap_pos
    if mocap_quat is not None and not interpolate_mocap:
      replace["mocap_quat"] = mocap_quat
    data = data.replace(**replace)
    interpolate = interpolate_mocap and (mocap_pos is not None or mocap_quat is not None)
    if self.impl == "c":
      return self.cphysics.step(data, mocap_pos, mocap_quat, interpolate, model_fields)
    model_fields = dict(model_fields or {})
    pos0, quat0 = data.mocap_pos, data.mocap_quat
    if interpolate and mocap_quat is not None:  # the nearer of q and -q, so the path takes the short way
      mocap_quat = jnp.where(jnp.sum(quat0 * mocap_quat, -1, keepdims=True) < 0, -mocap_quat, mocap_quat)

    def body(d, frac):
      if interpolate:
        path = {}
        if mocap_pos is not None:
          path["mocap_pos"] = pos0 + (mocap_pos - pos0) * frac
        if mocap_quat is not None:
          q = quat0 + (mocap_quat - quat0) * frac
          path["mocap_quat"] = q / jnp.linalg.norm(q, axis=-1, keepdims=True)
        d = d.replace(**path)
      m = self.model_for(d)
      return mjx.step(m.replace(**model_fields) if model_fields else m, d), None

    fracs = jnp.arange(1, self.n_substeps + 1, dtype=jnp.float32) / self.n_substeps
    # The same Newton step without MJX's O(ncon * nefc^2) cone Hessian; welds with C MuJoCo's J̇v term.
    with fast_elliptic_newton(), c_jdotv():
      return jax.lax.scan(body, data, fracs)[0]

  def reset_forward(self, data: mjx.Data, model_fields: Mapping[str, jax.Array] | None = None) -> mjx.Data:
    """The derived quantities a reset's observation reads: positions and orientations of bodies, geoms
    and sites (`mjx.kinematics`), not a full `mjx.forward`.

    A reset needs no contacts, constraint forces or accelerations: the next `mjx.step` recomputes all
    of them from qpos, qvel, ctrl and mocap, and nothing a forward pass writes (qacc_warmstart is
    written only by a step) carries into it, so the trajectory is the same bit for bit. Skipping
    collision and the solver here takes a whole copy of them out of every compiled function that
    resets (init, auto-reset inside the train step, evaluation): about a third of the train step's HLO.
    Observations must then read only kinematic fields, qpos and qvel (tests/mjx_envs check this).
    """
    if self.impl == "c":  # C's mj_kinematics on the exact state, the env's writes merged in
      return self.cphysics.forward(data, model_fields)
    if self.impl != "jax":  # MJX-Warp exposes the full forward pass only
      return mjx.forward(self.mjx_model, data)
    m = self.model_for(data)
    return mjx.kinematics(m.replace(**model_fields) if model_fields else m, data)

  def pair_contacts(self, data: mjx.Data) -> tuple[jax.Array, jax.Array]:
    """Per declared contact pair of geom groups (`contact_pairs`, P of them): (the smallest contact
    distance [P], 1e6 where none; the summed normal force [P]) of the last substep. Under "jax" from
    MJX's contact arrays, under "c" from C's contact list; MJX-Warp exposes no per-world contacts (1e6, 0)."""
    p = len(self.contact_pairs)
    if self.impl == "c":
      return data._impl.pair_dist, data._impl.pair_force  # pylint: disable=protected-access
    if self.impl != "jax" or p == 0:
      return jnp.full((p,), 1e6, jnp.float32), jnp.zeros((p,), jnp.float32)
    con = data._impl.contact  # pylint: disable=protected-access
    g = con.geom
    if g.shape[0] == 0:
      return jnp.full((p,), 1e6, jnp.float32), jnp.zeros((p,), jnp.float32)
    force = data._impl.efc_force[jnp.clip(con.efc_address, 0, None)]  # pylint: disable=protected-access
    force = jnp.where(con.efc_address >= 0, force, 0.0)
    dists, forces = [], []
    for a, b in self.contact_pairs:
      in_a, in_b = jnp.asarray(a), jnp.asarray(b)
      hit = (in_a[g[:, 0]] & in_b[g[:, 1]]) | (in_a[g[:, 1]] & in_b[g[:, 0]])
      dists.append(jnp.min(jnp.where(hit, con.dist, 1e6)))
      forces.append(jnp.sum(jnp.where(hit, force, 0.0)))
    return jnp.stack(dists).astype(jnp.float32), jnp.stack(forces).astype(jnp.float32)

  def diverged(self, data: mjx.Data) -> jax.Array:
    """True when the physics state is non-finite or its velocities exploded."""
    finite = jnp.all(jnp.isfinite(data.qpos)) & jnp.all(jnp.isfinite(data.qvel))
    calm = jnp.all(jnp.abs(data.qvel) < self.max_qvel)
    if self.impl == "c":  # C MuJoCo resets an unstable world itself, with a warning
      calm = calm & (data._impl.warned <= 0)  # pylint: disable=protected-access
    return ~(finite & calm)


class GoalEnv(MjxEnv):
  """A multi-goal env: `obs` is a dict with `observation`, `achieved_goal` and `desired_goal`."""

  @abc.abstractmethod
  def compute_reward(
    self, achieved_goal: jax.Array, desired_goal: jax.Array, info: Mapping[str, Any]
  ) -> jax.Array:
    """Reward for reaching `achieved_goal` when `desired_goal` was asked; any leading batch shape."""

  @abc.abstractmethod
  def is_success(self, achieved_goal: jax.Array, desired_goal: jax.Array) -> jax.Array:
    """1.0 where the goal is reached, else 0.0; any leading batch shape."""

  def start_state(self, data: mjx.Data, obs: Mapping[str, jax.Array], goal: jax.Array) -> State:
    """The State of a reset: `data` after its forward pass, its dict `obs`, the goal kept in
    `info['goal']`; reward 0, not done, success measured, no bad action, not diverged."""
    zero = jnp.zeros((), jnp.float32)
    metrics = {"is_success": self.is_success(obs["achieved_goal"], goal), "bad_action": zero}
    info = {"goal": goal, "diverged": zero}
    return State(pipeline_state=data, obs=obs, reward=zero, done=zero, metrics=metrics, info=info)

  def next_state(self, state: State, data: mjx.Data, obs: Mapping[str, jax.Array], bad: jax.Array) -> State:
    """The State after a step to `data` with observation `obs` (non-finite entries zeroed) from `state`:
    reward and success on the goals, `bad` ([], from `sanitize_action`) counted, divergence flagged in
    `info['diverged']`; never done (the time limit is the wrappers')."""
    obs = jax.tree.map(lambda x: jnp.nan_to_num(x, nan=0.0, posinf=0.0, neginf=0.0), obs)
    reward = self.compute_reward(obs["achieved_goal"], obs["desired_goal"], {})
    metrics = {"is_success": self.is_success(obs["achieved_goal"], obs["desired_goal"]), "bad_action": bad}
    info = {**state.info, "diverged": self.diverged(data).astype(jnp.float32)}
    return state.replace(
      pipeline_state=data, obs=obs, reward=reward, done=jnp.zeros((), jnp.float32), metrics=metrics, info=info
    )


def goal_distance(a: jax.Array, b: jax.Array) -> jax.Array:
  """[..., G], [..., G] -> [...]: the Euclidean norm of the difference over the last axis, in float32."""
  return jnp.linalg.norm(jnp.asarray(a, jnp.float32) - jnp.asarray(b, jnp.float32), axis=-1)


class DistanceGoalEnv(GoalEnv):
  """A GoalEnv rewarded on the distance d between goals (`goal_distance`), as gymnasium-robotics' Fetch
  and Shadow hand reach tasks: sparse reward -(d > distance_threshold), dense -d; success d <
  distance_threshold. Subclasses set `reward_type` ('sparse' or 'dense') and `distance_threshold`."""

  reward_type: str = "sparse"
  distance_threshold: float = 0.05

  def compute_reward(self, achieved_goal, desired_goal, info=None):
    d = goal_distance(achieved_goal, desired_goal)
    if self.reward_type == "sparse":
      return -(d > self.distance_threshold).astype(jnp.float32)
    return -d

  def is_success(self, achieved_goal, desired_goal):
    return (goal_distance(achieved_goal, desired_goal) < self.distance_threshold).astype(jnp.float32)
