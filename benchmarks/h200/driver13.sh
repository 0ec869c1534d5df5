#!/bin/bash
# The tenth hold (issue 29), run 2026-12-07 evening on an H100 with the device time refused
# starts had left (results-2026-12-07d.md): the newcomer on a freshly built engine that warms
# vLLM's sampler, three rounds (driver12 without its LightOn round).
source "$(dirname "$0")/stages.sh" || exit 1
callers_warm
touch "$O/DONE"
