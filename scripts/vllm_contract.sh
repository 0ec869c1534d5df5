#!/usr/bin/env bash
# The vllm_contract lane: tests/vllm_contract run once by the interpreter of each vLLM
# environment, the two ends of the supported range (pyproject's [vllm] extra):
#   VLLM_VENV      (default .venv-vllm,      vllm 0.33.0)
#   VLLM_OLD_VENV  (default .venv-vllm-0.26, vllm 0.26.0)
# scripts/setup.sh --with-vllm makes both. No GPU needed. An environment that is missing is a
# clear skip, or a failure when CI=true (CI must check the engine settings against both).
# Extra arguments go to pytest.
set -uo pipefail
cd "$(dirname "$0")/.."
VLLM_VENV="${VLLM_VENV:-.venv-vllm}"
VLLM_OLD_VENV="${VLLM_OLD_VENV:-.venv-vllm-0.26}"

# run_lane VENV: 0 passed (or skipped outside CI), non-zero otherwise.
run_lane() {
    local venv=$1 vpy="$1/bin/python"
    if [ ! -x "$vpy" ] || ! "$vpy" -c "import importlib.util as u; assert u.find_spec('vllm')" 2>/dev/null; then
        if [ "${CI:-}" = "true" ]; then
            echo "== vllm_contract: FAILED, no vllm environment at $venv (scripts/setup.sh makes it in CI)"
            return 1
        fi
        echo "== vllm_contract: skipped $venv, no vllm environment (bash scripts/setup.sh --with-vllm makes it)"
        return 0
    fi
    echo "== vllm_contract (real vllm $("$vpy" -c 'import importlib.metadata as m; print(m.version("vllm"))'), $vpy)"
    "$vpy" -m pytest -q -p no:cacheprovider tests/vllm_contract "${@:2}"
}

rc=0
run_lane "$VLLM_VENV" "$@" || rc=1
run_lane "$VLLM_OLD_VENV" "$@" || rc=1
exit $rc
