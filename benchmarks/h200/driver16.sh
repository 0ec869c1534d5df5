#!/bin/bash
# Not run (issue 34), prepared 2026-12-07 night for the next hold: the probe starts the
# LightOnOCR-3 checkpoints the issue names, with random weights, at the plan of whatever card
# comes, eager, 16 pages, or says what stops them. The 1B is Pixtral + Qwen3 like
# LightOnOCR-2-1B; the 4B is Qwen3.5 like Chandra OCR 2 (Triton's GDN prefill: the lab has no
# FlashInfer). Weightless folders from workbench.models.weightless (made in 1 s here).
source "$(dirname "$0")/stages.sh" || exit 1
probe_lighton3
touch "$O/DONE"
