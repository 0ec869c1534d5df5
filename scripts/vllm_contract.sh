#!/usr/bin/env bash
# The vllm_contract lane: tests/vllm_contract run once by the interpreter of each vLLM
# environment: the releases scripts/setup.sh lists (--list-vllm-lanes: the ends of the
# supported range, pyproject's [vllm] extra, and the model pins between them whose plans
# differ), each in $VLLM_VENV_DIR/vllm-X.Y (default .venv-vllms/); VLLM_LANES="0.26 0.34"
# runs fewer. scripts/setup.sh --with-vllm makes them all. No GPU needed. Extra arguments
# go to pytest.
# Outside CI an environment that is missing is a clear skip. In CI (CI=true) the lane makes
# each environment itself just before it runs and removes it after (the machine is thrown
# away): one ~10 GB environment on disk at a time instead of two. A machine without the disk
# for even one is a loud skip, not a failure; any other install failure fails.
set -uo pipefail
cd "$(dirname "$0")/.."

has_vllm() {
    [ -x "$1/bin/python" ] && "$1/bin/python" -c \
        "import importlib.util as u; assert u.find_spec('vllm')" 2>/dev/null
}

# run_lane X.Y VENV [PYTEST ARGS…]: 0 passed (or skipped), non-zero otherwise.
run_lane() {
    local lane=$1 venv=$2 made=0
    shift 2
    if ! has_vllm "$venv"; then
        if [ "${CI:-}" != "true" ]; then
            echo "== vllm_contract: skipped $venv, no vllm environment (bash scripts/setup.sh --with-vllm makes it)"
            return 0
        fi
        bash scripts/setup.sh --vllm-lane "$lane"
        local rc=$?
        if [ $rc -eq 3 ]; then
            echo "== vllm_contract: SKIPPED $venv: not enough disk on this machine (above)"
            return 0
        fi
        [ $rc -eq 0 ] || { echo "== vllm_contract: FAILED to make $venv (exit $rc)"; return 1; }
        made=1
    fi
    local vpy="$venv/bin/python"
    echo "== vllm_contract (real vllm $("$vpy" -c 'import importlib.metadata as m; print(m.version("vllm"))'), $vpy)"
    "$vpy" -m pytest -q -p no:cacheprovider tests/vllm_contract "$@"
    local rc=$?
    [ $made -eq 1 ] && rm -rf "$venv"  # CI only: room for the next lane's environment
    return $rc
}

rc=0
lanes=$(bash scripts/setup.sh --list-vllm-lanes) || exit 2
while read -r lane venv; do
    started=$SECONDS
    run_lane "$lane" "$venv" "$@" </dev/null || rc=1
    echo "== vllm_contract $lane: $((SECONDS - started)) s"
done <<< "$lanes"
exit $rc
