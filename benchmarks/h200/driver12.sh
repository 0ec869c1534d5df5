#!/bin/bash
# Not run (issues 29 and 34), 2026-12-07 evening: driver11 cut to the device time left
# after refused starts (~20 min): the newcomer on a freshly built engine that warms vLLM's
# sampler (three rounds), then LightOnOCR-2-1B's recipe beside the plan (four API servers on
# Hopper) and the plan with one, one round each.
source "$(dirname "$0")/stages.sh" || exit 1
callers_warm
UTIL=0.29 CANDIDATE='{"api_server_count": 1}' LIGHTON_ROUNDS=1 LIGHTON_TIMEOUT=480 stage3
touch "$O/DONE"
