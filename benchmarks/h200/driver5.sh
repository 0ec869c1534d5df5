#!/bin/bash
# driver3.sh's short stages for a hold of under 8 minutes: the in-process death's logged cause
# (stage 2, issue 29), then the Chandra OCR 2 probe with Triton's GDN prefill (stage 1, issue 34).
source "$(dirname "$0")/stages.sh" || exit 1
stage2; stage1
touch "$O/DONE"
