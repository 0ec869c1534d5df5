#!/bin/bash
# Fourth hold, second machine (2026-12-06): the newcomer with the loop's hold after the fix
# that a run alone holds back no one (its first page is no newcomer's), then the probes.
LAB=${LAB:-$HOME/gpulab}
cd "$LAB/proj" || exit 1
source "$LAB/proj/.gpulab/bin/env.sh"
export WORKBENCH_VLLM_ARGS='{"load_format": "dummy"}'
export WORKBENCH_STORE_DIR="$LAB/work/store"
O=$LAB/out; W=$LAB/work/bench; mkdir -p "$O" "$W"
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
git -C "$LAB/proj" log --oneline -1 > "$O/commit.txt" 2>&1 || true
echo "== stage 1: the newcomer, hold fixed $(date +%T)"
timeout 330 python3 benchmarks/gpu_inprocess.py --model lightonai/LightOnOCR-2-1B --max-tokens 128 \
  --stages callers --caller-variants plan+pace plan+pace --work "$W" \
  --json "$O/callers2.json" > "$O/callers2.log" 2>&1
echo "stage 1 exit $? $(date +%T)"; grep -v "INFO\|WARNING" "$O/callers2.log" | tail -4
pkill -9 -f EngineCore; sleep 2
echo "== stage 2: probes (issue 34) $(date +%T)"
BUDGET=200 timeout 420 bash "$LAB/proj/benchmarks/h200/probe_stage.sh" > "$O/probe_stage.log" 2>&1
echo "stage 2 exit $? $(date +%T)"; tail -12 "$O/probe_stage.log"
pkill -9 -f EngineCore
touch "$O/DONE"
