#!/bin/bash
# Eleventh hold (issues 29 and 34), 2026-12-07 evening: driver11 cut to the device time left
# after refused starts (~20 min): the newcomer on a freshly built engine that warms vLLM's
# sampler (three rounds), then LightOnOCR-2-1B's recipe beside the plan (four API servers on
# Hopper) and the plan with one, one round each.
source "$(dirname "$0")/stages.sh" || exit 1
echo "== callers: three rounds on a fresh engine that warms its sampler $(date +%T)"
WORKBENCH_VLLM_ARGS='{"load_format": "dummy"}' timeout 330 python3 benchmarks/gpu_inprocess.py \
  --model $LIGHTON --max-tokens 128 --stages callers --caller-variants plan+pace plan+pace plan+pace \
  --work "$W" --json "$O/callers_warm.json" > "$O/callers_warm.log" 2>&1
echo "callers exit $? $(date +%T)"; grep -v "INFO\|WARNING" "$O/callers_warm.log" | tail -5
grep -c "JIT compilation during inference" "$O/callers_warm.log"; pkill -9 -f EngineCore; sleep 2
UTIL=0.29 CANDIDATE='{"api_server_count": 1}' LIGHTON_ROUNDS=1 LIGHTON_TIMEOUT=480 stage3
touch "$O/DONE"
