#!/bin/bash
# after queue.sh: seed 2 of both tasks; $1 = core, $2 = arm
while pgrep -f "transfer_gpu/queue.sh $1 " > /dev/null; do sleep 10; done
cd /work/main
C="taskset -c $1 /work/venv/bin/python benchmarks/hns_transfer.py runs --pretrained /work/runs/hns_gpu@4 --root /work/runs/transfer_gpu --steps 4000000 --eval-every 25 --max-minutes 18 --arms $2"
$C --tasks HnsSequentialLock --seeds 2
$C --tasks HnsLockAndReturn --seeds 2
echo QUEUE2 DONE
