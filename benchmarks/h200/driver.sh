#!/bin/bash
# Issues 29/36 on the H200 (third hold, 2026-12-05 evening): stages in priority order, each
# under timeout, results in $LAB/out. How to start it: README.md here. About 20 minutes.
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
echo "== stage 1: in process: rates b and the newcomer (paced by first tokens) $(date +%T)"
# Since 14a20cb the pacing reads first tokens from vLLM's output processor (before, vLLM held
# 5-7 pages: "181 / 5"); each round records what vLLM held (in_vllm_median / in_vllm_max).
timeout 560 python3 benchmarks/gpu_inprocess.py --model $M --max-tokens 128 --rounds 3 \
  --stages rates-b callers --caller-variants plan+pace --work "$W" \
  --json "$O/inprocess.json" > "$O/inprocess.log" 2>&1
echo "stage 1 exit $? $(date +%T)"; tail -5 "$O/inprocess.log"
pkill -9 -f EngineCore; sleep 2; nvidia-smi --query-gpu=memory.used --format=csv > "$O/mem_after_stage1.txt"
echo "== stage 2: vllm serve with the plan's flags: the service against the CLI, set b $(date +%T)"
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
ls "$W"/folder-128-1-2/*.pdf > /dev/null 2>&1 || python3 -c "
import sys; sys.path.insert(0, '.')
from pathlib import Path
from benchmarks.pdf_sets import folder
folder(Path('$W/folder-128-1-2'), 128, (1, 2))"
timeout 330 python3 benchmarks/service_vs_cli.py --engine vllm-server --base-url http://127.0.0.1:8000/v1 \
  --model $M --max-tokens 128 --rounds 2 "$W"/folder-128-1-2/*.pdf > "$O/service.log" 2>&1
echo "stage 2 exit $? $(date +%T)"; tail -8 "$O/service.log"
curl -s http://127.0.0.1:8000/metrics > "$O/metrics_end.txt"
pkill -f "vllm.entrypoints" ; sleep 5; pkill -9 -f "vllm.entrypoints"; pkill -9 -f EngineCore
echo "== stage 3: in process: rates a (one 256-page PDF) $(date +%T)"
timeout 400 python3 benchmarks/gpu_inprocess.py --model $M --max-tokens 128 --rounds 2 \
  --stages rates-a --work "$W" --json "$O/inprocess_a.json" > "$O/inprocess_a.log" 2>&1
echo "stage 3 exit $? $(date +%T)"; tail -5 "$O/inprocess_a.log"
pkill -9 -f EngineCore
touch "$O/DONE"
