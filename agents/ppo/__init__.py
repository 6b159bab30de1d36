"""PPO as one compiled training step (train): feed-forward or recurrent (LSTM), with an optional hindsight
term (on-policy HER); the on-policy losses other learners share (losses: GAE, clipped surrogate, value loss,
behavioural cloning)."""
