"""HandReach: the Shadow hand's five fingertips to goal positions (gymnasium-robotics 1.4.2's HandReach-v3).

Semantics (the reference's, tests/fixtures/hand_reference.*):
- Every episode starts from the same state: the reference's initial joint positions (INITIAL_QPOS), at
  rest, controls 0 until the first step.
- The goal [15] is five fingertip positions: with probability 0.1 the initial ones; otherwise the thumb
  and one of the four fingers (uniform) are sent to a meeting point above the palm (the palm's initial
  position + (0, -0.09, 0.05) + N(0, 0.005^2) per axis), each 5 mm short of it on its own side; the
  other three fingertips keep their initial positions. (`goal_kind_probs` changes the kinds' shares for
  a training curriculum; its default is the reference's 0.1 and 4 x 0.225. `path_goal_probs` draws a
  share of the goals on the way to a meeting instead: below. `seen_goal_min_separation` changes only
  the goal a HER learner's networks read, `policy_goal`; default off.)
- Action [20] in [-1, 1]: absolute joint targets of the 20 position servos, the control range's centre
  + a * its half width (`relative_control=True`: centred on the current joint position instead, J1's
  centre being J1 + J0 as the reference's).
- Observation [63]: joint positions [24], joint velocities [24], fingertip positions [15] (sites
  fftip, mftip, rftip, lftip, thtip); achieved_goal [15] the fingertip positions, desired_goal [15].
- Reward: d = the Euclidean norm of the whole 15-D difference (the reference's `goal_distance`, not a
  mean over the fingertips); sparse -(d > 0.01), dense -d; success d < 0.01. 0.002 s x 20 substeps
  (25 Hz), 50-step episodes, no termination.

Parity with the reference (tests/mjx_envs/test_hand.py; fixture by scripts/make_hand_reference.py),
measured 2026-11-26:
- Model facts: every joint's range, axis, damping, armature, friction loss and margin, every body's mass,
  inertia and centre of mass, every actuator's joint, kp, control and force range, the collision
  primitives' sizes and the solver options equal the reference's; the initial fingertips and palm agree
  to 5e-11 m.
- Resets: the observation equals the reference's to 4e-8; goals follow the same rule (the thumb and
  exactly one finger move, or none; the initial-goal share, each finger's share, the thumb-partner gap
  and the thumb goal's mean and spread agree within sampling noise of 2000 against 200 draws).
- Dynamics, C backend (mujoco 4.0.0 against the reference's 3.3.7), 10 open-loop sequences x 25 steps
  from the reset state (zero, four constant random, three smooth random, all +1, all -1, with up to 3
  finger contacts): joint positions within 5.2e-6 rad, fingertips within 4.1e-7 m, joint velocities
  within 1.1e-4 rad/s, every reward equal.
- MJX-JAX against the C backend (4 worlds x 10 random-action steps): fingertips within 4.9e-5 m,
  observation entries within 0.014 (joint velocities). On the fixture's sequences MJX-JAX's joints
  differ from the reference's by up to 0.042 rad (fingertips 4.2 mm) while fingers press into each
  other (the all-+1 fist; MJX's capsule contacts), 5e-4 rad elsewhere, and converge again by step 25.

Deliberate differences (each effect measured as above):
- The model's (mjx_envs/hand/model.py's docstring): no meshes, 4 of the 44 tendons (the 40 dropped are
  never active), no floor contact, no sensors. Their measured effect is the dynamics parity above.
- Relative control (`relative_control=True`) follows the reference's documented rule, but cannot be
  compared: 1.4.2's MuJoCo-bindings `_set_action` calls mujoco-py's `data.get_joint_qpos` and fails
  (recorded in the fixture's JSON, `relative_control_error`).
- Observations are float32 (the reference: float64); rewards and success are computed in float32 (equal
  on the fixture's 256 pairs, edge distances 0.0099-0.0101 and one pair exactly at 0.01 included).
- The fingertips after a step are read from the step's last forward pass, as the reference reads them
  (one substep behind the joint positions), under "c" and "jax" alike.
"""

from __future__ import annotations

from mjx_envs.core import ConfigError, DistanceGoalEnv, State
from mjx_envs.hand import model as hand_model
from mjx_envs.hand.common import HandServos, check_keys, validate_common

import os
from typing import Any

import jax
import jax.numpy as jnp
import mujoco
import numpy as np
from mujoco import mjx

