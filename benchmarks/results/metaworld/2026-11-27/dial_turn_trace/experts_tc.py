import sys

sys.path.insert(0, "/work/main")
sys.path.insert(0, "/work/main/scripts")
from mjx_envs.metaworld import sawyer

sawyer.WELD_SOLREF = (float(sys.argv[1]), 1.0)
import reference_experts as R

R.main(
  ["--episodes", "10", "--tasks", sys.argv[2], "--json", f"/work/scratch/dial/experts_{sys.argv[1]}.json"]
)
