"""Multi-agent PPO for hide-and-seek (train): one set of parameters for every agent, entity-attention
policy and value networks (entity_net) over masked residual self-attention (attention)."""
