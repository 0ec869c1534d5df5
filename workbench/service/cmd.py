"""``python -m workbench serve``: the OCR service over HTTP (API: docs/service.md; endpoints
in :mod:`workbench.service.app`).

One engine for the whole process (held by an :class:`~workbench.pipeline.engine_holder.
EngineHolder`: one that dies is released and rebuilt for the next run), opened at start as
the CLI opens it: the same engine flags
as ``ocr`` (:func:`~workbench.cli.ocr.cmd.add_engine_arguments`), read into a
:class:`~workbench.pipeline.request.RunRequest` by the CLI's
:func:`~workbench.cli.ocr.job.run_request` and opened by :meth:`RunRequest.open`: the
embedded CPU engine by default, or a vLLM server (``--engine vllm-server --base-url URL``),
or vLLM in this process. Runs are written into the app's run
store (``WORKBENCH_STORE_DIR`` or ``--store``), so the app lists them.

The service's own key is ``--api-key`` (or ``WORKBENCH_SERVICE_KEY``): when set, clients send
it as ``Authorization: Bearer KEY`` or ``X-API-Key: KEY``. A vLLM server's key is
``--server-api-key`` (or ``WORKBENCH_API_KEY``, as for the app and the CLI). Limits:
``--max-upload-mb`` (one request's upload; default ``WORKBENCH_MAX_FILE_MB``, 200) and
``--max-pages`` (pages taken from one document; default ``WORKBENCH_MAX_PAGES``, 1000).
``--folder-root DIR`` (repeatable) lets clients name folders under DIR on this machine.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from workbench.cli import plain_help
from workbench.cli.ocr.cmd import add_engine_arguments
from workbench.cli.ocr.job import run_request
from workbench.errors import UsageError
from workbench.settings import Settings


def register(sub: Any) -> None:
    p = sub.add_parser(
        "serve",
        help="serve OCR over HTTP (an OpenAPI service on the same core and run store)",
        description=plain_help(__doc__ or ""),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="port to listen on (8765)")
    p.add_argument(
        "--api-key",
        dest="service_key",
        help="key clients must send (default: WORKBENCH_SERVICE_KEY; none: no key asked)",
    )
    p.add_argument("--max-upload-mb", type=int, metavar="MB", help="most MB one upload holds")
    p.add_argument("--max-pages", type=int, metavar="N", help="most pages of one document")
    p.add_argument(
        "--folder-root",
        action="append",
        default=[],
        type=Path,
        metavar="DIR",
        help="clients may submit folders under DIR on this machine (repeatable; default none)",
    )
    p.add_argument("--store", type=Path, metavar="DIR", help="run store (WORKBENCH_STORE_DIR)")
    p.add_argument(
        "--runs-at-once", type=int, default=2, metavar="N", help="runs processed together (2)"
    )
    add_engine_arguments(p, server_key_flag="--server-api-key")  # as for the ocr command
    p.set_defaults(func=run, pages=None)  # pages are each submission's, not the service's


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from workbench.pipeline.engine_holder import EngineHolder
    from workbench.runs.store import RunStore
    from workbench.service.app import create_app
    from workbench.service.intake import Limits
    from workbench.service.jobs import RunManager

    settings = Settings.from_env(
        concurrency=args.concurrency,
        timeout=args.timeout,
        store_dir=args.store,
        max_file_mb=args.max_upload_mb,
        max_pages=args.max_pages,
        service_key=args.service_key,
    )
    if args.runs_at_once < 1:
        raise UsageError(f"--runs-at-once must be 1 or more, not {args.runs_at_once}")
    if args.service_key is not None and not args.service_key.strip():
        # `--api-key "$KEY"` with KEY unset would otherwise serve with no key at all
        raise UsageError(
            "--api-key is empty (an unset variable?): give the key, or leave the flag out "
            "to serve with no key"
        )
    request = run_request(args, settings)  # the engine flags read as the ocr command reads them
    # The one rule every front end opens engines by; held, so a dead engine is rebuilt.
    holder = EngineHolder(lambda: request.open()[0])
    engine = holder.get()  # at start: a bad engine flag stops the service before it listens
    manager = RunManager(
        request, holder, RunStore(settings.store_dir), runs_at_once=args.runs_at_once
    )
    limits = Limits.from_settings(settings, tuple(args.folder_root))
    app = create_app(manager, limits, key=settings.service_key, engine_kind=request.kind)
    where = f"http://{args.host}:{args.port}"
    print(
        f"serving {engine.name} {engine.model} on {where} (API docs: {where}/docs; "
        f"runs in {settings.store_dir}; key {'required' if settings.service_key else 'off'})",
        file=sys.stderr,
        flush=True,
    )
    server = uvicorn.Server(
        uvicorn.Config(app, host=args.host, port=args.port, log_level="warning")
    )
    try:
        server.run()
    finally:
        manager.close()
        holder.close()
    return 0
