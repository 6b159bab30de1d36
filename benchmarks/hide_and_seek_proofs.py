"""Scripted proofs that the hide-and-seek world is real (no learning): prints the table.

    python benchmarks/hide_and_seek_proofs.py                 # all proofs, 100 scripted quadrant episodes
    python benchmarks/hide_and_seek_proofs.py --episodes 32

Open-loop scenes run in ONE compiled rollout (a batch of worlds of a small quadrant env: 1 hider,
1 seeker, 1 box, 1 ramp, no preparation phase, the room closed or open as the scene sets it):

  force        a hider pushed by full +x force for 12 steps, then none: speed, travel, stop; against the
               1-D motion of the same body (mass 1, damping 25, Coulomb friction 0.2 x 50 N), integrated
  climb        a hider drives up a ramp set against a box (the box against the east wall), then stops
  grab         a hider grabs the box in front (8 cm away) and pulls it 10 steps, stops, releases, leaves
  grab_behind  the box behind the hider: grab does nothing
  grab_far     the box in front but 35 cm from the hider's centre: grab does nothing
  lock_push    the hider locks the box and leaves; the seeker pushes it for 22 steps, and presses lock
  lock_own     the hider locks the box, pushes it (pressing lock), then releases lock by it, and pushes
  vision       closed room: a hider inside, the seeker outside facing it through the wall; a box in the
               open in front of the seeker, the ramp behind it; lidar of the seeker vs. analytic ranges
  seen         a hider in the open in front of the seeker

Then `quadrant_policy` (mjx_envs/hide_and_seek/scripted.py) plays `--episodes` default quadrant episodes:
the rate of episodes where the hiders' reward is +1 on every step after the preparation phase.
tests/mjx_envs/test_hide_and_seek.py asserts on the same measurements.
"""

from __future__ import annotations

import mjx_envs
from mjx_envs.hide_and_seek import scene as S
from mjx_envs.hide_and_seek import scripted
from mjx_envs.hide_and_seek.env import NEUTRAL_BIN

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np

T = 24
SCENE_CONFIG = dict(
  n_hiders=[1, 1], n_seekers=[1, 1], n_boxes=[1, 1], n_ramps=[1, 1], prep_fraction=0.0, door_dropout=0.0
)
# Room walls: closed (no doors), or with the x = 3 wall's door at y = 1.5 (open).
CLOSED = [[3, 0, 3, 1.5], [3, 1.5, 3, 3.05], [2.95, 3, 4.5, 3], [4.5, 3, 6, 3]]
# Out of the way: inside the closed room.
AWAY = {
  "hider": [4.2, 0.6, 0.15, 0.0],
  "seeker": [5.5, 2.5, 0.15, 0.0],
  "box": [5.5, 0.5, 0.25, 0.0],
  "ramp": [4.2, 1.8, 0.0, 0.0],
}
F, DAMPING, MU_G = S.ACTION_LIM * S.MOTOR_GEAR, S.JOINT_DAMPING, S.BOX_FRICTION * 50.0


def _acts(**per_step):
  """Per-step actions [T] for (hider, seeker): keys h_move, s_move ([T, 3] bins), h_grab, ..."""
  # Floats, so that one scene can send NaN (the env takes ints or floats).
  out = {
    "move": np.full((T, 2, 3), NEUTRAL_BIN, np.float32),
    "grab": np.zeros((T, 2), np.float32),
    "lock": np.zeros((T, 2), np.float32),
  }
  for k, v in per_step.items():
    who, what = k.split("_")
    out[what][:, 0 if who == "h" else 1] = v
  return out


def _seq(*spans, width=3, default=NEUTRAL_BIN):
  """[T, width] from (start, stop, value) spans; value a scalar or a [width] row."""
  a = np.full((T, width) if width else (T,), default, np.int32)
  for start, stop, value in spans:
    a[start:stop] = value
  return a


