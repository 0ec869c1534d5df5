#!/bin/bash
# Ninth hold, after stage 4c (issue 29): the newcomer beside a 200-page caller, three rounds on
# a freshly built engine (the fourth hold's first ramp after a build took 4.2x, the next 2.0x:
# is the first one systematically slower?). Runs from the project copy the driver made.
LAB=${LAB:-$HOME/gpulab}
cd "$LAB/proj" || exit 1
source "$LAB/proj/.gpulab/bin/env.sh"
export WORKBENCH_VLLM_ARGS='{"load_format": "dummy"}' WORKBENCH_STORE_DIR="$LAB/work/store"
O=$LAB/out; W=$LAB/work/bench; mkdir -p "$O" "$W"
echo "== callers: three rounds on a fresh engine $(date +%T)"
timeout 330 python3 benchmarks/gpu_inprocess.py --model lightonai/LightOnOCR-2-1B --max-tokens 128 \
  --stages callers --caller-variants plan+pace plan+pace plan+pace --work "$W" \
  --json "$O/callers3.json" > "$O/callers3.log" 2>&1
echo "callers exit $? $(date +%T)"; grep -v "INFO\|WARNING" "$O/callers3.log" | tail -5
pkill -9 -f EngineCore; sleep 2
