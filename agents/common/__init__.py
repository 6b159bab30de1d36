"""Parts every learner shares: networks (networks), action distributions (distributions), observation
normalisers (normalize), replay buffers (replay), episode statistics and step budgets (episodes),
evaluation (evaluation), optimiser practice (optim), checkpoints (checkpoint), device sharding (sharding)."""
