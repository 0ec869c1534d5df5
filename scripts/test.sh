#!/usr/bin/env bash
# The whole test suite: lint, format, types, layering, then every test this machine can run
# (browser tests included; GPU and vLLM tests skip themselves with the reason). Sets the
# machine up first when it is not (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
bash scripts/setup.sh --if-needed

echo "== ruff"; "$PY" -m ruff check . && "$PY" -m ruff format --check .
echo "== mypy"; "$PY" -m mypy
echo "== import layering"; lint-imports
echo "== module size"; "$PY" scripts/check_module_size.py
echo "== pytest"
set +e
"$PY" -m pytest "$@"
rc=$?
set -e
[ $rc -eq 5 ] && { echo "pytest collected no tests"; exit 1; }
exit $rc
