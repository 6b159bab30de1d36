"""faucet-close-v3: turn a faucet's handle from pointing at the robot to pointing along -x.

Reference: metaworld 3.1.1 `SawyerFaucetCloseEnvV3` (reward version v2); the faucet model is shared with
faucet-open-v3 (`_faucet.py`, which lists its facts and differences).

Facts taken from the reference:
- rand_vec = the base's position, drawn from [(-0.1, 0.8, 0), (0.1, 0.85, 0)]; no rejection rule.
  obj_init_pos = rand_vec; target_pos = obj_init_pos + (-0.175, 0, 0.125); maxPullDist = |target -
  obj_init_pos|. hand_init_pos (0, 0.4, 0.2); hand bounds (-0.5, 0.40, -0.15) .. (0.5, 1, 0.5) (also the
  mocap bounds and the goal space).
- Observation: object = site `handleStartClose` + (0, 0, -0.01), quaternion = faucetBase's xquat.
- Reward v2: faucet-open's (`_faucet.reward_at`) with obj = obs[4:7] itself (no offset).

Parity (test_metaworld_parity.py, fixture `metaworld_reference_dials`): reward and info within the
default 1e-4; first observed pose within the default 1 mm.

Deliberate differences: the faucet's (`_faucet.py`) and the hand's (`sawyer.py`).

The scripted controller: `_faucet.turn_controller` towards -x. Measured (benchmarks/scripted_success.py,
C backend, 100 episodes of 500 steps, 2026-11-26): 100/100, first successes at steps 55-59 (8 episodes).
"""

from __future__ import annotations

from mjx_envs.metaworld.tasks import _faucet

READS = _faucet.READS
reward = _faucet.reward_at((0.0, 0.0, 0.0))


def scripted(obs):
  return _faucet.turn_controller(obs, -1.0, _faucet.CLOSE_SITE[0])


TASK = _faucet.task(
  "faucet-close-v3", -1.0, "handleStartClose", (0.0, 0.0, 0.0), (-0.1, 0.8, 0.0), (0.1, 0.85, 0.0)
)
