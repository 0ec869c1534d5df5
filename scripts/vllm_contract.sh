#!/usr/bin/env bash
# The vllm_contract lane: tests/vllm_contract run by the interpreter of the vllm virtual
# environment (scripts/setup.sh --with-vllm makes .venv-vllm; VLLM_VENV names another one).
# No GPU needed. Without that environment: a clear skip, or a failure when CI=true (CI must
# check the engine settings against the real vLLM).
set -uo pipefail
cd "$(dirname "$0")/.."
VLLM_VENV="${VLLM_VENV:-.venv-vllm}"
VPY="$VLLM_VENV/bin/python"
if [ ! -x "$VPY" ] && [ -x /opt/vllm-venv/bin/python ]; then
    VPY=/opt/vllm-venv/bin/python
fi
if [ ! -x "$VPY" ] || ! "$VPY" -c "import importlib.util as u; assert u.find_spec('vllm')" 2>/dev/null; then
    if [ "${CI:-}" = "true" ]; then
        echo "== vllm_contract: FAILED, no vllm environment at $VLLM_VENV (scripts/setup.sh makes it in CI)"
        exit 1
    fi
    echo "== vllm_contract: skipped, no vllm environment (bash scripts/setup.sh --with-vllm makes $VLLM_VENV)"
    exit 0
fi
echo "== vllm_contract (real vllm $("$VPY" -c 'import importlib.metadata as m; print(m.version("vllm"))'), $VPY)"
"$VPY" -m pytest -q -p no:cacheprovider tests/vllm_contract "$@"
