#!/bin/bash
# Tenth hold (issues 29 and 34), prepared 2026-12-07 from the ninth's findings:
# 1. the newcomer on a freshly built engine that now warms vLLM's sampler at build (e78914a):
#    the first ramp after a build took 6.1x alone on the H100 (4.2x on the H200) while vLLM
#    compiled its top-k/top-p kernel mid-step; it must now fall in line with the next ramps;
# 2. LightOnOCR-2-1B: its recipe, the plan (now four API servers on Hopper) and the plan with
#    one API server, two rounds alternated (stage 3c did not run in the ninth hold).
source "$(dirname "$0")/stages.sh" || exit 1
echo "== callers: three rounds on a fresh engine that warms its sampler $(date +%T)"
WORKBENCH_VLLM_ARGS='{"load_format": "dummy"}' timeout 330 python3 benchmarks/gpu_inprocess.py \
  --model $LIGHTON --max-tokens 128 --stages callers --caller-variants plan+pace plan+pace plan+pace \
  --work "$W" --json "$O/callers_warm.json" > "$O/callers_warm.log" 2>&1
echo "callers exit $? $(date +%T)"; grep -v "INFO\|WARNING" "$O/callers_warm.log" | tail -5
grep -c "JIT compilation during inference" "$O/callers_warm.log"; pkill -9 -f EngineCore; sleep 2
echo "== LightOnOCR: recipe, plan (four API servers), plan with one $(date +%T)"
WORKBENCH_VLLM_ARGS='{"load_format": "dummy"}' ROUNDS=2 UTIL=0.29 CANDIDATE='{"api_server_count": 1}' \
  timeout 720 bash benchmarks/h200/pair_stage.sh lighton $LIGHTON server-raw b \
  "--limit-mm-per-prompt '{\"image\": 1}' --mm-processor-cache-gb 0 --no-enable-prefix-caching" \
  > "$O/lighton_stage.log" 2>&1
echo "lighton exit $? $(date +%T)"; tail -12 "$O/lighton_stage.log"
pkill -9 -f "vllm.entrypoints"; pkill -9 -f EngineCore; sleep 3
touch "$O/DONE"
