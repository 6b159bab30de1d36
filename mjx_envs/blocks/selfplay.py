"""The asymmetric self-play game (SPEC section 1, Appendix A) as one pure, vmappable env.

One env is one game. Alice and Bob each hold their own copy of the block world, both made from the
same initial state; every `step` moves the copy of whoever's turn it is, with the action given, and a
small state machine (array selects only, no Python control flow) runs the game:

  1. Alice acts for `alice_steps` (100) steps; her final object poses are the goal. Poses compare with
     full rotations (config `rotation`, "full" as robogym's training; "symmetric": modulo the cube's
     symmetries), so turning a block in place or onto another face sets a goal.
  2. Validation, in order: no object moved more than the success threshold from the start of her turn
     -> invalid; an object off the table -> invalid. An invalid goal ends the game (Alice gets 0).
     An object outside the placement area (xy, or higher than 0.26 m above the table) is valid but
     costs Alice -3 (`out_of_zone`).
  3. Bob, goal-conditioned, acts from where his copy is (the shared initial state for goal 1, then
     where his last successful turn left him) for at most `bob_steps_per_object` x objects steps. His
     turn ends on success or timeout. After his first failure his later turns are skipped and count
     as failures, but Alice keeps setting goals.
  4. Up to `max_goals` (5) goals per game; then the game is over (`done` = 1, later steps idle).
  5. A physics step that diverges (NaN, or the solver blew up; `metrics["diverged"]` = 1) ends the game
     as a truncation: `done` = 1, but no turn ends, no goal is finished and no reward is paid on that
     step, so a learner bootstraps from it instead of taking it as an outcome.

Rewards (Table 1) arrive in `info`:
  bob_reward    on Bob's steps: the block world's +1/-1 per object and +5 on success.
  goal_finished / goal_failed  1 on the step a goal's outcome is known / and Bob lost it.
  bob_achieved  [8, 7] the poses of Bob's copy after the step (his turn's end state on its last step).
  bob_relabel   1 on the last step of a turn Bob failed that still left a valid goal (the blocks moved
                from where his turn began, none off the table: Alice's rule): a hindsight relabel of his
                turn with `bob_achieved` as its goal is a success (`agents.selfplay.asp`, bob_hindsight).
  alice_reward  1 + (5 if Bob failed or was skipped) + (-3 if out of zone), on the step the outcome is
                known (Bob's last step, or Alice's own last step when Bob is skipped); 0 for an invalid
                goal. A learner credits it to the last step of Alice's turn (`agents.selfplay.asp`).
Observations: {"alice": block-world obs of Alice's copy, whose achieved_goal/desired_goal a learner
strips (Alice sees no goal; the achieved goal is kept for ABC relabelling), "bob": Bob's copy with the
current goal}; with `steps_left_obs` (default) each also has "steps_left", the fraction of the agent's
turn still to come (agents.common.normalize.features appends it to the robot inputs).
`info["phase"]` says who acts next: 0 Alice, 1 Bob, 2 game over.
"""

from __future__ import annotations

from mjx_envs.blocks import env as block_env
from mjx_envs.blocks import goals as G
from mjx_envs.blocks.scene import TABLE_Z
from mjx_envs.core import ConfigError, Env, State

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

ALICE, BOB, OVER = 0, 1, 2
PLACEMENT_HEIGHT = 0.26
# The info keys that describe what happened on a step (rather than the game's running state): a learner
# reads them on every step, the game's last included (`wrappers.AutoReset(final_info=EVENTS)`).
EVENTS = (
  "acted",
  "alice_reward",
  "bob_reward",
  "alice_turn_end",
  "bob_turn_end",
  "goal_valid",
  "goal_invalid",
  "out_of_zone",
  "bob_success",
  "goal_index",
  "goal_distance",
  "goal_finished",
  "goal_failed",
  "goal",
  "bob_achieved",
  "bob_relabel",
)
OUT_OF_ZONE_PENALTY = -3.0


def default_config() -> dict[str, Any]:
  c = block_env.default_config()
  for k in ("task", "episode_length", "terminate_on_success", "terminate_on_fall"):
    del c[k]
  # Full rotations, as robogym's self-play training compares them: a block Alice turned in place (90
  # degrees, or another face up) is a goal, and Bob learns to flip. "symmetric" compares modulo the
  # cube's 24 symmetries (the push holdout's rule; this game's rule before 2026-11-23).
  c.update(
    action_bins=11,
    alice_steps=100,
    bob_steps_per_object=200,
    max_goals=5,
    rotation="full",
    steps_left_obs=True,
  )
  return c


