"""The Alice/Bob game: every row of the reward table and every validation rule, by scripted scenarios
(teleporting a block where a turn should leave it) on one compiled step."""

import mjx_envs
from mjx_envs.blocks import selfplay
from mjx_envs.blocks.scene import BLOCK_HALF, TABLE_POS, TABLE_Z

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

ALICE_STEPS, BOB_STEPS = 3, 4
NOOP = jnp.full((6,), 5)  # the middle bin of every dimension: no motion
Z = TABLE_Z + BLOCK_HALF
IN_ZONE = (TABLE_POS[0] + 0.1, TABLE_POS[1], Z)
OUT_OF_ZONE = (TABLE_POS[0] + 0.5, TABLE_POS[1], Z)  # on the table, outside the placement area
OFF_TABLE = (TABLE_POS[0] + 0.9, TABLE_POS[1], Z)


@pytest.fixture(scope="module")
def game():
  env = mjx_envs.make(
    "BlocksSelfPlay", num_objects=1, alice_steps=ALICE_STEPS, bob_steps_per_object=BOB_STEPS, max_goals=3
  )
  adr = int(env.world._obj_qpos[0])  # pylint: disable=protected-access

  def teleport(state, who, pos):
    ws = state.pipeline_state[who]
    data = ws.pipeline_state
    data = data.replace(
      qpos=data.qpos.at[adr : adr + 3].set(jnp.asarray(pos)), qvel=jnp.zeros_like(data.qvel)
    )
    return state.replace(pipeline_state={**state.pipeline_state, who: ws.replace(pipeline_state=data)})

  return env, jax.jit(env.reset), jax.jit(env.step), jax.jit(teleport, static_argnums=1)


def _alice_turn(game, state, pos=None):
  """Alice's turn: no-ops, with the block teleported to `pos` before her last step."""
  _, _, step, teleport = game
  for k in range(ALICE_STEPS):
    if pos is not None and k == ALICE_STEPS - 1:
      state = teleport(state, "alice", pos)
    state = step(state, NOOP)
  return state


def _bob_turn(game, state, solve: bool):
  _, _, step, teleport = game
  steps = []
  for k in range(BOB_STEPS):
    if solve and k == 1:
      state = teleport(state, "bob", state.info["goal"][0, :3])
    state = step(state, NOOP)
    steps.append(state)
    if int(state.info["phase"]) != selfplay.BOB:
      break
  return state, steps


def test_bob_starts_from_alices_initial_state(game):
  env, reset, step, teleport = game
  s = reset(jax.random.PRNGKey(0))
  chex.assert_trees_all_equal(
    s.pipeline_state["alice"].pipeline_state.qpos, s.pipeline_state["bob"].pipeline_state.qpos
  )
  assert "desired_goal" in s.obs["bob"] and int(s.info["phase"]) == selfplay.ALICE
  # Each agent sees the fraction of its turn still to come.
  assert float(s.obs["alice"]["steps_left"]) == 1.0 and float(s.obs["bob"]["steps_left"]) == 1.0
  s1 = step(s, NOOP)
  np.testing.assert_allclose(float(s1.obs["alice"]["steps_left"]), 1.0 - 1.0 / ALICE_STEPS, rtol=1e-6)
  s = _alice_turn(game, s, IN_ZONE)
  assert float(s.obs["bob"]["steps_left"]) == 1.0
  np.testing.assert_allclose(float(step(s, NOOP).obs["bob"]["steps_left"]), 1.0 - 1.0 / BOB_STEPS, rtol=1e-6)
  # Alice's copy moved; Bob's is still the shared initial state, now with her final state as goal.
  bob_block = s.pipeline_state["bob"].pipeline_state.qpos[env.world._obj_qpos[0] :][:3]  # pylint: disable=protected-access
  assert float(jnp.linalg.norm(bob_block[:2] - jnp.asarray(IN_ZONE[:2]))) > 0.05
  np.testing.assert_allclose(s.obs["bob"]["desired_goal"][0, :3], IN_ZONE, atol=0.01)
  assert int(s.info["phase"]) == selfplay.BOB


