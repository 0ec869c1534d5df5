"""``python -m workbench parse --model MODEL_ID --raw FILE --width W --height H``.

Re-parse a saved raw model output without the model: prints the page JSON (the same record
as ``page-NNNN.json``; bboxes in pixels of a W×H page image) on stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from workbench.cli import plain_help
from workbench.engines.base import EngineOutput
from workbench.models.registry import get_spec
from workbench.pipeline.process import to_result


def register(sub: Any) -> None:
    p = sub.add_parser(
        "parse", help="re-parse a saved raw model output", description=plain_help(__doc__ or "")
    )
    p.add_argument("--model", required=True, help="model spec id, e.g. datalab-to/chandra-ocr-2")
    p.add_argument("--raw", required=True, type=Path, help="raw output file ('-' for stdin)")
    p.add_argument("--width", required=True, type=int, help="page image width in pixels")
    p.add_argument("--height", required=True, type=int, help="page image height in pixels")
    p.add_argument("--page", type=int, default=1)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        spec = get_spec(args.model)
    except KeyError as exc:
        print(f"error: {exc.args[0]}", file=sys.stderr)
        return 2
    if args.width < 1 or args.height < 1:
        print("error: --width and --height must be positive", file=sys.stderr)
        return 2
    try:
        raw = sys.stdin.read() if str(args.raw) == "-" else args.raw.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"error: {args.raw}: cannot read it ({exc})", file=sys.stderr)
        return 2
    result = to_result(
        spec,
        EngineOutput(key="parse", raw=raw),
        document=args.raw.name,
        page=args.page,
        size=(args.width, args.height),
        engine="parse",
        model=spec.id,
    )
    print(json.dumps(result.model_dump(mode="json"), indent=1, ensure_ascii=False))
    return 0