# The reference's DEFAULT_INITIAL_QPOS (gymnasium_robotics/envs/shadow_dexterous_hand/reach.py), in JOINTS
# order.
INITIAL_QPOS = (
  -0.16514339750464327,
  -0.31973286565062153,
  0.14340512546557435,
  0.32028208333591573,
  0.7126053607727917,
  0.6705281001412586,
  0.000246444303701037,
  0.3152655251085491,
  0.7659800313729842,
  0.7323156897425923,
  0.00038520700007378114,
  0.36743546201985233,
  0.7119514095008576,
  0.6699446327514138,
  0.0525442258033891,
  -0.13615534724474673,
  0.39872030433433003,
  0.7415570009679252,
  0.704096378652974,
  0.003673823825070126,
  0.5506291436028695,
  -0.014515151997119306,
  -0.0015229223564485414,
  -0.7894883021600622,
)
MEETING_OFFSET = (0.0, -0.09, 0.05)  # meeting point above the palm's initial position
MEETING_NOISE = 0.005  # std of the meeting point's Gaussian jitter, per axis
MEETING_GAP = 0.005  # each of the two fingertips stops this far short of the meeting point
P_INITIAL_GOAL = 0.1  # probability that the goal is the initial fingertip positions
# ... and of each kind (initial, then the thumb meeting the fore, middle, ring or little finger)
REFERENCE_GOAL_KIND_PROBS = (P_INITIAL_GOAL,) + ((1 - P_INITIAL_GOAL) / 4,) * 4
THUMB = 4  # index of the thumb's tip among FINGERTIPS


def default_config() -> dict[str, Any]:
  """Every config key of HandReach and its default (the reference's HandReach-v3)."""
  return {
    "reward_type": "sparse",  # 'sparse' (-(d > threshold)) or 'dense' (-d)
    "distance_threshold": 0.01,  # metres, on the norm of the 15-D difference
    "episode_length": 50,  # control steps (read by the wrappers)
    "relative_control": False,  # servo targets relative to the current joint positions
    "sim_dt": 0.002,  # MuJoCo timestep (s); dt = sim_dt * n_substeps = 0.04 s
    "n_substeps": 20,
    "iterations": 20,  # Newton solver iterations (the reference's)
    "ls_iterations": 50,  # line-search iterations (MuJoCo's default, the reference's)
    "cone": "pyramidal",  # friction cone (the reference's; the pairs are frictionless anyway)
    "impl": "auto",  # physics: "auto" (C MuJoCo on a CPU, MJX-JAX on GPU/TPU), "c", "jax" or "warp"
    "warp_max_envs": None,  # impl="warp": the most envs in one batch (None: 1024)
    # The probabilities of the goal kinds, over HandReachEnv.GOAL_KINDS (initial, fore, middle, ring,
    # little), summing to 1; the default is the reference's goal sampling. Others make a training
    # curriculum that draws some kinds more often (evaluations of the env draw them the same way:
    # compare by kind, benchmarks/hand_reach_by_finger.py).
    "goal_kind_probs": list(REFERENCE_GOAL_KIND_PROBS),
    # A training curriculum towards the meetings the learners never meet (the ring finger's; tried, and it
    # teaches none: BENCHMARKS.md, "A curriculum on the way to the ring finger's meetings"). For each finger
    # (fore, middle, ring, little) the probability that a goal is a point on the way from the initial
    # pose to a thumb-finger meeting, drawn from reach_paths.npz (scripts/make_hand_reach_paths.py: the
    # thumb's and the finger's tips that a constant action a0 + alpha (a* - a0) reaches in an episode,
    # 8 meeting poses x alpha in 0.1..1.0; the other tips at their initial positions, as in a meeting
    # goal: under that action they sag up to 23 mm, so the policy must hold them, which a trained one
    # does). At most 1 in all; the rest of the goals follow goal_kind_probs. All 0: never.
    "path_goal_probs": [0.0, 0.0, 0.0, 0.0],
    # Levels that lead on from each path's end (the tips a constant action reaches, thumb and finger
    # pressed together) to the meeting goal the pose was solved for, by linear steps of the 15-D goal:
    # the last one is that goal. A learner that meets every path's end still fails on goals a few mm
    # beyond it (the tips' capsules touch first; BENCHMARKS.md), so these teach pressing on. 0: none.
    "path_to_goal": 0,
    # The goal a learner's networks read (`policy_goal`; the HER learners apply it to every goal they
    # feed them, real or relabelled; rewards and success stay on the real goal): per finger (fore,
    # middle, ring, little), a goal whose thumb and finger tips lie closer than this (metres) is read
    # with the two pushed apart to it about their midpoint. A real meeting goal puts them 4-7 mm apart,
    # closer than the tips ever come (~15 mm for the ring finger, the capsules touching), so no achieved
    # goal, and no relabelled one, is like it, and a policy's answer to it is a wild extrapolation
    # (BENCHMARKS.md, "a cliff"). All 0: the goal as it is.
    "seen_goal_min_separation": [0.0, 0.0, 0.0, 0.0],
  }


