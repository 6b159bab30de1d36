# Sourced by the device scripts (gpu_slot.sh, gpu_pair.sh) after setting $out: installs the carried wheels
# (.whl/, from ../shared/tools/device-wheels.sh) into /tmp/site unless a command before did, puts them and
# the project on PYTHONPATH, and records the card in $out/gpu.txt.
[ -d /tmp/site/mujoco ] || python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
  --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv | tee "$out/gpu.txt"
