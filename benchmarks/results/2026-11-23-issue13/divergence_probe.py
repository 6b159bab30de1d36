import sys, jax, jax.numpy as jnp, numpy as np, mjx_envs
kw = eval(sys.argv[1]) if len(sys.argv) > 1 else {}
env = mjx_envs.make("BlocksPush", num_objects=1, action_bins=11, terminate_on_success=False, terminate_on_fall=False, table_portion=0.4, **kw)
B, T = 256, 150
def run(key):
  s = jax.vmap(env.reset)(jax.random.split(key, B))
  def body(s, k):
    a = jax.random.randint(k, (B, 6), 0, 11)
    # sticky extreme actions, like a policy that pushes hard: bins 0 or 10 mostly
    a = jnp.where(jax.random.uniform(k, (B, 6)) < 0.7, jnp.where(a > 5, 10, 0), a)
    n = jax.vmap(env.step)(s, a)
    qv = jnp.abs(n.pipeline_state.qvel)
    return n, (n.info["diverged"], jnp.argmax(qv, -1), jnp.max(qv, -1), ~jnp.all(jnp.isfinite(n.pipeline_state.qvel), -1))
  _, out = jax.lax.scan(body, s, jax.random.split(key, T))
  return out
d, arg, mx, nonfin = jax.jit(run)(jax.random.PRNGKey(int(sys.argv[2]) if len(sys.argv) > 2 else 0))
d = np.asarray(d); first = d.argmax(0); hit = d.max(0) > 0
print(kw, "envs diverged:", hit.sum(), "/", B, "nonfinite:", np.asarray(nonfin).max(0).sum())
arg = np.asarray(arg); mx = np.asarray(mx)
dofs = [arg[first[i], i] for i in np.where(hit)[0]]
print("dof at first divergence:", np.bincount(dofs, minlength=env.mj_model.nv), "max qvel there:", [round(float(mx[first[i], i]),1) for i in np.where(hit)[0]][:10])
print("jnt of dofs:", [env.mj_model.joint(env.mj_model.dof_jntid[k]).name for k in range(env.mj_model.nv)])
