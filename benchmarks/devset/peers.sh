#!/usr/bin/env bash
# The benchmark-only virtual environment of the peers the development set is scored against.
# pymupdf4llm (and the PyMuPDF it needs) is AGPL: it lives here, outside the workbench's
# dependencies, and benchmarks/heldout.py runs it as a subprocess, never imports it.
#   bash benchmarks/devset/peers.sh      # creates benchmarks/.venv-peers (ignored by git)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
venv="$here/.venv-peers"
python3 -m venv "$venv"
"$venv/bin/pip" install -q --upgrade pip
# pymupdf-layout: the layout model pymupdf4llm uses when it is installed (what users get
# from `pip install pymupdf4llm pymupdf-layout`, PyMuPDF's recommended setup). Pinned: the
# 2.0 uploads of both on the index are empty placeholder packages.
"$venv/bin/pip" install -q "pymupdf4llm==1.28.2" "pymupdf-layout==1.28.2" "pymupdf==1.28.2"
"$venv/bin/python" -c "import pymupdf4llm, pymupdf; print('pymupdf4llm', pymupdf4llm.__version__, 'pymupdf', pymupdf.__version__)"
