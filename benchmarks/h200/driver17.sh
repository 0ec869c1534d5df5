#!/bin/bash
# Twelfth hold (issue 34), prepared 2026-12-08. The project and the packages the CLI imports are
# byte-compiled first, as a wheel install leaves them (the lab copies a bare tree: every CLI
# start compiled ~600 modules, part of the ~1 s the CLI's wall time paid before "ready").
# On an H200 (the issue's card): LightOnOCR-2-1B's recipe beside the plan (driver14), then
# Chandra OCR 2's, then the LightOnOCR-3 probe (stages.sh probe_lighton3). On another card: the probe first
# (never run), then Chandra's pair (recipe and the plan with its four API servers, 0.29 each,
# three rounds), whose wall ratio was 0.96x on the ninth hold.
source "$(dirname "$0")/stages.sh" || exit 1
PKGS=""
for p in httpx httpcore h11 anyio idna certifi pydantic pydantic_core numpy PIL pypdfium2 yaml nh3; do
  d=$(python3 -c "import importlib.util as u, os; s = u.find_spec('$p'); print(os.path.dirname(s.origin) if s and s.origin else '')" 2>/dev/null)
  [ -n "$d" ] && PKGS="$PKGS $d"
done
{ time python3 -m compileall -q -j 8 workbench benchmarks $PKGS; } > "$O/compileall.log" 2>&1
echo "byte-compiled $(date +%T): $(tail -3 "$O/compileall.log" | tr '\n' ' ')"
TOTAL=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits | head -1)
chandra_pair() {
  echo "== Chandra's recipe beside the plan (four API servers on Hopper), 0.29 each $(date +%T)"
  WORKBENCH_VLLM_ARGS='{"load_format": "dummy", "gdn_prefill_backend": "triton"}' ROUNDS=${CHANDRA_ROUNDS:-3} PAGES=56 UTIL=0.29 \
    timeout 900 bash benchmarks/h200/pair_stage.sh chandra $CHANDRA server-chandra a \
    "$(python3 benchmarks/chandra_client.py --serve-args)" > "$O/chandra_stage.log" 2>&1
  echo "chandra pair exit $? $(date +%T)"; tail -12 "$O/chandra_stage.log"
  pkill -9 -f "vllm.entrypoints"; pkill -9 -f EngineCore; sleep 3
}
echo "card $CARD, $TOTAL MiB"
if [ "$CARD" = H200 ]; then
  SHARE=$(python3 -c "print(round(26 * 1024 / $TOTAL, 2))")
  UTIL=$SHARE CANDIDATE="" LIGHTON_ROUNDS=3 LIGHTON_TIMEOUT=840 stage3
  chandra_pair
  probe_lighton3
else
  probe_lighton3
  chandra_pair
fi
touch "$O/DONE"
