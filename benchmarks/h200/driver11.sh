#!/bin/bash
# Tenth hold (issues 29 and 34), prepared 2026-12-07 from the ninth's findings:
# 1. the newcomer on a freshly built engine that now warms vLLM's sampler at build (e78914a):
#    the first ramp after a build took 6.1x alone on the H100 (4.2x on the H200) while vLLM
#    compiled its top-k/top-p kernel mid-step; it must now fall in line with the next ramps;
# 2. LightOnOCR-2-1B: its recipe, the plan (now four API servers on Hopper) and the plan with
#    one API server, two rounds alternated (stage 3c did not run in the ninth hold).
source "$(dirname "$0")/stages.sh" || exit 1
callers_warm
# stages.sh's stage 3 (pair_stage.sh reads UTIL and CANDIDATE from the environment)
UTIL=0.29 CANDIDATE='{"api_server_count": 1}' LIGHTON_ROUNDS=2 LIGHTON_TIMEOUT=720 stage3
touch "$O/DONE"
