#!/usr/bin/env bash
# One GPU slot of the suite on a lent device machine (see BENCHMARKS.md, "The GPU suite"):
#   bash benchmarks/gpu_slot.sh MINUTES [suite arguments...]
# Installs the carried wheels (.whl/, from ../shared/tools/device-wheels.sh), unpacks the last slot's
# state (runs/gpu-suite.tgz, if carried), runs `benchmarks.suite --budget-min MINUTES` under a hard
# timeout of MINUTES + 1.5, and leaves gpu-suite.tgz, results.md, results.json and the log in $OUT,
# also when the suite is killed (each part's JSON is written after every step of work).
set -uo pipefail
minutes=${1:?usage: gpu_slot.sh MINUTES [suite args]}; shift
out=${OUT:-/tmp/out}; mkdir -p "$out"
# A device command that installed the wheels already (to run something beside the suite) keeps them.
. benchmarks/gpu_setup.sh
mkdir -p /tmp/suite
[ -f runs/gpu-suite.tgz ] && tar xzf runs/gpu-suite.tgz -C /tmp/suite
hard=$(python3 -c "print(int(($minutes + 1.5) * 60))")
timeout -s INT "$hard" python3 -m benchmarks.suite --out /tmp/suite --budget-min "$minutes" "$@" \
  2>&1 | tee "$out/suite.log"
python3 -m benchmarks.suite --out /tmp/suite --report > /dev/null 2>&1
tar czf "$out/gpu-suite.tgz" -C /tmp/suite --exclude=.jax_cache .
# A file over 16 MiB does not come back: then the runs' checkpoints stay behind (no resume next slot).
[ "$(stat -c %s "$out/gpu-suite.tgz")" -gt 15000000 ] \
  && tar czf "$out/gpu-suite.tgz" -C /tmp/suite --exclude=.jax_cache --exclude=checkpoints .
cp /tmp/suite/results.md /tmp/suite/results.json "$out/" 2>/dev/null
ls -la "$out"
