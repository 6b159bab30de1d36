#!/bin/bash
# one queue per core: $1 = core, $2 = arm
cd /work/main
C="taskset -c $1 /work/venv/bin/python benchmarks/hns_transfer.py runs --pretrained /work/runs/hns_gpu@4 --root /work/runs/transfer_gpu --steps 4000000 --eval-every 25 --max-minutes 18 --arms $2"
$C --tasks HnsLockAndReturn --seeds 0
$C --tasks HnsSequentialLock --seeds 0
$C --tasks HnsLockAndReturn --seeds 1
$C --tasks HnsSequentialLock --seeds 1
echo QUEUE DONE
