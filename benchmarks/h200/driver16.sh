#!/bin/bash
# Not run (issue 34), prepared 2026-12-07 night for the next hold: the probe starts the
# LightOnOCR-3 checkpoints the issue names, with random weights, at the plan of whatever card
# comes, eager, 16 pages, or says what stops them. The 1B is Pixtral + Qwen3 like
# LightOnOCR-2-1B; the 4B is Qwen3.5 like Chandra OCR 2 (Triton's GDN prefill: the lab has no
# FlashInfer). Weightless folders from workbench.models.weightless (made in 1 s here).
source "$(dirname "$0")/stages.sh" || exit 1
timeout 120 python3 -m workbench.models.weightless --model lightonai/LightOnOCR-3-1B \
  --model lightonai/LightOnOCR-3-4B --out "$HF_HOME" > "$O/folders3.log" 2>&1
mkdir -p "$O/probe"
for m in lightonai/LightOnOCR-3-1B lightonai/LightOnOCR-3-4B; do
  n=$(basename $m); args='{}'
  [ "$n" = LightOnOCR-3-4B ] && args='{"gdn_prefill_backend": "triton"}'  # Qwen3.5 only
  echo "== probe $n on the $CARD $(date +%T)"
  WORKBENCH_VLLM_ARGS=$args timeout 330 python3 -m workbench probe \
    --model $m --card $CARD --eager --pages 16 --max-tokens 16 --timeout 270 \
    --page-pdf tests/data/pdflatex_outline.pdf --out "$O/probe/$n" > "$O/probe/$n.log" 2>&1
  echo "probe $n exit $? $(date +%T)"; tail -2 "$O/probe/$n.log"
  pkill -9 -f EngineCore; sleep 3
done
touch "$O/DONE"
