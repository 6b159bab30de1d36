"""What a hide-and-seek step costs, and whether a physics setting keeps the world sane (BENCHMARKS.md,
"Hide-and-seek"; benchmarks/results/hide-and-seek/NOTES.md):

    python benchmarks/hide_and_seek_cost.py settings "dict(sim_dt=0.005, n_substeps=15, max_contacts=48)"
    python benchmarks/hide_and_seek_cost.py welds HideAndSeek

`settings`: 64 worlds x 80 random control steps of the env with those overrides: control steps/s (the
second, compiled call), diverged episodes, the largest |qvel|; for the quadrant also the scripted game's
rate over 32 episodes (benchmarks/hide_and_seek_proofs.py). `welds`: physics only (10 substeps of
`mjx.step` per control step, random controls, each world's walls and joint ranges), with and without
the pair welds that grab needs.
"""

from __future__ import annotations

import mjx_envs
from mjx_envs.hide_and_seek import scene as S

import re
import sys
import time

import jax
import jax.numpy as jnp
import mujoco
import numpy as np
from mujoco import mjx

N, T = 64, 80


def settings(overrides: dict, name: str = "HideAndSeekQuadrant"):
  env = mjx_envs.make(name, **overrides)

  @jax.jit
  def run(key):
    s = jax.vmap(env.reset)(jax.random.split(key, N))

    def body(s, k):
      s = jax.vmap(env.step)(s, jax.vmap(env.random_action)(jax.random.split(k, N)))
      return s, (s.done, jnp.max(jnp.abs(s.pipeline_state.qvel), -1))

    return jax.lax.scan(body, s, jax.random.split(key, T))

  jax.block_until_ready(run(jax.random.PRNGKey(0)))
  t = time.perf_counter()
  _, (done, v) = jax.block_until_ready(run(jax.random.PRNGKey(1)))
  dt = time.perf_counter() - t
  print(
    f"{name} {overrides}: {N * T / dt:,.0f} ctrl steps/s; diverged {int(np.sum(done))} of {N * T} "
    f"world-steps; largest |qvel| {float(np.max(v)):.1f}",
    flush=True,
  )
  if name == "HideAndSeekQuadrant":
    from benchmarks import hide_and_seek_proofs  # pylint: disable=import-outside-toplevel

    rate, extra = hide_and_seek_proofs.scripted_rate(32, seed=1, env=env)
    print(f"  scripted hiders hidden after preparation in {rate:.2f} of 32 episodes; {extra}")


def welds(name: str = "HideAndSeekQuadrant"):
  env = mjx_envs.make(name)
  c = env.config
  s = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.PRNGKey(0), N))
  xml = S.scene_xml(
    env.num_agents,
    env.n_boxes,
    env.n_ramps,
    env.n_walls,
    c["sim_dt"],
    c["gravity"],
    c["iterations"],
    c["ls_iterations"],
    c["max_contacts"],
  )
  for label, x in (
    ("with the pair welds", xml),
    ("without", re.sub(r"<equality>.*?</equality>", "", xml, flags=re.S)),
  ):
    m = mujoco.MjModel.from_xml_string(x)
    mx = mjx.put_model(m)

    def phys(d, info, key, m=m, mx=mx):
      mm = mx.replace(
        geom_pos=mx.geom_pos.at[env._wall_geom].set(info["wall_pos"]),  # pylint: disable=protected-access
        geom_size=mx.geom_size.at[env._wall_geom]
        .set(info["wall_size"])  # pylint: disable=protected-access
        .at[env._box_geom]
        .set(info["box_size"]),  # pylint: disable=protected-access
        jnt_range=info["jnt_range"],
      )
      d = mjx.make_data(m).replace(qpos=d.qpos, qvel=d.qvel)

      def body(d, k):
        d = d.replace(ctrl=jax.random.uniform(k, (m.nu,), minval=-S.ACTION_LIM, maxval=S.ACTION_LIM))
        return jax.lax.fori_loop(0, env.n_substeps, lambda i, d: mjx.step(mm, d), d), None

      return jax.lax.scan(body, d, jax.random.split(key, 20))[0].qpos

    f = jax.jit(jax.vmap(phys, in_axes=(0, 0, None)))
    jax.block_until_ready(f(s.pipeline_state, s.info, jax.random.PRNGKey(1)))
    t = time.perf_counter()
    jax.block_until_ready(f(s.pipeline_state, s.info, jax.random.PRNGKey(2)))
    print(
      f"{name} {label}: {N * 20 / (time.perf_counter() - t):,.0f} ctrl steps/s (physics only)", flush=True
    )


if __name__ == "__main__":
  if len(sys.argv) < 2 or sys.argv[1] not in ("settings", "welds"):
    raise SystemExit(__doc__)
  if sys.argv[1] == "settings":
    settings(eval(sys.argv[2]) if len(sys.argv) > 2 else {}, *sys.argv[3:4])  # pylint: disable=eval-used
  else:
    welds(*sys.argv[2:3])
