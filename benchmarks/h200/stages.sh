#!/bin/bash
# The fifth hold's stages (issues 34 and 29), each under timeout, results in $LAB/out; sourced by
# driver3.sh to driver6.sh, which pick their order. Sourcing it sets up the lab
# (env, weightless folders, versions). Env: LIGHTON_ROUNDS (3), LIGHTON_TIMEOUT (840) for stage 3; CHANDRA_ROUNDS (2) for stage 4.
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

stage0() {
  echo "== stage 0: a model vLLM cannot inspect, as the in-process engine reports it (issue 29) $(date +%T)"
  # compressed-tensors moved out of the site: vLLM 0.26 then refuses Chandra OCR 2 with "failed
  # to be inspected"; the CLI must name the import that failed and its fix (load_cause.py).
  mkdir -p "$LAB/aside"; mv "$LAB"/site/compressed_tensors* "$LAB/aside/" 2>/dev/null
  WORKBENCH_VLLM_ARGS='{"load_format": "dummy", "enforce_eager": true, "gdn_prefill_backend": "triton"}' \
    timeout 240 python3 -m workbench ocr tests/data/pdflatex_outline.pdf --engine vllm --model $CHANDRA \
    --max-tokens 16 --out "$W/inspect-run" > "$O/inspect.out" 2> "$O/inspect.err"
  echo "stage 0 exit $? $(date +%T)"; grep -v " INFO \|WARNING" "$O/inspect.err" | tail -4
  mv "$LAB"/aside/* "$LAB/site/" 2>/dev/null; pkill -9 -f EngineCore; sleep 2
}

stage1() {
  echo "== stage 1: Chandra OCR 2 probed on the $CARD with Triton's GDN prefill (issue 34) $(date +%T)"
  mkdir -p "$O/probe"
  WORKBENCH_VLLM_ARGS='{"gdn_prefill_backend": "triton"}' timeout 330 python3 -m workbench probe \
    --model $CHANDRA --card $CARD --eager --pages 16 --max-tokens 16 --timeout 270 \
    --page-pdf tests/data/pdflatex_outline.pdf --out "$O/probe/chandra2-triton" > "$O/probe/chandra2-triton.log" 2>&1
  echo "stage 1 exit $? $(date +%T)"; tail -2 "$O/probe/chandra2-triton.log"
  pkill -9 -f EngineCore; sleep 3
}

stage2() {
  echo "== stage 2: the in-process engine's death as its EngineCore logged it (issue 29) $(date +%T)"
  # No triton argument: vLLM picks FlashInfer's GDN prefill on Hopper and the lab has no
  # flashinfer; the CLI must name that cause (core_log) and the fix, not "vLLM did not say why".
  WORKBENCH_VLLM_ARGS='{"load_format": "dummy", "enforce_eager": true}' timeout 300 python3 -m workbench \
    ocr tests/data/pdflatex_outline.pdf --engine vllm --model $CHANDRA --max-tokens 16 \
    --out "$W/death-run" > "$O/death.out" 2> "$O/death.err"
  echo "stage 2 exit $? $(date +%T)"; grep -v " INFO \|WARNING" "$O/death.err" | tail -6
  ls /tmp/ocr-workbench-vllm-*.json > "$O/death_core_logs.txt" 2>&1; pkill -9 -f EngineCore; sleep 3
}

stage3() {
  echo "== stage 3: LightOnOCR's recipe beside the plan, alternated (issue 34) $(date +%T)"
  WORKBENCH_VLLM_ARGS='{"load_format": "dummy"}' ROUNDS=${LIGHTON_ROUNDS:-3} timeout ${LIGHTON_TIMEOUT:-840} bash benchmarks/h200/pair_stage.sh \
    lighton $LIGHTON server-raw b \
    "--limit-mm-per-prompt '{\"image\": 1}' --mm-processor-cache-gb 0 --no-enable-prefix-caching" \
    > "$O/lighton_stage.log" 2>&1
  echo "stage 3 exit $? $(date +%T)"; tail -12 "$O/lighton_stage.log"
  pkill -9 -f "vllm.entrypoints"; pkill -9 -f EngineCore; sleep 3
}

stage4() {
  echo "== stage 4: Chandra's recipe beside the plan, alternated (issue 34) $(date +%T)"
  WORKBENCH_VLLM_ARGS='{"load_format": "dummy", "gdn_prefill_backend": "triton"}' ROUNDS=${CHANDRA_ROUNDS:-2} PAGES=56 \
    timeout 900 bash benchmarks/h200/pair_stage.sh chandra $CHANDRA server-chandra a \
    "$(python3 benchmarks/chandra_client.py --serve-args)" > "$O/chandra_stage.log" 2>&1
  echo "stage 4 exit $? $(date +%T)"; tail -12 "$O/chandra_stage.log"
  pkill -9 -f "vllm.entrypoints"; pkill -9 -f EngineCore; sleep 3
}

stage5() {
  echo "== stage 5: Chandra OCR 2 compiled (CUDA graphs) at the plan's worst case on the $CARD (issue 34) $(date +%T)"
  mkdir -p "$O/probe"
  WORKBENCH_VLLM_ARGS='{"gdn_prefill_backend": "triton"}' timeout 480 python3 -m workbench probe \
    --model $CHANDRA --card $CARD --max-tokens 16 --timeout 420 \
    --page-pdf tests/data/pdflatex_outline.pdf --out "$O/probe/chandra2-compiled" > "$O/probe/chandra2-compiled.log" 2>&1
  echo "stage 5 exit $? $(date +%T)"; tail -2 "$O/probe/chandra2-compiled.log"
  pkill -9 -f EngineCore
}

callers_warm() {  # issue 29: the newcomer beside a 200-page caller, three rounds on a fresh engine
  echo "== callers: three rounds on a fresh engine that warms its sampler $(date +%T)"
  WORKBENCH_VLLM_ARGS='{"load_format": "dummy"}' timeout 330 python3 benchmarks/gpu_inprocess.py \
    --model $LIGHTON --max-tokens 128 --stages callers --caller-variants plan+pace plan+pace plan+pace \
    --work "$W" --json "$O/callers_warm.json" > "$O/callers_warm.log" 2>&1
  echo "callers exit $? $(date +%T)"; grep -v "INFO\|WARNING" "$O/callers_warm.log" | tail -5
  grep -c "JIT compilation during inference" "$O/callers_warm.log"; pkill -9 -f EngineCore; sleep 2
}

probe_lighton3() {  # issue 34: LightOnOCR-3 1B and 4B at the card's plan, eager, 16 pages
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
}
