"""Learning agents (PPO, HER, ABC, self-play)."""
