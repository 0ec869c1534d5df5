#!/bin/bash
# Issue 34's bars, alternated on one GPU: a vendor's recipe and the workbench's plan for the
# same model served AT ONCE (each given UTIL of the GPU, started one after the other so
# neither profiles memory while the other starts), then gpu_throughput.py alternates the
# vendor's client on the recipe's server with the workbench's CLI (its default settings) on
# the plan's server, ROUNDS rounds, medians, each run with vLLM's own breakdown of the server
# it ran on. The plan is made before either server holds memory (the GPU as a user has it).
#   bash pair_stage.sh NAME MODEL BASELINE_MODE SET "RECIPE FLAGS"
#   e.g. pair_stage.sh lighton lightonai/LightOnOCR-2-1B server-raw b "--limit-mm-per-prompt ..."
# WORKBENCH_VLLM_ARGS (the lab's: load_format dummy, a backend the site can run) goes to both.
# Env: UTIL (0.44), ROUNDS (3), PAGES (set a's pages, 112), CONC (the raw client's, 64);
# CANDIDATE (a JSON object of engine arguments): a third server, the plan with those changed,
# driven by the same CLI (server-cli-b), alternated with the other two.
# Conventions of driver.sh: $LAB, the project in $LAB/proj, results in $LAB/out/NAME.
LAB=${LAB:-$HOME/gpulab}
cd "$LAB/proj" || exit 1
source "$LAB/proj/.gpulab/bin/env.sh"
export WORKBENCH_STORE_DIR="$LAB/work/store"
NAME=$1 M=$2 MODE=$3 SET=$4 RECIPE=$5
UTIL=${UTIL:-0.44}; ROUNDS=${ROUNDS:-3}; PAGES=${PAGES:-112}; CONC=${CONC:-64}
O=$LAB/out/$NAME; W=$LAB/work/bench; mkdir -p "$O" "$W"
python3 benchmarks/h200/pair_args.py "$M" "$UTIL" "$RECIPE" ${CANDIDATE:+"$CANDIDATE"} > "$O/args.txt" 2> "$O/args.err" \
  || { echo "no args: $(tail -3 "$O/args.err")"; exit 1; }
RECIPE_FLAGS=$(sed -n 1p "$O/args.txt"); PLAN_FLAGS=$(sed -n 2p "$O/args.txt")
CAND_FLAGS=$(sed -n 3p "$O/args.txt")
echo "recipe: $RECIPE_FLAGS"; echo "plan:   $PLAN_FLAGS"; [ -n "$CAND_FLAGS" ] && echo "candidate: $CAND_FLAGS"

# serve PORT LOG FLAGS: a vllm serve of $M in its own session; 0 once it answers.
serve() {
  local port=$1 log=$2 flags=$3
  setsid bash -c "exec python3 -m vllm.entrypoints.cli.main serve $M $flags --port $port > '$log' 2>&1" > /dev/null 2>&1 < /dev/null &
  for i in $(seq 1 84); do
    curl -sf "http://127.0.0.1:$port/v1/models" > /dev/null && { echo "server $port up after ~$((i * 5)) s $(date +%T)"; return 0; }
    grep -q "EngineDeadError\|Traceback (most recent call last)" "$log" 2>/dev/null && break
    sleep 5
  done
  echo "server $port did not start $(date +%T)"; grep -v " INFO " "$log" | tail -8; return 1
}
stop_servers() { pkill -f "vllm.entrypoints"; sleep 5; pkill -9 -f "vllm.entrypoints"; pkill -9 -f EngineCore; sleep 3; }

echo "== $NAME: recipe server $(date +%T)"
serve 8001 "$O/serve_recipe.log" "$RECIPE_FLAGS"; recipe_up=$?
nvidia-smi --query-gpu=memory.used --format=csv,noheader > "$O/mem_recipe.txt"
echo "== $NAME: plan server $(date +%T)"
serve 8002 "$O/serve_plan.log" "$PLAN_FLAGS"; plan_up=$?
nvidia-smi --query-gpu=memory.used --format=csv,noheader > "$O/mem_both.txt"
CAND=""
if [ -n "$CAND_FLAGS" ]; then
  echo "== $NAME: candidate server $(date +%T)"
  serve 8003 "$O/serve_candidate.log" "$CAND_FLAGS" && CAND="--candidate-url http://127.0.0.1:8003/v1"
  nvidia-smi --query-gpu=memory.used --format=csv,noheader > "$O/mem_all.txt"
fi
for p in 8001 8002 8003; do curl -s "http://127.0.0.1:$p/metrics" > "$O/metrics_start_$p.txt"; done
if [ $plan_up = 0 ]; then
  if [ $recipe_up = 0 ]; then MODES="$MODE server-cli"; BASE="--baseline-url http://127.0.0.1:8001/v1"
  else MODES="server-cli"; BASE=""; fi
  [ -n "$CAND" ] && MODES="$MODES server-cli-b" && BASE="$BASE $CAND"
  timeout 900 python3 benchmarks/gpu_throughput.py --base-url http://127.0.0.1:8002/v1 $BASE \
    --model "$M" --modes $MODES --sets "$SET" --long-pages "$PAGES" --rounds "$ROUNDS" \
    --max-tokens 128 --concurrency "$CONC" --work "$W" --json "$O/pair.json" > "$O/pair.log" 2>&1
  echo "$NAME bench exit $? $(date +%T)"; tail -6 "$O/pair.log"
fi
for p in 8001 8002 8003; do curl -s "http://127.0.0.1:$p/metrics" > "$O/metrics_end_$p.txt"; done
stop_servers
echo "$NAME stage done in ${SECONDS}s $(date +%T)"
