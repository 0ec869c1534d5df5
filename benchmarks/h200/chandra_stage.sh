#!/bin/bash
# Issue 34's second bar: Chandra OCR 2 with Chandra's own recipe (its vLLM flags for an H100,
# its CLI's batches of 28 pages that each wait for all their pages) against the workbench's
# plan and client, same pages, random weights, 128 output tokens a page. Needs the weightless
# Chandra OCR 2 folder in $HF_HOME (probe_stage.sh writes it; written here too if missing).
# Conventions of driver.sh: $LAB, the project in $LAB/proj, every step under `timeout`,
# results in $LAB/out/chandra. Call after probe_stage.sh (its engines gone):
#   timeout 900 bash "$LAB/proj/benchmarks/h200/chandra_stage.sh"
# A: Chandra's server (chandra_client.SERVE_ARGS: scripts/vllm.py --gpu h100 of chandra-ocr
#    0.2.0, compiled as theirs) with, alternated on it, Chandra's client and the workbench CLI.
# B (PLAN_SERVER=0 skips it): the workbench's plan for this card served, the same two clients.
# Set (a), one PDF of PAGES pages (112 = four batches of 28): Chandra's CLI sends a file's
# pages 28 at a time, so a folder of 1-2 page PDFs would keep it at 1-2 pages in flight.
LAB=${LAB:-$HOME/gpulab}
cd "$LAB/proj" || exit 1
source "$LAB/proj/.gpulab/bin/env.sh"
export WORKBENCH_VLLM_ARGS='{"load_format": "dummy"}'
export WORKBENCH_STORE_DIR="$LAB/work/store"
M=datalab-to/chandra-ocr-2
O=$LAB/out/chandra; W=$LAB/work/bench; mkdir -p "$O" "$W"
PAGES=${PAGES:-112}; ROUNDS=${ROUNDS:-2}; PLAN_SERVER=${PLAN_SERVER:-1}
[ -d "$HF_HOME/hub/models--datalab-to--chandra-ocr-2" ] || timeout 120 python3 -m \
  workbench.models.weightless --model $M --out "$HF_HOME" > "$O/folder.log" 2>&1

# serve PORT LOG ARGS...: a vllm serve of $M in its own session; waits until it answers.
serve() {
  local port=$1 log=$2; shift 2
  setsid bash -c "python3 -m vllm.entrypoints.cli.main serve $M $* --load-format dummy --port $port > '$log' 2>&1" > /dev/null 2>&1 < /dev/null &
  for i in $(seq 1 72); do curl -sf "http://127.0.0.1:$port/v1/models" > /dev/null && break; sleep 5; done
  echo "server on $port up after ~$((i * 5)) s $(date +%T)"
}
stop_servers() { pkill -f "vllm.entrypoints"; sleep 5; pkill -9 -f "vllm.entrypoints"; pkill -9 -f EngineCore; sleep 3; }
# bench PORT NAME: Chandra's client and the CLI alternated, ROUNDS rounds, on the server at PORT.
bench() {
  timeout 420 python3 benchmarks/gpu_throughput.py --base-url "http://127.0.0.1:$1/v1" --model $M \
    --modes server-chandra server-cli --sets a --long-pages "$PAGES" --rounds "$ROUNDS" \
    --max-tokens 128 --work "$W" --json "$O/$2.json" > "$O/$2.log" 2>&1
  echo "$2 exit $? $(date +%T)"; tail -6 "$O/$2.log"
}

echo "== chandra stage A: Chandra's recipe server $(date +%T)"
RECIPE=$(python3 benchmarks/chandra_client.py --serve-args)
echo "recipe args: $RECIPE" | tee "$O/recipe_args.txt"
serve 8002 "$O/serve_recipe.log" "$RECIPE"
curl -s http://127.0.0.1:8002/metrics > "$O/recipe_metrics_start.txt"
bench 8002 recipe
curl -s http://127.0.0.1:8002/metrics > "$O/recipe_metrics_end.txt"
stop_servers

if [ "$PLAN_SERVER" = 1 ]; then
  echo "== chandra stage B: the workbench's plan served $(date +%T)"
  python3 - > "$O/plan_argv.txt" 2> "$O/plan_argv.err" <<'PY'
import json
from workbench.gpu.commands import serve_argv
from workbench.gpu.launch import plan_local_launch
from workbench.models.registry import get_spec
launch = plan_local_launch(get_spec("datalab-to/chandra-ocr-2"), None)
print(json.dumps(serve_argv(launch.kwargs)[3:]))
PY
  PLAN=$(python3 -c "import json,shlex;print(shlex.join(json.load(open('$O/plan_argv.txt'))))")
  echo "plan args: $PLAN"
  serve 8003 "$O/serve_plan.log" "$PLAN"
  bench 8003 plan
  stop_servers
fi
echo "chandra stage done in ${SECONDS}s $(date +%T)"
