#!/bin/bash
# Eleventh hold (issue 29), 2026-12-07 evening, if any device time is left after refused starts:
# the newcomer on a freshly built engine that warms vLLM's
# sampler, three rounds (driver12 without its LightOn round).
source "$(dirname "$0")/stages.sh" || exit 1
echo "== callers: three rounds on a fresh engine that warms its sampler $(date +%T)"
WORKBENCH_VLLM_ARGS='{"load_format": "dummy"}' timeout 330 python3 benchmarks/gpu_inprocess.py \
  --model $LIGHTON --max-tokens 128 --stages callers --caller-variants plan+pace plan+pace plan+pace \
  --work "$W" --json "$O/callers_warm.json" > "$O/callers_warm.log" 2>&1
echo "callers exit $? $(date +%T)"; grep -v "INFO\|WARNING" "$O/callers_warm.log" | tail -5
grep -c "JIT compilation during inference" "$O/callers_warm.log"; pkill -9 -f EngineCore; sleep 2
touch "$O/DONE"