def scenes():
  """name -> (hider pose, seeker pose, box pose, ramp pose, walls, actions)."""
  ax = lambda x: [x, NEUTRAL_BIN, NEUTRAL_BIN]
  A = AWAY
  return {
    "force": (
      [1.0, 4.5, 0.15, 0.0],
      A["seeker"],
      A["box"],
      A["ramp"],
      CLOSED,
      _acts(h_move=_seq((0, 12, ax(10)))),
    ),
    "climb": (
      [4.1, 4.5, 0.15, 0.0],
      A["seeker"],
      [5.75, 4.5, 0.25, 0.0],
      [5.0, 4.5, 0.0, 0.0],
      CLOSED,
      _acts(h_move=_seq((0, 10, ax(10)))),
    ),
    "grab": (
      [2.0, 4.5, 0.15, 0.0],
      A["seeker"],
      [2.48, 4.5, 0.25, 0.0],
      A["ramp"],
      CLOSED,
      _acts(h_move=_seq((0, 10, ax(0)), (14, 24, ax(0))), h_grab=_seq((0, 14, 1), width=0, default=0)),
    ),
    "grab_behind": (
      [2.0, 4.5, 0.15, np.pi],
      A["seeker"],
      [2.48, 4.5, 0.25, 0.0],
      A["ramp"],
      CLOSED,
      _acts(h_grab=_seq((0, 24, 1), width=0, default=0)),
    ),
    "grab_far": (
      [2.0, 4.5, 0.15, 0.0],
      A["seeker"],
      [2.6, 4.5, 0.25, 0.0],
      A["ramp"],
      CLOSED,
      _acts(h_grab=_seq((0, 24, 1), width=0, default=0)),
    ),
    "lock_push": (
      [2.0, 4.5, 0.15, 0.0],
      [3.1, 4.5, 0.15, np.pi],
      [2.48, 4.5, 0.25, 0.0],
      A["ramp"],
      CLOSED,
      _acts(
        h_lock=_seq((0, 24, 1), width=0, default=0),
        h_move=_seq((1, 6, ax(0))),
        s_move=_seq((1, 24, ax(0))),
        s_lock=_seq((12, 24, 1), width=0, default=0),
      ),
    ),
    "lock_own": (
      [2.0, 4.5, 0.15, 0.0],
      A["seeker"],
      [2.48, 4.5, 0.25, 0.0],
      A["ramp"],
      CLOSED,
      _acts(h_lock=_seq((0, 9, 1), width=0, default=0), h_move=_seq((1, 9, ax(10)), (10, 24, ax(10)))),
    ),
    "vision": (
      [4.5, 1.6, 0.15, np.pi],
      [2.0, 1.6, 0.15, 0.0],
      [2.6, 2.6, 0.25, 0.0],
      [1.0, 1.6, 0.0, 0.0],
      CLOSED,
      _acts(),
    ),
    "seen": ([2.0, 4.5, 0.15, 0.0], [1.0, 4.5, 0.15, 0.0], A["box"], A["ramp"], CLOSED, _acts()),
    # NaN and out-of-range actions: x NaN (-> no force), y 12 (-> bin 10), torque -3 (-> bin 0);
    # grab NaN (-> 0), lock 0.7 (-> 1).
    "bad": (
      [1.0, 4.0, 0.15, 0.0],
      A["seeker"],
      A["box"],
      A["ramp"],
      CLOSED,
      _acts(
        h_move=np.tile(np.array([np.nan, 12, -3], np.float32), (T, 1)),
        h_grab=np.full(T, np.nan, np.float32),
        h_lock=np.full(T, 0.7, np.float32),
      ),
    ),
  }


def scene_env(**overrides):
  return mjx_envs.make("HideAndSeekQuadrant", **{**SCENE_CONFIG, **overrides})


