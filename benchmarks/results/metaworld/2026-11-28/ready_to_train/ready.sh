#!/bin/bash
# ready-to-train of mtsac_mt50_cpu / mtsac_mt10_cpu, shared vs MultiTask, cold cache each
cd /work/main
for cfg in mtsac_mt10_cpu mtsac_mt50_cpu; do
for sc in true false; do
  rm -rf /tmp/jaxcache_$sc; mkdir -p /tmp/jaxcache_$sc
  MJX_COMPILATION_CACHE=/tmp/jaxcache_$sc timeout 1500 python train.py --config $cfg --steps 2500 --set env.shared_code=$sc --set run.eval_every=1 --no-progress --out /tmp/ready_${cfg}_$sc 2>&1 | grep -E "ready to train|compiled|env=" 
  echo "== $cfg shared_code=$sc done $(date)"
done; done
