"""Asymmetric self-play with ABC on the block world: Table 2's settings (gamma 0.998, lambda 0.95,
lr 3e-4, entropy 0.01, sample reuse 3, value weight 1, ABC weight 0.5, clip 0.2), Alice 100 steps,
Bob 200 steps per object, 5 goals per game, 1 block, binned actions. GPU-sized; see asp_blocks_cpu."""


def get_config():
  return {
      "env": {"name": "BlocksSelfPlay", "num_objects": 1, "action_bins": 11, "alice_steps": 100,
              "bob_steps_per_object": 200, "max_goals": 5},
      "agent": {
          "algo": "asp",
          "num_envs": 256,
          "num_minibatches": 8,
          "update_epochs": 3,
          "total_env_steps": 400_000_000,
          "hidden": (256, 256),
          "abc": True,
          "abc_coef": 0.5,
          "abc_clip": 0.2,
      },
      "run": {"seed": 0, "eval_every": 5, "num_eval_envs": 32, "keep_checkpoints": 10},
  }