def run_scenes(env, key=None):
  """Runs every scene in one batch. Returns (names, the reset states after `with_poses`, the stacked
  states after each step [T, scenes, ...])."""
  key = jax.random.PRNGKey(0) if key is None else key
  table = scenes()
  names = list(table)
  agent = np.array([[v[0], v[1]] for v in table.values()], np.float32)
  obj = np.array([[v[2], v[3]] for v in table.values()], np.float32)
  wall_pos, wall_size = zip(*[S.wall_boxes(v[4]) for v in table.values()])
  acts = {k: np.stack([v[5][k] for v in table.values()], 1) for k in ("move", "grab", "lock")}

  @jax.jit
  def run(key, agent, obj, wall_pos, wall_size, acts):
    s = jax.vmap(env.reset)(jax.random.split(key, len(names)))
    s = jax.vmap(env.with_poses)(s, agent, obj, wall_pos, wall_size)

    def body(s, a):
      s = jax.vmap(env.step)(s, a)
      return s, s

    return s, jax.lax.scan(body, s, acts)[1]

  start, traj = run(key, agent, obj, jnp.stack(wall_pos), jnp.stack(wall_size), acts)
  return names, start, traj


def slide_1d(n_push: int, n_total: int, n_sub: int = 15, dt: float = 0.005):
  """Positions [n_total] at the end of each control step of the 1-D model: mass 1, force F for n_push
  steps, damping DAMPING, Coulomb friction MU_G (semi-implicit Euler at the physics step)."""
  x, v, out = 0.0, 0.0, []
  for t in range(n_total):
    f = F if t < n_push else 0.0
    for _ in range(n_sub):
      drive = f - DAMPING * v
      fric = -np.sign(v) * MU_G if abs(v) > 1e-6 else -np.sign(drive) * min(abs(drive), MU_G)
      v = (v + dt * (f + fric)) / (1 + dt * DAMPING)  # damping implicit, as MuJoCo's Euler
      v = 0.0 if (f == 0.0 and abs(v) < dt * MU_G) else v
      x += dt * v
    out.append(x)
  return np.array(out)


def analytic_lidar(origin, walls_pos, walls_size, n_rays=30, max_range=6.0):
  """Ranges [n_rays] from `origin` [2] to the outer planes and the inner wall boxes (2-D slabs)."""
  ang = np.linspace(0, 2 * np.pi, n_rays, endpoint=False)
  d = np.stack([np.cos(ang), np.sin(ang)], -1)
  best = np.full(n_rays, np.inf)
  with np.errstate(divide="ignore", invalid="ignore"):
    for axis in (0, 1):
      for plane in (0.0, S.FLOOR_SIZE):
        t = (plane - origin[axis]) / d[:, axis]
        best = np.where((t > 0) & (t < best), t, best)
    for p, h in zip(walls_pos, walls_size):
      lo, hi = p[:2] - h[:2], p[:2] + h[:2]
      t1, t2 = (lo - origin) / d, (hi - origin) / d
      tmin, tmax = np.max(np.minimum(t1, t2), -1), np.min(np.maximum(t1, t2), -1)
      hit = (tmax >= tmin) & (tmin > 0)
      best = np.where(hit & (tmin < best), tmin, best)
  return np.minimum(best, max_range), d


