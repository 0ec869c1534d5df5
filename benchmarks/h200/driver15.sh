#!/bin/bash
# Eleventh hold, second stage (issue 34), 2026-12-07 night: LightOnOCR-2-1B's recipe, the plan
# (four API servers on Hopper) and the plan with one API server, three servers at 0.25 of the
# card each (~20 GB left free for the recipe's unprofiled encoder), two rounds alternated:
# where a LightOn page's time goes with one front-end process and with four.
source "$(dirname "$0")/stages.sh" || exit 1
UTIL=0.25 CANDIDATE='{"api_server_count": 1}' LIGHTON_ROUNDS=2 LIGHTON_TIMEOUT=720 stage3
touch "$O/DONE"
