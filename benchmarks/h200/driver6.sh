#!/bin/bash
# Sixth hold (2026-12-06, night; issues 29 and 34): the inspection cause as the workbench itself
# reports it (stage 0), then the vendors' bars: LightOnOCR's recipe beside the plan (3),
# Chandra's (4), then Chandra OCR 2 compiled at the plan's worst case (5) if time is left.
source "$(dirname "$0")/stages.sh" || exit 1
stage0; LIGHTON_ROUNDS=2 LIGHTON_TIMEOUT=600 stage3; stage4; stage5
touch "$O/DONE"
