"""Compute accounting: loop-corrected FLOPs equal XLA's count of the same function unrolled."""

import jax
import jax.numpy as jnp
import pytest

from agents.league import flops


def _step(c, w):
  return jnp.tanh(c @ w)


def test_nested_scans_count_like_the_unrolled_function():
  x, w = jnp.ones((8, 32)), jnp.ones((32, 32))

  def looped(x, w):
    def outer(c, _):
      c = jax.lax.scan(lambda c2, _: (_step(c2, w), None), c, None, length=5)[0]
      return _step(c, w) * 2.0, None

    return jax.lax.scan(outer, x, None, length=3)[0]

  def unrolled(x, w):
    c = x
    for _ in range(3):
      for _ in range(5):
        c = _step(c, w)
      c = _step(c, w) * 2.0
    return c

  got = flops.count(looped, x, w)
  want = flops.count(unrolled, x, w)
  assert want["scans"] == 0 and got["scans"] == 2
  assert got["flops"] == pytest.approx(want["flops"], rel=0.02)
  # XLA alone counts each loop body once: 1 + 1 steps instead of 3 x (5 + 1).
  assert got["xla_flops"] < got["flops"] / 5
  assert flops.pflops_days(flops.PFLOPS_DAY) == 1.0


def test_while_loops_are_counted_once_and_reported():
  def f(x):
    return jax.lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, jnp.sin(c[1])), (0, x))[1]

  out = flops.count(f, jnp.ones((100,)))
  assert out["while_loops"] == 1 and out["flops"] == out["xla_flops"]
