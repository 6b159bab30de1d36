"""Off-policy learners with hindsight experience replay: the relabel function (relabel), DDPG+HER (ddpg),
SAC+HER (sac)."""
