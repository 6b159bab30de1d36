"""OpenAI Five's optimisation and data-quality practice: the per-parameter +-k sqrt(v) clip (through
optax), gradual schedules, team spirit."""

import jax.numpy as jnp
import numpy as np
import pytest

from agents.common import optim
from agents.league import team_spirit


def test_second_moment_clip_cuts_a_spike_per_parameter():
  tx = optim.clip_by_second_moment(5.0, b2=0.999)
  params = {"a": jnp.zeros(2)}
  state = tx.init(params)
  # The first step is never clipped (v_hat = g^2).
  out, state = tx.update({"a": jnp.array([1.0, -3.0])}, state)
  np.testing.assert_allclose(out["a"], [1.0, -3.0])
  for _ in range(200):  # steady gradients of size 1 on both parameters
    out, state = tx.update({"a": jnp.array([1.0, -1.0])}, state)
    np.testing.assert_allclose(np.abs(out["a"]), 1.0, rtol=1e-6)  # within 5 sqrt(v): untouched
  # A 1000x spike on parameter 0 only: cut to 5 sqrt(v_hat) with v_hat including the spike; parameter 1
  # is untouched (a global-norm clip would have shrunk it too).
  out, state = tx.update({"a": jnp.array([1000.0, -1.0])}, state)
  nu = np.asarray(state.nu["a"])
  bound = 5.0 * np.sqrt(nu[0] / (1.0 - 0.999 ** int(state.count)))
  np.testing.assert_allclose(out["a"][0], bound, rtol=1e-5)
  assert 5.0 < bound < 500.0  # the spike is cut to well under half
  np.testing.assert_allclose(out["a"][1], -1.0, rtol=1e-6)
  with pytest.raises(ValueError, match="k must be > 0"):
    optim.clip_by_second_moment(0.0)


def test_make_chains_the_clip_in_front_of_adam():
  params = {"w": jnp.ones(3)}
  plain, clipped = optim.make(1e-3), optim.make(1e-3, clip_sqrt_v=5.0, max_grad_norm=1.0)
  g = {"w": jnp.array([0.1, -0.2, 0.3])}
  u1, _ = plain.update(g, plain.init(params), params)
  u2, _ = clipped.update(g, clipped.init(params), params)
  # First step: Adam's update is -lr * sign(g) either way (the clips change nothing yet).
  np.testing.assert_allclose(u1["w"], -1e-3 * np.sign(g["w"]), rtol=1e-4)
  np.testing.assert_allclose(u2["w"], u1["w"], rtol=1e-4)


@pytest.mark.parametrize("kind", optim.SCHEDULES)
def test_schedules_change_gradually(kind):
  f = optim.schedule(1.0, 0.1, kind, 100)
  vals = np.array([float(f(i)) for i in range(0, 121)])
  assert vals[0] == pytest.approx(1.0)
  if kind == "constant":
    np.testing.assert_allclose(vals, 1.0)
    return
  assert vals[100] == pytest.approx(0.1, rel=1e-5) and vals[120] == pytest.approx(0.1, rel=1e-5)  # then held
  steps = np.abs(np.diff(vals[:101]))
  assert np.all(np.diff(vals[:101]) <= 1e-7) and steps.max() < 0.02  # monotone, no jump
  with pytest.raises(ValueError, match="schedule kind"):
    optim.schedule(1.0, 0.0, "step", 10)


def test_team_spirit():
  rho = jnp.array([1.0, 0.0, 0.0, 0.0, 4.0])  # agents 0-2 team 0 (hiders), 3-4 team 1 (seekers)
  team = jnp.array([0, 0, 0, 1, 1])
  selfish = team_spirit.team_rewards(rho, team, 0.0, zero_sum=False)
  np.testing.assert_allclose(selfish, rho)
  shared = team_spirit.team_rewards(rho, team, 1.0, zero_sum=False)
  np.testing.assert_allclose(shared, [1 / 3, 1 / 3, 1 / 3, 2.0, 2.0], rtol=1e-6)
  half = team_spirit.team_rewards(rho, team, 0.5, zero_sum=False)
  np.testing.assert_allclose(half, 0.5 * rho + 0.5 * shared, rtol=1e-6)
  # Zero-sum: minus the mean of the other team's (blended) rewards.
  zs = team_spirit.team_rewards(rho, team, 0.5, zero_sum=True)
  np.testing.assert_allclose(zs[:3], half[:3] - np.mean(half[3:]), rtol=1e-6)
  np.testing.assert_allclose(zs[3:], half[3:] - np.mean(half[:3]), rtol=1e-6)
  # An absent agent (mask 0) takes no part in any mean and gets 0.
  mask = jnp.array([1.0, 1.0, 0.0, 1.0, 1.0])
  m = team_spirit.team_rewards(rho, team, 1.0, zero_sum=False, mask=mask)
  np.testing.assert_allclose(m, [0.5, 0.5, 0.0, 2.0, 2.0], rtol=1e-6)
  # Batched over leading axes.
  assert team_spirit.team_rewards(jnp.stack([rho, rho]), team, 0.3).shape == (2, 5)
  with pytest.raises(ValueError, match="team must be"):
    team_spirit.team_rewards(rho, jnp.array([0, 1]), 0.3)
