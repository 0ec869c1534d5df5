#!/bin/bash
# Issues 29 and 34 (fourth hold, 2026-12-06): stages in priority order, each under timeout,
# results in $LAB/out. How to start it: README.md here. About 22 minutes.
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
echo "== stage 1: the newcomer beside a 200-page caller, with and without the loop's hold $(date +%T)"
# Since bc32f0e a newcomer's page in vLLM holds the other caller's pages in the loop (at most
# 5 s): plan+pace (hold), plan+pace-nohold (the engine of the third hold), plan+pace again.
timeout 480 python3 benchmarks/gpu_inprocess.py --model $M --max-tokens 128 \
  --stages callers --caller-variants plan+pace plan+pace-nohold plan+pace --work "$W" \
  --json "$O/callers.json" > "$O/callers.log" 2>&1
echo "stage 1 exit $? $(date +%T)"; grep -v "INFO\|WARNING" "$O/callers.log" | tail -5
pkill -9 -f EngineCore; sleep 2; nvidia-smi --query-gpu=memory.used --format=csv > "$O/mem_after_stage1.txt"
echo "== stage 2: probes of Chandra OCR 2 and olmOCR 2 (issue 34) $(date +%T)"
BUDGET=270 timeout 390 bash "$LAB/proj/benchmarks/h200/probe_stage.sh" > "$O/probe_stage.log" 2>&1
echo "stage 2 exit $? $(date +%T)"; tail -12 "$O/probe_stage.log"
pkill -9 -f EngineCore; sleep 2
echo "== stage 3: Chandra's recipe against the plan (issue 34) $(date +%T)"
PAGES=56 ROUNDS=2 timeout 660 bash "$LAB/proj/benchmarks/h200/chandra_stage.sh" > "$O/chandra_stage.log" 2>&1
echo "stage 3 exit $? $(date +%T)"; tail -20 "$O/chandra_stage.log"
pkill -f "vllm.entrypoints"; sleep 3; pkill -9 -f "vllm.entrypoints"; pkill -9 -f EngineCore
touch "$O/DONE"
