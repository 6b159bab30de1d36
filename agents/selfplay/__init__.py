"""Asymmetric self-play: Alice sets goals, Bob reaches them, Alice Behavioral Cloning (asp); Bob's zero-shot
holdout suite (holdout)."""
