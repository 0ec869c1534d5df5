#!/usr/bin/env bash
# Start the app on the embedded CPU engine, setting the machine up first when it is not.
# Extra arguments go to streamlit (e.g. --server.port 8600).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --if-needed
exec "${PYTHON:-python3}" -m streamlit run workbench/Home.py "$@"