def test_invalid_goal_nothing_moved_ends_the_game(game):
  _, reset, step, _ = game
  s = _alice_turn(game, reset(jax.random.PRNGKey(1)))
  assert float(s.info["goal_invalid"]) == 1.0 and float(s.done) == 1.0
  assert float(s.info["alice_reward"]) == 0.0 and int(s.info["phase"]) == selfplay.OVER
  # A finished game idles: no actor, no reward, still done.
  s2 = step(s, NOOP)
  assert int(s2.info["acted"]) == -1 and float(s2.done) == 1.0 and float(s2.info["alice_reward"]) == 0.0


def test_invalid_goal_off_table(game):
  s = _alice_turn(game, game[1](jax.random.PRNGKey(2)), OFF_TABLE)
  assert float(s.info["goal_invalid"]) == 1.0 and float(s.done) == 1.0
  assert float(s.info["alice_reward"]) == 0.0


@pytest.mark.parametrize(
  "pos,solve,alice_r",
  [(IN_ZONE, False, 6.0), (IN_ZONE, True, 1.0), (OUT_OF_ZONE, False, 3.0), (OUT_OF_ZONE, True, -2.0)],
)
def test_reward_table(game, pos, solve, alice_r):
  s = _alice_turn(game, game[1](jax.random.PRNGKey(3)), pos)
  assert float(s.info["goal_valid"]) == 1.0 and float(s.info["alice_reward"]) == 0.0
  assert bool(s.info["out_of_zone"]) == (pos == OUT_OF_ZONE)
  s, steps = _bob_turn(game, s, solve)
  bob_total = sum(float(x.info["bob_reward"]) for x in steps)
  assert float(steps[-1].info["bob_turn_end"]) == 1.0
  assert float(steps[-1].info["alice_reward"]) == alice_r  # lands when the outcome is known
  assert sum(float(x.info["alice_reward"]) for x in steps) == alice_r
  if solve:
    assert bob_total == 6.0 and len(steps) == 2 and float(steps[-1].info["bob_success"]) == 1.0
  else:
    assert bob_total == 0.0 and len(steps) == BOB_STEPS and bool(s.info["bob_failed"])
  assert int(s.info["phase"]) == selfplay.ALICE and int(s.info["goals"]) == 1 and float(s.done) == 0.0


def test_turns_are_skipped_after_bobs_failure_and_the_game_ends_at_max_goals(game):
  env, reset, step, _ = game
  s = _alice_turn(game, reset(jax.random.PRNGKey(4)), IN_ZONE)
  s, _ = _bob_turn(game, s, solve=False)
  bob_before = s.pipeline_state["bob"].pipeline_state.qpos
  # Goal 2: valid, Bob is skipped, Alice is paid 1 + 5 at the end of her own turn.
  s = _alice_turn(game, s, (TABLE_POS[0] - 0.1, TABLE_POS[1], Z))
  assert float(s.info["alice_reward"]) == 6.0 and int(s.info["phase"]) == selfplay.ALICE
  assert int(s.info["goals"]) == 2
  chex.assert_trees_all_equal(s.pipeline_state["bob"].pipeline_state.qpos, bob_before)
  # Goal 3 (max_goals = 3) ends the game.
  s = _alice_turn(game, s, (TABLE_POS[0], TABLE_POS[1] + 0.1, Z))
  assert float(s.info["alice_reward"]) == 6.0 and float(s.done) == 1.0
  assert int(s.info["phase"]) == selfplay.OVER


def test_bob_continues_from_his_last_success(game):
  env, reset, _, _ = game
  s = _alice_turn(game, reset(jax.random.PRNGKey(5)), IN_ZONE)
  s, _ = _bob_turn(game, s, solve=True)
  second = (TABLE_POS[0] - 0.15, TABLE_POS[1], Z)
  s = _alice_turn(game, s, second)
  # Validation measures movement from where Alice's turn started (her first goal), and Bob starts
  # goal 2 with the block where he solved goal 1.
  assert float(s.info["goal_valid"]) == 1.0
  adr = env.world._obj_qpos[0]  # pylint: disable=protected-access
  np.testing.assert_allclose(
    s.pipeline_state["bob"].pipeline_state.qpos[adr : adr + 2], IN_ZONE[:2], atol=0.01
  )


