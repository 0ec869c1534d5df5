#!/bin/bash
# Ninth hold (issue 34), prepared 2026-12-07 from the eighth's finding: vLLM's API server
# prepares each page's image one after another (~130 ms a Chandra page on the H100 machine's
# CPU), so 56 pages sent at once wait ~4 s on average before the engine sees them. Three
# servers a model at 0.29 of the card: the vendor's recipe, the plan, and the plan with
# --api-server-count 4 (four front-end processes preparing pages in parallel), the same CLI
# to both plans, alternated, three rounds (Chandra, stage 4c), two (LightOnOCR, stage 3c).
source "$(dirname "$0")/stages.sh" || exit 1
APIS=${APIS:-4}
stage4c() {
  echo "== stage 4c: Chandra's recipe, the plan, the plan with $APIS API servers $(date +%T)"
  WORKBENCH_VLLM_ARGS='{"load_format": "dummy", "gdn_prefill_backend": "triton"}' ROUNDS=3 PAGES=56 UTIL=0.29 \
    CANDIDATE="{\"api_server_count\": $APIS}" \
    timeout 1260 bash benchmarks/h200/pair_stage.sh chandra $CHANDRA server-chandra a \
    "$(python3 benchmarks/chandra_client.py --serve-args)" > "$O/chandra_stage.log" 2>&1
  echo "stage 4c exit $? $(date +%T)"; tail -12 "$O/chandra_stage.log"
  pkill -9 -f "vllm.entrypoints"; pkill -9 -f EngineCore; sleep 3
}
stage3c() {
  echo "== stage 3c: LightOnOCR's recipe, the plan, the plan with $APIS API servers $(date +%T)"
  WORKBENCH_VLLM_ARGS='{"load_format": "dummy"}' ROUNDS=2 UTIL=0.29 CANDIDATE="{\"api_server_count\": $APIS}" \
    timeout 720 bash benchmarks/h200/pair_stage.sh lighton $LIGHTON server-raw b \
    "--limit-mm-per-prompt '{\"image\": 1}' --mm-processor-cache-gb 0 --no-enable-prefix-caching" \
    > "$O/lighton_stage.log" 2>&1
  echo "stage 3c exit $? $(date +%T)"; tail -12 "$O/lighton_stage.log"
  pkill -9 -f "vllm.entrypoints"; pkill -9 -f EngineCore; sleep 3
}
# A stage prepared during the hold (placed by a later call in $LAB/next with its own project
# copy) runs instead of stage 3c when it is there by the time stage 4c ends.
stage4c
if [ -f "$LAB/next/RUN" ]; then
  echo "== next: $(cat "$LAB/next/RUN") $(date +%T)"
  (cd "$LAB/next" && timeout 900 bash "$(cat "$LAB/next/RUN")" > "$O/next.log" 2>&1)
  echo "next exit $? $(date +%T)"; tail -12 "$O/next.log"
else
  stage3c
fi
touch "$O/DONE"
