#!/bin/bash
# Issue 34: does vLLM 0.26 start Chandra OCR 2 and olmOCR 2 (7B, and its FP8)? The workbench's
# own probe (`python -m workbench probe`, benchmarks/gpu_probe_results.md) on the cards of the
# h100-h200 profile, random weights, weightless model folders written here. ~4 minutes of GPU
# time: eager engines (no torch.compile, no CUDA graphs: a start in seconds; the verdict says
# so), 16 pages at once (at least one full encoder step of max_num_batched_tokens for every
# model) of 16 output tokens. Conventions of driver.sh: $LAB, the project in $LAB/proj, the GPU
# lab's site from env.sh, every step under `timeout`, results in $LAB/out/probe.
# Standalone: `bash benchmarks/h200/probe_stage.sh`; from driver.sh:
#   timeout 420 bash "$LAB/proj/benchmarks/h200/probe_stage.sh"
# Stops starting probes once BUDGET seconds (default 330) are spent; the probe's own exit status
# is 1 when a started plan failed (the table row says why: that is the result, not an error).
LAB=${LAB:-$HOME/gpulab}
cd "$LAB/proj" || exit 1
source "$LAB/proj/.gpulab/bin/env.sh"
O=$LAB/out/probe; mkdir -p "$O"
BUDGET=${BUDGET:-330}
PDF=tests/data/pdflatex_outline.pdf
CHANDRA=datalab-to/chandra-ocr-2 OLM=allenai/olmOCR-2-7B-1025 OLM8=allenai/olmOCR-2-7B-1025-FP8
echo "== probe stage (issue 34) $(date +%T), HF_HOME=$HF_HOME"
# The weightless folders (config.json as committed, synthetic tokenizer with the checkpoint's
# special tokens at their ids, the processor's config) in the HF cache layout: the ids resolve offline.
timeout 120 python3 -m workbench.models.weightless --model $CHANDRA --model $OLM --model $OLM8 \
  --out "$HF_HOME" > "$O/folders.log" 2>&1
echo "folders exit $? $(date +%T)"; tail -4 "$O/folders.log"

# olmOCR 2 FP8's config declares a quantization_config, and for any quantization method vLLM
# 0.26 imports its compressed-tensors support (vllm/model_executor/layers/quantization/
# __init__.py:121, get_quantization_config), which needs the compressed_tensors package (a vLLM
# requirement, ==0.17.0, that the lab's site does not carry; it needs loguru). Before the hold:
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
#     --implementation cp --platform any -d .gpulab/bin/wheels compressed-tensors==0.17.0 loguru
# (~270 KB, carried with .gpulab/bin); unpacked into the site here when it lacks the package.
if ! python3 -c "import compressed_tensors" > /dev/null 2>&1; then
  for w in "$LAB/proj/.gpulab/bin/wheels"/*.whl; do [ -e "$w" ] && python3 -m zipfile -e "$w" "$LAB/site"; done
fi
python3 -c "import compressed_tensors as c; print('compressed_tensors', c.__version__)" 2>&1 | tail -1

# probe NAME MODEL CARD SECONDS: one model on one card, its vLLM log and probe.md in $O/NAME.
probe() {
  if [ "$SECONDS" -ge "$BUDGET" ]; then echo "skipped $1: stage budget ${BUDGET}s spent"; return; fi
  echo "== probe $2 on $3 $(date +%T)"
  timeout $(($4 + 60)) python3 -m workbench probe --model "$2" --card "$3" --eager --pages 16 \
    --max-tokens 16 --timeout "$4" --page-pdf "$PDF" --out "$O/$1" > "$O/$1.log" 2>&1
  echo "probe $1 exit $? $(date +%T)"; tail -1 "$O/$1.log"
  # A child killed at its timeout leaves vLLM's EngineCore holding the GPU: clear it for the next.
  pkill -9 -f EngineCore; sleep 3
  nvidia-smi --query-gpu=memory.used --format=csv,noheader > "$O/$1.gpu_after.txt" 2>&1
}
# In priority order: each model once on the card the lab is (H200: no ballast), then the H100
# (ballast: the H200 less 79.11 GiB held by another process, as the probe does).
# Chandra OCR 2 first, with the longest limit: its first start compiles the GDN (Triton) kernels
# of its linear-attention layers, cached for the later start.
probe chandra2-h200 $CHANDRA H200 240
probe olmocr2-h100 $OLM H100 150
probe olmocr2fp8-h100 $OLM8 H100 150
probe chandra2-h100 $CHANDRA H100 150
cat "$O"/*/probe.md 2>/dev/null | awk 'NR == 1 || NR == 2 || !/^\| model|^\|---/' > "$O/probe.md"
echo "probe stage done in ${SECONDS}s $(date +%T)"; cat "$O/probe.md"