def measure(env, names, start, traj):
  """The proofs' numbers, by scene."""
  i = {n: k for k, n in enumerate(names)}
  aj, oj = env._agent_j, env._obj_j  # pylint: disable=protected-access
  q = np.asarray(traj.pipeline_state.qpos)  # [T, scenes, nq]
  qv = np.asarray(traj.pipeline_state.qvel)
  q0 = np.asarray(start.pipeline_state.qpos)
  grabbed = np.asarray(traj.info["grabbed"])  # [T, scenes, A]
  locked = np.asarray(traj.info["locked"])  # [T, scenes, O]
  team = np.asarray(traj.info["lock_team"])
  out = {}
  # force: the hider's x and speed.
  x = q[:, i["force"], aj[0, 0]] - q0[i["force"], aj[0, 0]]
  model = slide_1d(12, T, env.n_substeps, float(env.mj_model.opt.timestep))
  out["force"] = {
    "top_speed": float(np.max(qv[:, i["force"], aj[0, 0]])),
    "model_top_speed": float((F - MU_G) / DAMPING),
    "travel": float(x[-1]),
    "model_travel": float(model[-1]),
    "max_path_error": float(np.max(np.abs(x - model))),
    "final_speed": float(abs(qv[-1, i["force"], aj[0, 0]])),
    "steps_to_stop": int(np.argmax(np.abs(qv[12:, i["force"], aj[0, 0]]) < 0.01)),
  }
  c = i["climb"]
  out["climb"] = {
    "final_x": float(q[-1, c, aj[0, 0]]),
    "final_z": float(q[-1, c, aj[0, 2]]),
    "min_z_last_10": float(np.min(q[-10:, c, aj[0, 2]])),
    "box_top_z": 2 * S.BOX_HALF + S.AGENT_RADIUS,
  }
  g = i["grab"]
  box_x = q[:, g, oj[0, 0]]
  out["grab"] = {
    "grabbed_steps": int(np.sum(grabbed[:14, g, 0] == 0)),
    "box_pulled": float(q0[g, oj[0, 0]] - box_x[13]),
    "agent_pulled": float(q0[g, aj[0, 0]] - q[13, g, aj[0, 0]]),
    "box_moved_after_release": float(np.max(np.abs(box_x[14:] - box_x[13]))),
    "agent_left": float(box_x[-1] - q[-1, g, aj[0, 0]]),
  }
  for n in ("grab_behind", "grab_far"):
    out[n] = {
      "grabbed_steps": int(np.sum(grabbed[:, i[n], 0] >= 0)),
      "box_moved": float(np.max(np.abs(q[:, i[n], oj[0, :2]] - q0[i[n], oj[0, :2]]))),
    }
  lp = i["lock_push"]
  out["lock_push"] = {
    "locked_steps": int(np.sum(locked[:, lp, 0] > 0)),
    "hider_team_lock_steps": int(np.sum((locked[:, lp, 0] > 0) & (team[:, lp, 0] == 1))),
    "box_moved": float(np.max(np.linalg.norm(q[:, lp, oj[0, :2]] - q0[lp, oj[0, :2]], axis=-1))),
    "seeker_reached_box": float(np.min(q[:, lp, aj[1, 0]] - q[:, lp, oj[0, 0]])),
  }
  lo = i["lock_own"]
  bx = q[:, lo, oj[0, 0]] - q0[lo, oj[0, 0]]
  out["lock_own"] = {
    "locked_while_pressed": int(np.sum(locked[:9, lo, 0] > 0)),
    "moved_while_locked": float(np.max(np.abs(bx[:9]))),
    "unlocked_after": int(np.sum(locked[10:, lo, 0] == 0)),
    "moved_after_unlock": float(bx[-1] - bx[9]),
  }
  v = i["vision"]
  obs = jax.tree.map(np.asarray, start.obs)
  walls = np.asarray(start.info["wall_pos"][v]), np.asarray(start.info["wall_size"][v])
  seeker = q0[v, aj[1, :2]]
  want, dirs = analytic_lidar(seeker, *walls)
  # Rays that pass an entity (box, ramp, hider) before the wall measure the entity: left out.
  ents = [q0[v, oj[0, :2]], q0[v, oj[1, :2]], q0[v, aj[0, :2]]]
  clear = np.ones(len(want), bool)
  for e, r in zip(ents, (0.36, 0.56, 0.16)):
    rel = e - seeker
    along = dirs @ rel
    perp = np.abs(dirs[:, 0] * rel[1] - dirs[:, 1] * rel[0])
    clear &= ~((along > 0) & (perp < r + 0.02) & (along < want + r))
  lidar = obs["lidar"][v, 1]
  out["vision"] = {
    "seeker_sees_hider_behind_wall": float(obs["agents_mask"][v, 1, 0]),
    "hider_sees_seeker_behind_wall": float(obs["agents_mask"][v, 0, 1]),
    "seeker_sees_box_in_front": float(obs["boxes_mask"][v, 1, 0]),
    "seeker_sees_ramp_behind_it": float(obs["ramps_mask"][v, 1, 0]),
    "hider_present_unmasked": float(obs["agents_present"][v, 1, 0]),
    "masked_features_zero": float(np.abs(obs["agents"][v, 1, 0]).sum() == 0),
    "full_features_true": float(np.allclose(obs["agents_full"][v, 1, 0, :3], q0[v, aj[0, :3]])),
    "lidar_rays_checked": int(clear.sum()),
    "lidar_max_error": float(np.max(np.abs(lidar[clear] - want[clear]))),
    "hider_reward": float(np.asarray(traj.reward)[0, v, 0]),
    "seeker_reward": float(np.asarray(traj.reward)[0, v, 1]),
  }
  b = i["bad"]
  out["bad"] = {
    "bad_action_steps": int(np.sum(np.asarray(traj.metrics["bad_action"])[:, b] > 0)),
    "finite": float(
      np.all(np.isfinite(q[:, b]))
      and all(np.all(np.isfinite(np.asarray(x)[:, b])) for x in jax.tree.leaves(traj.obs))
    ),
    "hider_dx": float(q[-1, b, aj[0, 0]] - q0[b, aj[0, 0]]),
    "hider_dy": float(q[-1, b, aj[0, 1]] - q0[b, aj[0, 1]]),
    "hider_turned": float(q[-1, b, aj[0, 3]] - q0[b, aj[0, 3]]),
  }
  se = i["seen"]
  out["seen"] = {
    "seeker_sees_hider": float(obs["agents_mask"][se, 1, 0]),
    "hider_reward": float(np.asarray(traj.reward)[0, se, 0]),
    "seeker_reward": float(np.asarray(traj.reward)[0, se, 1]),
  }
  return out


