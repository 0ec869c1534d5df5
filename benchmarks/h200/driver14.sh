#!/bin/bash
# Eleventh hold (issue 34), 2026-12-07 night: LightOnOCR-2-1B's recipe beside the plan, three
# rounds alternated. Twice (sixth and eighth holds) the recipe's server died of its vision
# encoder's unprofiled attention memory with two servers at 0.44 of an H100 (~9.6 GB of the card
# left free); so each server gets ~26 GiB of the card, whatever the card: two servers on an H100
# leave ~27 GB free, and on a card of 120 GB or more a third, the plan with one API server
# (the plan has four on Hopper), runs beside them.
source "$(dirname "$0")/stages.sh" || exit 1
TOTAL=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits | head -1)
SHARE=$(python3 -c "print(round(26 * 1024 / $TOTAL, 2))")
CAND=""; [ "$TOTAL" -gt 120000 ] && CAND='{"api_server_count": 1}'
echo "card $CARD, $TOTAL MiB, each server $SHARE of it, candidate: ${CAND:-none}"
UTIL=$SHARE CANDIDATE=$CAND LIGHTON_ROUNDS=3 LIGHTON_TIMEOUT=840 stage3
touch "$O/DONE"
