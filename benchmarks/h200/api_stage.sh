#!/bin/bash
# The front end's share (issue 34): the plan's server against the plan with --api-server-count
# (vLLM's image preprocessing runs in its API server process, one page after another), both
# eager (CUDA graphs off: they start in a minute), the same CLI to each, alternated.
LAB=${LAB:-$HOME/gpulab}
cd "$LAB/proj" || exit 1
source "$LAB/proj/.gpulab/bin/env.sh"
export WORKBENCH_STORE_DIR="$LAB/work/store"
export WORKBENCH_VLLM_ARGS='{"load_format": "dummy", "gdn_prefill_backend": "triton", "enforce_eager": true}'
M=datalab-to/chandra-ocr-2; O=$LAB/out/api; W=$LAB/work/bench3; mkdir -p "$O" "$W"
timeout 120 python3 -m workbench.models.weightless --model $M --out "$HF_HOME" > "$O/folders.log" 2>&1
python3 benchmarks/h200/pair_args.py "$M" 0.44 "" "{\"api_server_count\": ${APIS:-4}}" > "$O/args.txt" 2> "$O/args.err" || tail -3 "$O/args.err"
serve() {
  setsid bash -c "exec python3 -m vllm.entrypoints.cli.main serve $M $2 --port $1 > '$O/serve_$1.log' 2>&1" < /dev/null > /dev/null 2>&1 &
  for i in $(seq 1 50); do curl -sf http://127.0.0.1:$1/v1/models > /dev/null && { echo "$1 up $(date +%T)"; return 0; }; sleep 4; done
  echo "$1 not up"; grep -v " INFO " "$O/serve_$1.log" | tail -5; return 1
}
serve 8002 "$(sed -n 2p "$O/args.txt")" && serve 8003 "$(sed -n 3p "$O/args.txt")"
curl -s http://127.0.0.1:8003/metrics > "$O/metrics_8003.txt"; curl -s http://127.0.0.1:8002/metrics > "$O/metrics_8002.txt"
timeout 240 python3 benchmarks/gpu_throughput.py --base-url http://127.0.0.1:8002/v1 --candidate-url http://127.0.0.1:8003/v1 \
  --model $M --modes server-cli server-cli-b --sets a --long-pages 56 --rounds 2 --max-tokens 128 \
  --work "$W" --json "$O/api.json" > "$O/api.log" 2>&1
echo "bench exit $? $(date +%T)"; tail -5 "$O/api.log"
pkill -f vllm.entrypoints; sleep 2; pkill -9 -f EngineCore
cd "$LAB/out" && tar czf "$OUT/out.tgz" api
