#!/usr/bin/env bash
# The whole test suite: lint, format, types, layering, then every test this machine can run
# (browser tests included; GPU and vLLM tests skip themselves with the reason). Sets the
# machine up first when it is not (scripts/setup.sh).
#
#   bash scripts/test.sh                 everything (what CI and the README run)
#   bash scripts/test.sh --fast          the day-to-day lane: the same lint/type/layering checks,
#                                        then unit tests only: no browser, no slow (real OCR), no
#                                        AppTest app runs. About three minutes on a 2-core box.
#   bash scripts/test.sh [--fast] ARGS   extra ARGS go to pytest (e.g. -k viewer, tests/ui)
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
FAST=0
if [ "${1:-}" = "--fast" ]; then
    FAST=1
    shift
fi
bash scripts/setup.sh --if-needed

# Each check on its own line: under set -e a failing `a && b` list would not stop the script.
echo "== ruff"; "$PY" -m ruff check .
"$PY" -m ruff format --check .
echo "== mypy"; "$PY" -m mypy
echo "== import layering"; lint-imports
echo "== module and function size"; "$PY" scripts/check_module_size.py
set +e
if [ $FAST -eq 1 ]; then
    echo "== pytest (fast lane: not browser, not slow, no AppTest)"
    "$PY" -m pytest -q -m "not browser and not slow" --ignore-glob='*_apptest.py' "$@"
else
    echo "== pytest"
    "$PY" -m pytest "$@"
fi
rc=$?
set -e
[ $rc -eq 5 ] && { echo "pytest collected no tests"; exit 1; }
if [ $FAST -eq 0 ] && [ $rc -eq 0 ]; then  # engine settings against the real vLLM
    set +e; bash scripts/vllm_contract.sh; rc=$?; set -e
fi
exit $rc
