"""Multi-task learners for Meta-World's MT benchmarks: MT-SAC (mtsac; one-hot task id, a learned
temperature per task). MT-PPO is PPO (agents.ppo) on a multi-task env."""
