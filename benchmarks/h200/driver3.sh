#!/bin/bash
# Fifth hold (2026-12-06, second session): issues 34 and 29, stages (stages.sh) in priority
# order. How to start it: README.md here. About 26 minutes.
source "$(dirname "$0")/stages.sh" || exit 1
stage1; stage2; stage3; stage4
touch "$O/DONE"