def validate_config(cfg) -> None:
  """Raises ConfigError naming the key for an invalid value."""
  validate_common("HandReach", cfg)
  probs = cfg["goal_kind_probs"]
  try:  # a string, a mapping or a ragged list does not convert, or not to shape (5,)
    p = np.asarray(probs, np.float64)
  except (TypeError, ValueError):
    p = np.zeros(0)
  if p.shape != (len(HandReachEnv.GOAL_KINDS),) or not np.all(np.isfinite(p)) or np.any(p < 0):
    raise ConfigError(
      "HandReach: config 'goal_kind_probs' must be 5 non-negative probabilities over "
      f"{HandReachEnv.GOAL_KINDS}, got {probs!r}"
    )
  if abs(p.sum() - 1.0) > 1e-6:
    raise ConfigError(f"HandReach: config 'goal_kind_probs' must sum to 1, got {probs!r} (sum {p.sum():g})")
  path = cfg["path_goal_probs"]
  try:
    q = np.asarray(path, np.float64)
  except (TypeError, ValueError):
    q = np.zeros(0)
  if q.shape != (THUMB,) or not np.all(np.isfinite(q)) or np.any(q < 0) or q.sum() > 1.0 + 1e-6:
    raise ConfigError(
      "HandReach: config 'path_goal_probs' must be 4 non-negative probabilities over the fingers "
      f"{HandReachEnv.GOAL_KINDS[1:]} with a sum of at most 1, got {path!r}"
    )
  sep = cfg["seen_goal_min_separation"]
  try:
    m = np.asarray(sep, np.float64)
  except (TypeError, ValueError):
    m = np.zeros(0)
  if m.shape != (THUMB,) or not np.all(np.isfinite(m)) or np.any(m < 0) or np.any(m > 0.1):
    raise ConfigError(
      "HandReach: config 'seen_goal_min_separation' must be 4 distances in metres, 0 to 0.1, one per "
      f"finger {HandReachEnv.GOAL_KINDS[1:]}, got {sep!r}"
    )
  n = cfg["path_to_goal"]
  if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
    raise ConfigError(f"HandReach: config 'path_to_goal' must be an integer >= 0, got {n!r}")


def load_paths() -> dict[str, np.ndarray]:
  """Every array of reach_paths.npz (scripts/make_hand_reach_paths.py's docstring names them: `tips`
  [4, poses, alphas, 2, 3], `alphas`, `goals` [4, poses, 15], the held `actions` and `a0`, `path_errors`)."""
  with np.load(os.path.join(os.path.dirname(__file__), "reach_paths.npz")) as z:
    return {k: np.asarray(z[k]) for k in z.files}


def path_goals(initial: np.ndarray, to_goal: int = 0) -> np.ndarray:
  """[4 fingers, poses, alphas + to_goal, 15] float32: the curriculum's goals (default_config's
  `path_goal_probs`, `path_to_goal`): reach_paths.npz's thumb and finger tips, the other tips at
  `initial` [15]; then `to_goal` levels from each path's end to the meeting goal its pose was solved for."""
  paths = load_paths()
  tips, meeting = paths["tips"].astype(np.float64), paths["goals"].astype(np.float64)
  n_fingers, poses, alphas = tips.shape[:3]
  goals = np.broadcast_to(
    np.asarray(initial, np.float64).reshape(5, 3), (n_fingers, poses, alphas, 5, 3)
  ).copy()
  for f in range(n_fingers):
    goals[f, :, :, f], goals[f, :, :, THUMB] = tips[f, :, :, 0], tips[f, :, :, 1]
  goals = goals.reshape(n_fingers, poses, alphas, 15)
  beta = np.arange(1, to_goal + 1)[None, None, :, None] / max(to_goal, 1)
  beyond = goals[:, :, -1:] + beta * (meeting[:, :, None] - goals[:, :, -1:])
  return np.concatenate([goals, beyond], axis=2).astype(np.float32)


