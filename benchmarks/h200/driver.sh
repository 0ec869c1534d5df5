#!/bin/bash
# Issues 29/36 on the H200 (second hold, 2026-12-05): stages in priority order, each under
# timeout, results in $LAB/out. How to start it: README.md here.
LAB=${LAB:-$HOME/gpulab}
cd "$LAB/proj" || exit 1
source "$LAB/proj/.gpulab/bin/env.sh"
export WORKBENCH_VLLM_ARGS='{"load_format": "dummy"}'
export WORKBENCH_STORE_DIR="$LAB/work/store"
M=lightonai/LightOnOCR-2-1B
O=$LAB/out; W=$LAB/work/bench; mkdir -p "$O" "$W"
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
python3 -c "import vllm, transformers, torch; print(vllm.__version__, transformers.__version__, torch.__version__)" > "$O/versions.txt" 2>&1
git -C "$LAB/proj" log --oneline -1 > "$O/commit.txt" 2>&1 || true
echo "== stage 1: in process: rates b and a (paced by first tokens, and unpaced), newcomer $(date +%T)"
# Since 14a20cb the pacing reads first tokens from vLLM's output processor (before, vLLM held
# 5-7 pages: "181 / 5"); each round records what vLLM held (in_vllm_median / in_vllm_max).
timeout 1100 python3 benchmarks/gpu_inprocess.py --model $M --max-tokens 128 --rounds 3 \
  --stages rates-b rates-a callers --wb-unpaced --caller-variants plan+pace plan --work "$W" \
  --json "$O/inprocess.json" > "$O/inprocess.log" 2>&1
echo "stage 1 exit $? $(date +%T)"; tail -5 "$O/inprocess.log"
pkill -9 -f EngineCore; sleep 2; nvidia-smi --query-gpu=memory.used --format=csv > "$O/mem_after_stage1.txt"
echo "== stage 2: vllm serve with the plan's flags: set a raw vs CLI; the service vs the CLI $(date +%T)"
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
timeout 330 python3 benchmarks/gpu_throughput.py --base-url http://127.0.0.1:8000/v1 --model $M \
  --modes server-raw server-cli --sets a --rounds 2 --max-tokens 128 --concurrency 64 --work "$W" \
  --json "$O/server.json" > "$O/server.log" 2>&1
echo "stage 2a exit $? $(date +%T)"; tail -8 "$O/server.log"
timeout 330 python3 benchmarks/service_vs_cli.py --engine vllm-server --base-url http://127.0.0.1:8000/v1 \
  --model $M --max-tokens 128 --rounds 2 "$W"/folder-128-1-2/*.pdf > "$O/service.log" 2>&1
echo "stage 2b exit $? $(date +%T)"; tail -6 "$O/service.log"
curl -s http://127.0.0.1:8000/metrics > "$O/metrics_end.txt"
pkill -f "vllm.entrypoints" ; sleep 5; pkill -9 -f "vllm.entrypoints"; pkill -9 -f EngineCore; sleep 3
echo "== stage 3 (issue 34): one image per encoder step against the plan's step, two servers side by side $(date +%T)"
# Pixtral's encoder in vLLM 0.26 without xformers attends over every image of a step with a dense
# block mask (pixtral.py, generate_block_attention_mask): is the plan's 7168-token step (2 images)
# slower than 4096 (1 image)? Same flags otherwise; each server gets 45 % of the card.
setsid bash -c "python3 -m vllm.entrypoints.cli.main serve $ARGV --gpu-memory-utilization 0.45 --load-format dummy --port 8010 > '$O/serve_plan45.log' 2>&1" &
sleep 20
setsid bash -c "python3 -m vllm.entrypoints.cli.main serve $ARGV --gpu-memory-utilization 0.45 --max-num-batched-tokens 4096 --load-format dummy --port 8011 > '$O/serve_4096.log' 2>&1" &
for i in $(seq 1 60); do curl -sf http://127.0.0.1:8010/v1/models > /dev/null && curl -sf http://127.0.0.1:8011/v1/models > /dev/null && break; sleep 5; done
echo "servers up after ~$((i*5 + 20)) s $(date +%T)"
for r in 1 2; do
  for port in 8010 8011; do
    timeout 150 python3 benchmarks/gpu_throughput.py --base-url http://127.0.0.1:$port/v1 --model $M \
      --modes server-raw --sets b --rounds 1 --max-tokens 128 --concurrency 64 --work "$W" \
      --json "$O/step_${port}_r$r.json" > "$O/step_${port}_r$r.log" 2>&1
    echo "port $port round $r exit $? $(date +%T)"; tail -3 "$O/step_${port}_r$r.log"
  done
done
pkill -f "vllm.entrypoints" ; sleep 5; pkill -9 -f "vllm.entrypoints"; pkill -9 -f EngineCore
touch "$O/DONE"
