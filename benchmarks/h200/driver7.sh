#!/bin/bash
# Seventh hold (issue 34): the vendors' bars again on pages no cache has seen (gpu_throughput
# labels every page with its set, round and number since 1f6857e; a baseline server that dies
# is recorded and the rounds go on since 4e31b1b): Chandra's recipe beside the plan, three
# rounds (4), then LightOnOCR's (3).
source "$(dirname "$0")/stages.sh" || exit 1
CHANDRA_ROUNDS=3 stage4; LIGHTON_ROUNDS=3 LIGHTON_TIMEOUT=720 stage3
touch "$O/DONE"