class HandReachEnv(HandServos, DistanceGoalEnv):
  """HandReach; build it with `mjx_envs.make("HandReach", **overrides)`. Reward and success: the
  Euclidean distance of the whole 15-D goals (`core.goal_distance`; DistanceGoalEnv)."""

  action_size = 20
  task = "HandReach"

  def __init__(self, **config):
    check_keys("HandReach", config, default_config())
    cfg = {**default_config(), **config}
    validate_config(cfg)
    self.config = dict(cfg)
    self.reward_type = cfg["reward_type"]
    self.distance_threshold = float(cfg["distance_threshold"])
    self.episode_length = int(cfg["episode_length"])
    self.relative_control = bool(cfg["relative_control"])
    self.goal_kind_probs = tuple(float(x) for x in cfg["goal_kind_probs"])
    self.path_goal_probs = tuple(float(x) for x in cfg["path_goal_probs"])
    self.path_to_goal = int(cfg["path_to_goal"])
    self.seen_goal_min_separation = tuple(float(x) for x in cfg["seen_goal_min_separation"])
    self.xml = hand_model.scene_xml(
      "HandReach",
      sim_dt=float(cfg["sim_dt"]),
      iterations=int(cfg["iterations"]),
      ls_iterations=int(cfg["ls_iterations"]),
      cone=cfg["cone"],
    )
    # The observation reads joint positions, velocities and fingertip sites only.
    fields = ("site_xpos",)
    super().__init__(
      mujoco.MjModel.from_xml_string(self.xml),
      int(cfg["n_substeps"]),
      impl=cfg["impl"],
      warp_max_envs=cfg["warp_max_envs"],
      c_fields=fields,
    )
    m = self.mj_model
    self._tips = np.array([m.site(s).id for s in hand_model.FINGERTIPS])
    self._setup_servos(m)

    qpos0 = np.array(m.qpos0, np.float64)
    qpos0[self._qpos_idx] = INITIAL_QPOS
    self._qpos0 = qpos0.astype(np.float32)
    # The initial fingertips and palm, in float64 from C MuJoCo (the reference's `initial_goal` and
    # `palm_xpos`, read after its mj_forward of the initial state).
    d = mujoco.MjData(m)
    d.qpos[:] = qpos0
    mujoco.mj_kinematics(m, d)
    self.initial_goal = np.array(d.site_xpos[self._tips], np.float64).reshape(-1)
    self.palm_xpos = np.array(d.xpos[m.body("palm").id], np.float64)
    # [4 fingers, poses, levels, 15]: loaded only when a curriculum uses it
    self._path_goals = path_goals(self.initial_goal, self.path_to_goal) if any(self.path_goal_probs) else None

  # ---------------------------------------------------------------- sampling
  # The kinds of goal sample_goal draws, for by-kind statistics and filters (e.g. the HER learners'
  # `agent.demo_goal_kinds`): index 0 the initial fingertips, 1 + i the thumb meeting finger i.
  GOAL_KINDS = ("initial", "fore", "middle", "ring", "little")

  def goal_kind(self, goal: jax.Array) -> jax.Array:
    """[...] int32 index into GOAL_KINDS of goals [..., 15]: the first finger (not the thumb) whose
    target lies over 1 mm from its initial tip, else 0 (the initial goal). Meeting goals move theirs
    by several cm."""
    initial = jnp.asarray(self.initial_goal, jnp.float32).reshape(5, 3)
    moved = jnp.linalg.norm(goal.reshape(*goal.shape[:-1], 5, 3) - initial, axis=-1)[..., :THUMB] > 1e-3
    return jnp.where(moved.any(-1), 1 + jnp.argmax(moved, -1), 0).astype(jnp.int32)

  def sample_goal(self, key: jax.Array) -> jax.Array:
    """The reference's `_sample_goal`: [15] fingertip positions (see the module docstring); with
    `goal_kind_probs`, the kind (initial or the finger the thumb meets) drawn from those probabilities;
    with `path_goal_probs`, that share of the goals drawn on the way to a meeting (default_config)."""
    if self._path_goals is None:
      return self._meeting_or_initial(key)
    k_goal, k_which, k_pose, k_alpha = jax.random.split(key, 4)
    p = np.asarray(self.path_goal_probs)
    which = jax.random.categorical(
      k_which, jnp.log(jnp.asarray(np.concatenate([[1 - p.sum()], p]), jnp.float32))
    )
    table = jnp.asarray(self._path_goals)
    finger = jnp.maximum(which - 1, 0)
    pose = jax.random.randint(k_pose, (), 0, table.shape[1])
    path = table[finger, pose, jax.random.randint(k_alpha, (), 0, table.shape[2])]
    return jnp.where(which > 0, path, self._meeting_or_initial(k_goal))

  def policy_goal(self, goal: jax.Array) -> jax.Array:
    """[..., 15] -> [..., 15]: the goal as a learner's networks read it (`seen_goal_min_separation`): for
    each finger with a separation set, a thumb and finger tip closer than it pushed apart to it along
    their line, about their midpoint (the fingers in turn, the thumb moved by each). Identity when none
    is set. Rewards and success are always scored on the real goal."""
    if not any(self.seen_goal_min_separation):
      return goal
    tips = goal.reshape(*goal.shape[:-1], 5, 3)
    for finger, sep in enumerate(self.seen_goal_min_separation):
      if sep <= 0:
        continue
      a, b = tips[..., finger, :], tips[..., THUMB, :]
      mid, d = 0.5 * (a + b), a - b
      n = jnp.linalg.norm(d, axis=-1, keepdims=True)
      # A coincident pair has no line to push along: leave it (never a goal the env draws).
      u = jnp.where(n > 1e-9, d / jnp.maximum(n, 1e-9), 0.0)
      close = n < sep  # the rest keep their values exactly
      a, b = jnp.where(close, mid + 0.5 * sep * u, a), jnp.where(close, mid - 0.5 * sep * u, b)
      tips = tips.at[..., finger, :].set(a).at[..., THUMB, :].set(b)
    return tips.reshape(goal.shape)

  def _meeting_or_initial(self, key: jax.Array) -> jax.Array:
    """[15]: a goal of the reference's kinds (a meeting or the initial tips), goal_kind_probs' shares."""
    k_finger, k_noise, k_initial = jax.random.split(key, 3)
    initial = jnp.asarray(self.initial_goal, jnp.float32).reshape(5, 3)
    if self.goal_kind_probs != REFERENCE_GOAL_KIND_PROBS:
      kind = jax.random.categorical(k_finger, jnp.log(jnp.asarray(self.goal_kind_probs, jnp.float32)))
      meeting = self._meeting_goal(k_noise, initial, kind - 1)
      return jnp.where(kind == 0, initial, meeting).reshape(-1)
    finger = jax.random.randint(k_finger, (), 0, THUMB)  # one of the four fingers
    goal = self._meeting_goal(k_noise, initial, finger)
    goal = jnp.where(jax.random.uniform(k_initial) < P_INITIAL_GOAL, initial, goal)
    return goal.reshape(-1)

  def _meeting_goal(self, key: jax.Array, initial: jax.Array, finger: jax.Array) -> jax.Array:
    """[5, 3]: the thumb and `finger` (0-3) sent to a noisy meeting point, the others at `initial`."""
    meeting = jnp.asarray(self.palm_xpos + np.asarray(MEETING_OFFSET), jnp.float32)
    meeting = meeting + MEETING_NOISE * jax.random.normal(key, (3,))
    away = meeting - initial  # [5, 3]; each tip stops MEETING_GAP short, on its own side
    away = away / jnp.linalg.norm(away, axis=-1, keepdims=True)
    moved = meeting - MEETING_GAP * away
    sent = (jnp.arange(5) == THUMB) | (jnp.arange(5) == finger)
    return jnp.where(sent[:, None], moved, initial)

  # ---------------------------------------------------------------- observations
  def _obs(self, d: mjx.Data, goal: jax.Array):
    tips = d.site_xpos[self._tips].reshape(-1)
    observation = jnp.concatenate([self.hand_obs(d), tips])
    return {
      "observation": observation.astype(jnp.float32),
      "achieved_goal": tips.astype(jnp.float32),
      "desired_goal": goal.astype(jnp.float32),
    }

  # ---------------------------------------------------------------- reset / step
  def reset(self, rng: jax.Array) -> State:
    return self.reset_to(self.sample_goal(rng))

  def reset_to(self, goal: jax.Array, qpos: jax.Array | None = None) -> State:
    """The start state with a given goal [15] (and joint positions [24] in JOINTS order; default the
    reference's initial ones), at rest: e.g. to replay a reference episode."""
    goal = jnp.asarray(goal, jnp.float32)
    if goal.shape != (15,):
      raise ValueError(f"HandReach: goal must have shape (15,), got {goal.shape}")
    full = jnp.asarray(self._qpos0)
    if qpos is not None:
      qpos = jnp.asarray(qpos, jnp.float32)
      if qpos.shape != (24,):
        raise ValueError(f"HandReach: qpos must have shape (24,), got {qpos.shape}")
      full = full.at[self._qpos_idx].set(qpos)
    data = self.make_data()
    data = data.replace(qpos=full, ctrl=jnp.zeros(self.mj_model.nu, jnp.float32))
    data = self.reset_forward(data)
    return self.start_state(data, self._obs(data, goal), goal)

  @property
  def observation_size(self):
    return {"observation": (63,), "achieved_goal": (15,), "desired_goal": (15,)}
