import json, sys
import numpy as np
W = 512_000
out = {}
for name in sys.argv[1:]:
  rows = [json.loads(l) for l in open(f"/work/runs/{name}/metrics.jsonl")]
  tr = [r for r in rows if "train/hider_return" in r]
  steps = np.array([r["env_steps"] for r in tr])
  wins = []
  for lo in range(0, int(steps[-1]), W):
    m = (steps > lo) & (steps <= lo + W)
    if not m.any():
      continue
    g = lambda k: round(float(np.mean([tr[i].get(k, np.nan) for i in np.nonzero(m)[0]])), 3)
    wins.append({"to": int(min(lo + W, steps[-1])), "return": g("train/hider_return"), "success": g("train/success"),
                 "box_move": g("train/max_box_move"), "box_lock": g("train/num_box_lock"), "sps": g("train/sps")})
  ev = [{"env_steps": r["env_steps"], "return": round(r["eval/hider_return"], 2), "success": r.get("eval/success_rate")}
        for r in rows if "eval/hider_return" in r]
  out[name] = {"env_steps": int(steps[-1]), "wall_s": rows[-1]["wall_s"], "windows": wins, "evals": ev}
  print(name, int(steps[-1]), rows[-1]["wall_s"])
  for w in wins: print("  ", w)
  print("  evals", [(e["env_steps"], e["return"], e["success"]) for e in ev])
json.dump(out, open("/work/runs/long_windows.json", "w"), indent=1)