def test_bobs_failed_turn_is_relabelled_only_where_he_moved_the_blocks(game):
  """`bob_relabel` marks the last step of a failed turn that left a valid goal (moved from where his turn
  began, on the table), and `bob_achieved` holds where he left the block: his hindsight goal."""
  env, reset, step, teleport = game
  elsewhere = (TABLE_POS[0] - 0.12, TABLE_POS[1] + 0.05, Z)
  for moved in (False, True):
    s = _alice_turn(game, reset(jax.random.PRNGKey(7)), IN_ZONE)
    start = env.achieved(s.pipeline_state["bob"])
    s = step(teleport(s, "bob", elsewhere) if moved else s, NOOP)  # moves his block, not to the goal
    events = [(float(s.info["bob_relabel"]), float(s.info["bob_turn_end"]))]
    for _ in range(BOB_STEPS - 1):
      s = step(s, NOOP)
      events.append((float(s.info["bob_relabel"]), float(s.info["bob_turn_end"])))
    assert float(s.info["goal_failed"]) == 1.0 and float(s.info["bob_success"]) == 0.0
    # Only the turn's last step carries the event, and only if his block moved.
    assert events == [(0.0, 0.0)] * (BOB_STEPS - 1) + [(float(moved), 1.0)], events
    final = s.info["bob_achieved"]
    if moved:
      np.testing.assert_allclose(final[0, :2], elsewhere[:2], atol=0.01)
    else:
      np.testing.assert_allclose(final[0, :3], start[0, :3], atol=0.01)
    chex.assert_trees_all_close(final, env.achieved(s.pipeline_state["bob"]))


def test_validate_rules(game):
  env = game[0]
  start = jnp.zeros((8, 7)).at[:, 3].set(1.0).at[0, :3].set(jnp.asarray(IN_ZONE))
  same = start.at[0, 0].add(0.01)
  assert not bool(env.validate(start, same)[0])  # moved less than the threshold
  moved = start.at[0, 0].add(0.1)
  valid, ooz, _, _ = env.validate(start, moved)
  assert bool(valid) and not bool(ooz)
  high = start.at[0, 2].add(0.3)  # lifted above the zone's 0.26 m
  valid, ooz, _, _ = env.validate(start, high)
  assert bool(valid) and bool(ooz)
  off = start.at[0, :3].set(jnp.asarray(OFF_TABLE))
  assert not bool(env.validate(start, off)[0])


def test_rotations_compare_in_full_by_default():
  """A block Alice turned 90 degrees in place sets a goal with full rotations (robogym's training rule,
  the default); modulo the cube's symmetries (`rotation="symmetric"`, the rule before 2026-11-23) it did not
  move. Pure functions: nothing compiled."""
  start = jnp.zeros((8, 7)).at[:, 3].set(1.0).at[0, :3].set(jnp.asarray(IN_ZONE))
  quarter = start.at[0, 3:].set(jnp.array([np.cos(np.pi / 4), 0.0, 0.0, np.sin(np.pi / 4)]))
  full = mjx_envs.make("BlocksSelfPlay", num_objects=1)
  sym = mjx_envs.make("BlocksSelfPlay", num_objects=1, rotation="symmetric")
  assert full.config["rotation"] == "full" and not full.world.symmetric
  assert bool(full.validate(start, quarter)[0]) and not bool(sym.validate(start, quarter)[0])
  # Bob's success compares the same way: a quarter turn away from the goal is not there yet.
  assert not bool(full.world.is_success(start, quarter)) and bool(sym.world.is_success(start, quarter))
  with pytest.raises(ValueError, match="rotation must be"):
    mjx_envs.make("BlocksSelfPlay", rotation="mod90")


def test_diverged_physics_ends_the_game_as_a_truncation(game):
  """A divergence on Bob's turn ends the game (done) but is not an outcome: no turn end, no finished goal,
  no reward for either agent on that step."""
  _, reset, step, _ = game
  s = _alice_turn(game, reset(jax.random.PRNGKey(6)), IN_ZONE)
  assert int(s.info["phase"]) == selfplay.BOB
  ws = s.pipeline_state["bob"]
  blown = ws.replace(pipeline_state=ws.pipeline_state.replace(qvel=ws.pipeline_state.qvel.at[:].set(1e9)))
  s = step(s.replace(pipeline_state={**s.pipeline_state, "bob": blown}), NOOP)
  assert (
    float(s.metrics["diverged"]) == 1.0 and float(s.done) == 1.0 and int(s.info["phase"]) == selfplay.OVER
  )
  for k in ("bob_turn_end", "goal_finished", "goal_failed", "alice_reward", "bob_reward", "bob_success"):
    assert float(s.info[k]) == 0.0, k
