#!/bin/bash
# driver3.sh's short stages for a hold of under 8 minutes: the in-process death's logged cause
# (stage 2, issue 29), then the Chandra OCR 2 probe with Triton's GDN prefill (stage 1, issue 34).
LAB=${LAB:-$HOME/gpulab}
cd "$LAB/proj" || exit 1
source "$LAB/proj/.gpulab/bin/env.sh"
export WORKBENCH_STORE_DIR="$LAB/work/store"
O=$LAB/out; W=$LAB/work/bench; mkdir -p "$O" "$W"
CHANDRA=datalab-to/chandra-ocr-2 LIGHTON=lightonai/LightOnOCR-2-1B
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
CARD=$(nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && echo H200 || echo H100)
python3 -c "import vllm, transformers, torch; print(vllm.__version__, transformers.__version__, torch.__version__)" > "$O/versions.txt" 2>&1
git -C "$LAB/proj" log --oneline -1 > "$O/commit.txt" 2>&1 || true
timeout 120 python3 -m workbench.models.weightless --model $CHANDRA --out "$HF_HOME" > "$O/folders.log" 2>&1

echo "== stage 2: the in-process engine's death as its EngineCore logged it (issue 29) $(date +%T)"
# No triton argument: vLLM picks FlashInfer's GDN prefill on Hopper and the lab has no
# flashinfer; the CLI must name that cause (core_log) and the fix, not "vLLM did not say why".
WORKBENCH_VLLM_ARGS='{"load_format": "dummy", "enforce_eager": true}' timeout 300 python3 -m workbench \
  ocr tests/data/pdflatex_outline.pdf --engine vllm --model $CHANDRA --max-tokens 16 \
  --out "$W/death-run" > "$O/death.out" 2> "$O/death.err"
echo "stage 2 exit $? $(date +%T)"; grep -v " INFO \|WARNING" "$O/death.err" | tail -6
ls /tmp/ocr-workbench-vllm-*.json > "$O/death_core_logs.txt" 2>&1; pkill -9 -f EngineCore; sleep 3

echo "== stage 1: Chandra OCR 2 probed on the $CARD with Triton's GDN prefill (issue 34) $(date +%T)"
mkdir -p "$O/probe"
WORKBENCH_VLLM_ARGS='{"gdn_prefill_backend": "triton"}' timeout 330 python3 -m workbench probe \
  --model $CHANDRA --card $CARD --eager --pages 16 --max-tokens 16 --timeout 270 \
  --page-pdf tests/data/pdflatex_outline.pdf --out "$O/probe/chandra2-triton" > "$O/probe/chandra2-triton.log" 2>&1
echo "stage 1 exit $? $(date +%T)"; tail -2 "$O/probe/chandra2-triton.log"
pkill -9 -f EngineCore; sleep 3

touch "$O/DONE"
