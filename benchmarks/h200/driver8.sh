#!/bin/bash
# Seventh hold, as held (issue 34): driver7's two bars in the 24 minutes of device time left
# after the start: Chandra's recipe beside the plan, three rounds (4); LightOnOCR's, two (3).
source "$(dirname "$0")/stages.sh" || exit 1
CHANDRA_ROUNDS=3 stage4; LIGHTON_ROUNDS=2 LIGHTON_TIMEOUT=540 stage3
touch "$O/DONE"
