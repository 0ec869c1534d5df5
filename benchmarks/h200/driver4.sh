#!/bin/bash
# driver3.sh's stages for a shorter hold (2026-12-06, evening: about 20 minutes of device time
# left after failed starts): the vendor bar first (stage 3, LightOnOCR's recipe beside the
# plan, two rounds), then the Chandra OCR 2 probe (1), the in-process death's cause (2),
# Chandra's recipe (4).
source "$(dirname "$0")/stages.sh" || exit 1
LIGHTON_ROUNDS=2 LIGHTON_TIMEOUT=660 stage3; stage1; stage2; stage4
touch "$O/DONE"
