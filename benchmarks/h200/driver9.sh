#!/bin/bash
# Eighth hold (issue 34), as held: Chandra OCR 2's recipe, the plan at step 8192 (the Hopper
# profile was set to 8192 for this hold, then back to 16384: no faster) and at 16384, three servers on one card
# at 0.29 each, the same CLI to both plans, alternated, three rounds (stage 4b); then the
# 8192 plan probed compiled at its worst case (stage 5).
source "$(dirname "$0")/stages.sh" || exit 1
stage4b() {
  echo "== stage 4b: Chandra's recipe beside the plan at 8192 and at 16384, alternated $(date +%T)"
  WORKBENCH_VLLM_ARGS='{"load_format": "dummy", "gdn_prefill_backend": "triton"}' ROUNDS=3 PAGES=56 UTIL=0.29 \
    CANDIDATE='{"max_num_batched_tokens": 16384}' \
    timeout 1260 bash benchmarks/h200/pair_stage.sh chandra $CHANDRA server-chandra a \
    "$(python3 benchmarks/chandra_client.py --serve-args)" > "$O/chandra_stage.log" 2>&1
  echo "stage 4b exit $? $(date +%T)"; tail -12 "$O/chandra_stage.log"
  pkill -9 -f "vllm.entrypoints"; pkill -9 -f EngineCore; sleep 3
}
stage4b; stage5
touch "$O/DONE"
