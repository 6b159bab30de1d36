#!/usr/bin/env bash
# Two training runs side by side on one lent GPU, each with its share of the card's memory:
#   bash benchmarks/gpu_pair.sh SECONDS "CONFIG_A --set k=v ..." "CONFIG_B --set k=v ..."
# Why: a Meta-World program compiles for minutes on the host's cores while the card idles; a second run
# that compiles fast uses the card meanwhile. Installs the carried wheels (gpu_setup.sh), runs each
# `train.py --config ...` under `timeout -s INT -k 15 SECONDS` (a run inside a compile or an orbax save
# does not stop at SIGINT: SIGKILL 15 s later, so that the tarball is still written) with XLA_PYTHON_CLIENT_MEM_FRACTION=0.45, and
# leaves in $OUT each run's log, one tarball of both run directories (checkpoints left out: only
# a few files of at most 16 MiB come back from a device command) and one of the compile cache.
set -uo pipefail
secs=${1:?usage: gpu_pair.sh SECONDS "CONFIG_A ARGS" "CONFIG_B ARGS"}; shift
out=${OUT:-/tmp/out}; mkdir -p "$out" /tmp/pair
. benchmarks/gpu_setup.sh
export XLA_PYTHON_CLIENT_MEM_FRACTION=0.45
# The compile cache travels too (runs/gpu-jax-cache.tgz, if carried): MT10's programs take ~7 minutes to
# compile on a GPU machine, most of a slot. It serves only the same jax, card and program (config).
export MJX_COMPILATION_CACHE=/tmp/jcache
mkdir -p "$MJX_COMPILATION_CACHE"
[ -f runs/gpu-jax-cache.tgz ] && tar xzf runs/gpu-jax-cache.tgz -C "$MJX_COMPILATION_CACHE"
for spec in "$@"; do
  read -ra args <<< "$spec"  # a config name, then its --set arguments
  name=${args[0]}
  ( timeout -s INT -k 15 "$secs" python3 train.py --config "$name" --out "/tmp/pair/$name" --no-progress \
      "${args[@]:1}" > "$out/$name.log" 2>&1; echo "exit $?" >> "$out/$name.log" ) &
done
wait
tar czf "$out/runs.tgz" -C /tmp/pair --exclude=checkpoints .
tar czf "$out/gpu-jax-cache.tgz" -C "$MJX_COMPILATION_CACHE" .
# A file over 16 MiB does not come back: then say so rather than lose the others.
[ "$(stat -c %s "$out/gpu-jax-cache.tgz")" -gt 16000000 ] && echo "compile cache too large to return" \
  && du -sh "$MJX_COMPILATION_CACHE" && rm "$out/gpu-jax-cache.tgz"
ls -la "$out"
