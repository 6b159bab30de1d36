"""OpenAI Five's training practice, as functions on pytrees: the opponent pool with quality scores
(opponent_pool), TrueSkill ratings from game counts (ratings), surgery on a running model (surgery), team
spirit (team_spirit), compute accounting in FLOPs (flops)."""
