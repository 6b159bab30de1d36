"""Compute accounting (OpenAI Five reports its compute in PFLOP/s-days): floating-point operations of a
jitted function from XLA's HLO cost analysis, with loops counted as often as they run.

XLA's cost analysis (`jax.jit(f).lower(...).cost_analysis()`, also on `.compile()`) counts the body of a
loop once, whatever its trip count, so a training step, a scan over an unroll and over epochs x
minibatches, comes out short by orders of magnitude. `count` corrects that from the function's jaxpr:

  total(f) = once(f) + sum over the loops L directly in f of [ trips(L) x total(body(L)) - once(body(L)) ]

where once() is XLA's count of the lowered HLO and a loop's body is lowered on its own. A `scan` runs its
`length`; a `while_loop` has no static trip count (MJX's solver and line search stop on convergence), so
it is counted once, as XLA does, and reported in `while_loops`: the total is then a lower bound for the
work inside them. Conditionals count as XLA counts them. The FLOPs are those of the unoptimised HLO (XLA's
fusions move memory, not arithmetic).
"""

from __future__ import annotations

from typing import Any

import jax
from jax.extend import core as jcore

PFLOPS_DAY = 1e15 * 86400.0


def _xla_flops(lowered) -> float:
  ca = lowered.cost_analysis()
  ca = ca[0] if isinstance(ca, (list, tuple)) else ca
  return float((ca or {}).get("flops", 0.0))


def _once(closed) -> float:
  """XLA's count for a closed jaxpr lowered as its own function (loops counted once)."""
  fn = jcore.jaxpr_as_fun(closed)
  args = [jax.ShapeDtypeStruct(v.aval.shape, v.aval.dtype) for v in closed.jaxpr.invars]
  return _xla_flops(jax.jit(fn).lower(*args))


def _sub_jaxprs(params):
  for v in params.values():
    for x in v if isinstance(v, (tuple, list)) else (v,):
      if isinstance(x, jcore.ClosedJaxpr):
        yield x
      elif isinstance(x, jcore.Jaxpr):
        yield jcore.ClosedJaxpr(x, ())


def _loop_extra(jaxpr, stats) -> float:
  """sum over the loops in `jaxpr` (looking through calls and conditionals, not into loop bodies) of
  trips x total(body) - once(body)."""
  extra = 0.0
  for eqn in jaxpr.eqns:
    name = eqn.primitive.name
    if name == "scan":
      body = eqn.params["jaxpr"]
      once = _once(body)
      total = once + _loop_extra(body.jaxpr, stats)
      extra += eqn.params["length"] * total - once
      stats["scans"] += 1
    elif name == "while":
      stats["while_loops"] += 1
      for sub in (eqn.params["body_jaxpr"], eqn.params["cond_jaxpr"]):
        extra += _loop_extra(sub.jaxpr, stats)  # loops nested in it still run their trips per iteration
    else:
      for sub in _sub_jaxprs(eqn.params):
        extra += _loop_extra(sub.jaxpr, stats)
  return extra


def count(fn, *args, **kwargs) -> dict[str, Any]:
  """FLOPs of one call of `fn(*args, **kwargs)` (args may be ShapeDtypeStructs) ->
  {"flops", "xla_flops" (XLA's own count, loops once), "scans", "while_loops"}."""
  traced = jax.jit(fn, **kwargs).trace(*args)
  stats = {"scans": 0, "while_loops": 0}
  once = _xla_flops(traced.lower())
  extra = _loop_extra(traced.jaxpr.jaxpr, stats)
  return {"flops": once + extra, "xla_flops": once, **stats}


def pflops_days(flops: float) -> float:
  return flops / PFLOPS_DAY
