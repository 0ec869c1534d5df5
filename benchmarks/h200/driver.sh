#!/bin/bash
# Issues 29/34 on the H200: stages in priority order, each under timeout, results in $LAB/out.
LAB=${LAB:-$HOME/gpulab}
cd "$LAB/proj" || exit 1
source "$LAB/proj/.gpulab/bin/env.sh"
export WORKBENCH_VLLM_ARGS='{"load_format": "dummy"}'
export WORKBENCH_STORE_DIR="$LAB/work/store"
M=lightonai/LightOnOCR-2-1B
O=$LAB/out; W=$LAB/work/bench; mkdir -p "$O" "$W"
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
python3 -c "import vllm, transformers, torch; print(vllm.__version__, transformers.__version__, torch.__version__)" > "$O/versions.txt" 2>&1
echo "== stage 1: in process (callers, kill, rates b) $(date +%T)"
timeout 960 python3 benchmarks/gpu_inprocess.py --model $M --max-tokens 128 --rounds 2 \
  --stages callers kill rates --sets b --wb-in-flight 64 --work "$W" --json "$O/inprocess.json" > "$O/inprocess.log" 2>&1
echo "stage 1 exit $? $(date +%T)"; tail -5 "$O/inprocess.log"
pkill -9 -f EngineCore; sleep 2
echo "== stage 2: vllm serve with the plan's flags $(date +%T)"
python3 - > "$O/serve_argv.txt" 2> "$O/serve_argv.err" <<'PY'
import json
from workbench.gpu.commands import serve_argv
from workbench.gpu.launch import plan_local_launch
from workbench.models.registry import get_spec
launch = plan_local_launch(get_spec("lightonai/LightOnOCR-2-1B"), None)
print(json.dumps(serve_argv(launch.kwargs)[2:]))
PY
ARGV=$(python3 -c "import json,shlex;print(shlex.join(json.load(open('$O/serve_argv.txt'))))")
echo "serve args: $ARGV"
setsid bash -c "python3 -m vllm.entrypoints.cli.main serve $ARGV --load-format dummy --port 8000 > '$O/serve.log' 2>&1" &
for i in $(seq 1 60); do curl -sf http://127.0.0.1:8000/v1/models > /dev/null && break; sleep 5; done
echo "server up after ~$((i*5)) s $(date +%T)"
curl -s http://127.0.0.1:8000/metrics > "$O/metrics_start.txt"
timeout 900 python3 benchmarks/gpu_throughput.py --base-url http://127.0.0.1:8000/v1 --model $M \
  --modes server-raw server-cli --rounds 2 --max-tokens 128 --concurrency 64 --work "$W" \
  --json "$O/server.json" > "$O/server.log" 2>&1
echo "stage 2 exit $? $(date +%T)"; tail -8 "$O/server.log"
curl -s http://127.0.0.1:8000/metrics > "$O/metrics_end.txt"
echo "== stage 2b (issue 36): telemetry against /metrics, the service against the CLI $(date +%T)"
timeout 300 python3 benchmarks/telemetry_check.py --base-url http://127.0.0.1:8000/v1 --pages 200 \
  --max-tokens 128 --json "$O/telemetry.json" > "$O/telemetry.log" 2>&1
echo "telemetry exit $? $(date +%T)"; tail -4 "$O/telemetry.log"
timeout 600 python3 benchmarks/service_vs_cli.py --engine vllm-server --base-url http://127.0.0.1:8000/v1 \
  --model $M --max-tokens 128 --rounds 3 "$W"/folder-128-1-2/*.pdf > "$O/service.log" 2>&1
echo "service exit $? $(date +%T)"; tail -4 "$O/service.log"
pkill -f "vllm.entrypoints" ; sleep 5; pkill -9 -f "vllm.entrypoints"; pkill -9 -f EngineCore; sleep 3
echo "== stage 3: LightOnOCR's own recipe (their flags, 64 in flight) $(date +%T)"
setsid bash -c "python3 -m vllm.entrypoints.cli.main serve $M --limit-mm-per-prompt '{\"image\": 1}' --mm-processor-cache-gb 0 --no-enable-prefix-caching --load-format dummy --port 8001 > '$O/serve_recipe.log' 2>&1" &
for i in $(seq 1 60); do curl -sf http://127.0.0.1:8001/v1/models > /dev/null && break; sleep 5; done
echo "recipe server up after ~$((i*5)) s $(date +%T)"
timeout 600 python3 benchmarks/gpu_throughput.py --base-url http://127.0.0.1:8001/v1 --model $M \
  --modes server-raw --rounds 2 --max-tokens 128 --concurrency 64 --work "$W" \
  --json "$O/recipe.json" > "$O/recipe.log" 2>&1
echo "stage 3 exit $? $(date +%T)"; tail -8 "$O/recipe.log"
touch "$O/DONE"
