"""Hide-and-seek in the quadrant world, multi-agent PPO sized for a 2-core CPU: 32 worlds (128 agent
streams), half an episode per world per train step, a smaller entity network (embedding 64, 4 heads x 16,
dense 128, LSTM 128). The paper's PPO settings otherwise (hns_quadrant), with lr 1e-3, as a CPU budget
allows few updates. For the first phase of the emergence, running and chasing."""


def get_config():
  return {
      "env": {"name": "HideAndSeekQuadrant"},
      "agent": {
          "algo": "mappo",
          "num_envs": 32,
          "unroll_length": 40,
          "bptt_length": 10,
          "num_minibatches": 4,
          "update_epochs": 4,
          "total_env_steps": 4_000_000,
          "learning_rate": 1e-3,
          "gamma": 0.998,
          "gae_lambda": 0.95,
          "clip_eps": 0.2,
          "max_grad_norm": 5.0,
          "ent_coef": 0.01,
          "embed": 64, "heads": 4, "head_dim": 16, "dense": 128, "lstm_size": 128,
      },
      "run": {"seed": 0, "eval_every": 10, "num_eval_envs": 32},
  }