def scripted_rate(episodes: int, seed: int = 0, env=None):
  """The scripted quadrant game over `episodes` episodes: (rate of episodes with every hider hidden on
  every step after the preparation phase, extra statistics)."""
  env = env or mjx_envs.make("HideAndSeekQuadrant")
  policy = scripted.quadrant_policy(env)

  @jax.jit
  def run(key):
    s = jax.vmap(env.reset)(jax.random.split(key, episodes))
    _, traj = jax.vmap(lambda s: scripted.rollout(env, policy, s, env.episode_length))(s)
    return s, traj

  s0, traj = run(jax.random.PRNGKey(seed))
  m = jax.tree.map(np.asarray, traj.metrics)
  after = m["hider_reward"][:, env.prep_steps :]
  doors = np.asarray(env.door_centres(s0)[1]).sum(-1)
  seekers = env._agent_j[env.n_hiders :, :2]  # pylint: disable=protected-access
  seeker_moved_in_prep = np.abs(
    np.asarray(traj.pipeline_state.qpos)[:, env.prep_steps - 1][:, seekers]
    - np.asarray(s0.pipeline_state.qpos)[:, seekers]
  ).max()
  return float(np.mean(np.all(after == 1, -1))), {
    "episodes": episodes,
    "doors": float(doors.mean()),
    "locked_at_prep_end": float(m["num_box_lock_prep"][:, -1].mean()),
    "all_doors_locked": float(np.mean(m["num_box_lock_prep"][:, -1] >= doors)),
    "hidden_fraction": float(m["hidden_fraction"][:, -1].mean()),
    "prep_rewards_zero": float(np.all(np.asarray(traj.reward)[:, : env.prep_steps] == 0)),
    "seeker_moved_in_prep": float(seeker_moved_in_prep),
    "finite": float(np.all(np.isfinite(np.asarray(traj.pipeline_state.qpos)))),
  }


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument("--episodes", type=int, default=100)
  p.add_argument("--seed", type=int, default=0)
  args = p.parse_args(argv)
  env = scene_env()
  t0 = time.time()
  names, start, traj = run_scenes(env)
  for scene, values in measure(env, names, start, traj).items():
    print(
      f"{scene:12s} "
      + ", ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in values.items())
    )
  print(f"(scenes: {time.time() - t0:.0f} s with compile)")
  t0 = time.time()
  rate, extra = scripted_rate(args.episodes, args.seed)
  print(
    f"scripted quadrant: hiders hidden on every step after the preparation phase in {rate:.2f} of "
    f"episodes; " + ", ".join(f"{k} {v:.2f}" for k, v in extra.items())
  )
  print(f"({time.time() - t0:.0f} s with compile)")


if __name__ == "__main__":
  main()
