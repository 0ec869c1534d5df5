#!/bin/bash
# Where the plan's gap to Chandra's recipe lies, client or server (issue 34): ONE server of the
# plan (the whole card's share, UTIL 0.88), driven alternately by the raw client (all pages in
# flight: the server's floor), Chandra's client (batches of 28) and the workbench's CLI.
LAB=${LAB:-$HOME/gpulab}
cd "$LAB/proj" || exit 1
source "$LAB/proj/.gpulab/bin/env.sh"
export WORKBENCH_STORE_DIR="$LAB/work/store"
export WORKBENCH_VLLM_ARGS='{"load_format": "dummy", "gdn_prefill_backend": "triton"}'
M=datalab-to/chandra-ocr-2; O=$LAB/out/clients; W=$LAB/work/bench2; mkdir -p "$O" "$W"
python3 benchmarks/h200/pair_args.py "$M" "${UTIL:-0.88}" "" > "$O/args.txt" 2> "$O/args.err"
PLAN=$(sed -n 2p "$O/args.txt"); echo "plan: $PLAN"
setsid bash -c "exec python3 -m vllm.entrypoints.cli.main serve $M $PLAN --port 8002 > '$O/serve.log' 2>&1" < /dev/null > /dev/null 2>&1 &
for i in $(seq 1 60); do curl -sf http://127.0.0.1:8002/v1/models > /dev/null && break; sleep 5; done
echo "up $(date +%T)"
timeout 420 python3 benchmarks/gpu_throughput.py --base-url http://127.0.0.1:8002/v1 --model $M \
  --modes server-raw server-chandra server-cli --sets a --long-pages 56 --rounds ${ROUNDS:-3} \
  --max-tokens 128 --concurrency 64 --work "$W" --json "$O/clients.json" > "$O/clients.log" 2>&1
echo "bench exit $? $(date +%T)"; tail -8 "$O/clients.log"
pkill -f vllm.entrypoints; sleep 3; pkill -9 -f EngineCore
cd "$LAB/out" && tar czf "$OUT/out.tgz" clients