class BlocksSelfPlay(Env):
  """The Alice/Bob game; see the module docstring. Config keys: `default_config()`."""

  def __init__(self, **config):
    c = {**default_config(), **config}
    for key in ("alice_steps", "bob_steps_per_object", "max_goals"):
      if not isinstance(c[key], (int, np.integer)) or c[key] < 1:
        raise ConfigError(f"{key} must be an int >= 1, got {c[key]!r}")
    if not isinstance(c["steps_left_obs"], bool):
      raise ConfigError(f"steps_left_obs must be True or False, got {c['steps_left_obs']!r}")
    world_cfg = {k: v for k, v in c.items() if k in block_env.default_config()}
    self.world = block_env.BlocksEnv(
      **{**world_cfg, "task": "push", "terminate_on_success": False, "terminate_on_fall": False}
    )
    self.config = c
    self.num_objects = self.world.num_objects
    self.bob_steps = int(c["bob_steps_per_object"]) * self.num_objects
    self.max_goals = int(c["max_goals"])
    self.episode_length = self.max_goals * (int(c["alice_steps"]) + self.bob_steps)

  @property
  def action_size(self) -> int:
    return self.world.action_size

  @property
  def observation_size(self):
    return jax.eval_shape(self.reset, jax.random.PRNGKey(0)).obs

  # --- helpers -----------------------------------------------------------------------------------
  def achieved(self, world_state: State) -> jax.Array:
    return self.world._achieved(world_state.pipeline_state)  # pylint: disable=protected-access

  def out_of_zone(self, achieved: jax.Array) -> jax.Array:
    low, high = G.placement_area(self.config["table_portion"])
    pos = achieved[: self.num_objects, :3]
    outside = jnp.any((pos[:, :2] < low) | (pos[:, :2] > high), -1)
    return jnp.any(outside | (pos[:, 2] > TABLE_Z + PLACEMENT_HEIGHT))

  def validate(self, start: jax.Array, final: jax.Array):
    """Alice's goal check -> (valid, out_of_zone, moved, off_table), scalars (bool)."""
    still = self.world._placed(final, start)[: self.num_objects]  # pylint: disable=protected-access
    moved = jnp.any(~still)
    off = jnp.any(self.world._off_table(final))  # pylint: disable=protected-access
    return moved & ~off, self.out_of_zone(final), moved, off

  def _obs(self, alice: State, bob: State, phase: jax.Array, t: jax.Array):
    w = self.world
    obs = {
      "alice": w._obs(alice.pipeline_state, alice.info),  # pylint: disable=protected-access
      "bob": w._obs(bob.pipeline_state, bob.info),
    }  # pylint: disable=protected-access
    if self.config["steps_left_obs"]:
      # The fraction of the acting agent's turn still to come (1.0 off its turn): Alice is paid for where
      # the blocks are when her turn ends, Bob for solving within his budget.
      for who, turn, steps in (("alice", ALICE, self.config["alice_steps"]), ("bob", BOB, self.bob_steps)):
        obs[who]["steps_left"] = jnp.where(phase == turn, 1.0 - t / steps, 1.0).astype(jnp.float32)
    return obs

  # --- API ---------------------------------------------------------------------------------------
  def reset(self, rng: jax.Array) -> State:
    """A fresh game: one random initial state, copied for Alice and Bob; Alice's turn."""
    alice = self.world.reset(rng)
    start = self.achieved(alice)
    alice = alice.replace(info={**alice.info, "goal": start})
    bob = alice
    zero, izero = jnp.zeros(()), jnp.zeros((), jnp.int32)
    info = {
      "phase": izero,
      "t": izero,
      "goals": izero,
      "bob_failed": jnp.zeros((), bool),
      "turn_start": start,
      "bob_start": start,
      "goal": start,
      "out_of_zone": jnp.zeros((), bool),
      "alice_reward": zero,
      "bob_reward": zero,
      "acted": izero - 1,
      "alice_turn_end": zero,
      "bob_turn_end": zero,
      "goal_valid": zero,
      "goal_invalid": zero,
      "bob_success": zero,
      "goal_index": izero,
      "goal_distance": zero,
      "goal_finished": zero,
      "goal_failed": zero,
      "bob_achieved": start,
      "bob_relabel": zero,
    }
    metrics = {"bad_action": zero, "diverged": zero}
    return State({"alice": alice, "bob": bob}, self._obs(alice, bob, izero, izero), zero, zero, metrics, info)

  def step(self, state: State, action: jax.Array) -> State:
    c, i = self.config, state.info
    alice, bob = state.pipeline_state["alice"], state.pipeline_state["bob"]
    phase = i["phase"]
    is_a, is_b = phase == ALICE, phase == BOB
    pick = lambda cond, x, y: jax.tree.map(lambda a, b: jnp.where(cond, a, b), x, y)
    stepped = self.world.step(pick(is_b, bob, alice), action)
    alice = pick(is_a, stepped, alice)
    bob = pick(is_b, stepped, bob)
    t = jnp.where(phase == OVER, i["t"], i["t"] + 1)
    diverged = (phase != OVER) & (stepped.info["diverged"] > 0)

    # A diverged physics step ends the game as a truncation, not an outcome: no turn ends, no goal is
    # finished, no reward is paid (the learner bootstraps: agents.selfplay.asp).
    ok = ~diverged
    # Alice's turn ends: validate her goal.
    a_end = is_a & (t >= c["alice_steps"]) & ok
    goal_now = self.achieved(alice)
    valid, ooz, _, _ = self.validate(i["turn_start"], goal_now)
    invalid = a_end & ~valid
    skipped = a_end & valid & i["bob_failed"]
    to_bob = a_end & valid & ~i["bob_failed"]
    # Bob's turn ends on success or timeout.
    b_success = is_b & (stepped.metrics["is_success"] > 0) & ok
    b_end = is_b & (b_success | (t >= self.bob_steps)) & ok
    b_fail = b_end & ~b_success
    bob_now = self.achieved(bob)
    relabel = b_fail & self.validate(i["bob_start"], bob_now)[0]

    goal = jnp.where(a_end & valid, goal_now, i["goal"])
    goal_ooz = jnp.where(a_end & valid, ooz, i["out_of_zone"])
    # A goal is finished when Bob's turn ends or is skipped; Alice's reward is then known.
    finished = b_end | skipped
    bob_lost = b_fail | skipped
    alice_reward = jnp.where(finished, 1.0 + 5.0 * bob_lost + OUT_OF_ZONE_PENALTY * goal_ooz, 0.0)
    goals = i["goals"] + finished.astype(jnp.int32)
    over = (phase == OVER) | invalid | diverged | (finished & (goals >= self.max_goals))
    next_phase = jnp.where(over, OVER, jnp.where(to_bob, BOB, jnp.where(finished, ALICE, phase)))
    # Bob starts his turn with the new goal and a fresh "placed" baseline for the +1/-1 reward.
    bob_info = {
      **bob.info,
      "goal": jnp.where(to_bob, goal, bob.info["goal"]),
      "prev_achieved_goal": jnp.where(to_bob, self.achieved(bob), bob.info["prev_achieved_goal"]),
    }
    bob = bob.replace(info=bob_info)
    new_turn = to_bob | finished
    info = {
      "phase": next_phase,
      "t": jnp.where(new_turn, 0, t),
      "goals": goals,
      "bob_failed": i["bob_failed"] | bob_lost,
      "turn_start": jnp.where(finished, goal_now, i["turn_start"]),
      "bob_start": jnp.where(to_bob, bob_now, i["bob_start"]),  # his copy is still during her turn
      "goal": goal,
      "out_of_zone": goal_ooz,
      "alice_reward": alice_reward,
      "bob_reward": jnp.where(is_b & ok, stepped.reward, 0.0),
      "acted": jnp.where(phase == OVER, -1, phase),
      "alice_turn_end": a_end.astype(jnp.float32),
      "bob_turn_end": b_end.astype(jnp.float32),
      "goal_valid": (a_end & valid).astype(jnp.float32),
      "goal_invalid": invalid.astype(jnp.float32),
      "bob_success": b_success.astype(jnp.float32) * b_end,
      "goal_index": i["goals"],
      "goal_finished": finished.astype(jnp.float32),
      "goal_failed": bob_lost.astype(jnp.float32),
      "bob_achieved": bob_now,
      "bob_relabel": relabel.astype(jnp.float32),
      "goal_distance": jnp.where(
        a_end, jnp.max(jnp.linalg.norm((goal_now - i["turn_start"])[: self.num_objects, :3], axis=-1)), 0.0
      ),
    }
    metrics = {
      "bad_action": jnp.where(phase == OVER, 0.0, stepped.metrics["bad_action"]),
      "diverged": diverged.astype(jnp.float32),
    }
    done = jnp.where(over, 1.0, 0.0)
    return state.replace(
      pipeline_state={"alice": alice, "bob": bob},
      obs=self._obs(alice, bob, info["phase"], info["t"]),
      reward=jnp.zeros(()),
      done=done,
      metrics=metrics,
      info=info,
    )


def make_env(**config) -> BlocksSelfPlay:
  return BlocksSelfPlay(**config)
