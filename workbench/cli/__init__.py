"""``python -m workbench``: the command-line front end on the same core as the app.

Each subcommand lives in its own module exposing ``register(subparsers)``, which adds its
parser and sets ``func`` to a callable ``(args) -> int`` (the exit status). Only the module of
the command named on the command line is imported (``ocr`` never loads the GPU planner or the
model table's commands; importing every one cost about a second per run); with no known
command (``--help``, a typo) all are, so the help and the "invalid choice" message list them.
Errors the workbench raises on purpose print one line on stderr, never a traceback.

stderr holds the workbench's own lines only: libraries' INFO logging (rapid_layout's model
path and label list, vLLM's configuration) is off unless ``--verbose`` is given, before or
after the command (:func:`workbench.logs.quiet_libraries`).
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from collections.abc import Sequence

from workbench.errors import WorkbenchError
from workbench.logs import quiet_libraries

# Subcommand modules, imported lazily so `gpu` never loads the OCR stack and vice versa.
#: Each command and the module that registers it (imported only when its command is used).
COMMANDS = {
    "ocr": "workbench.cli.ocr.cmd",
    "parse": "workbench.cli.parse_cmd",
    "gpu": "workbench.cli.gpu_cmd",
    "plan": "workbench.cli.plan_cmd",
    "models": "workbench.cli.models_cmd",
    "probe": "workbench.cli.probe_cmd",
    # The service is a front end above the CLI (it opens engines through the CLI's path);
    # named here so that ``python -m workbench serve`` and ``--help`` know it.
    "serve": "workbench.service.cmd",
}
VERBOSE_HELP = "show the libraries' INFO log lines too (off by default)"
#: What ``--help`` says above the command list (the module docstring is for developers).
DESCRIPTION = """OCR Workbench on the command line, on the same core as the app: OCR PDFs and
images into a run folder the app can open, re-parse a model's raw output, see the GPUs, plan
a model's memory, and list exactly what is sent to each model."""
EPILOG = """examples:
  python -m workbench ocr scan.pdf letters/ --out out/
  python -m workbench ocr doc.pdf --out out/ --engine vllm-server \\
      --base-url http://127.0.0.1:8000/v1
  python -m workbench models --model lightonai/LightOnOCR-2-1B
  python -m workbench plan --model allenai/olmOCR-2-7B-1025 --gpu-memory 24
  python -m workbench serve --port 8765     (the OCR service: docs/service.md)
  python -m workbench COMMAND --help     (each command's options)

exit status: 0 done, 1 an input or page failed, 2 usage or setup error, 3 done with looped or
truncated pages, 4 the output's disk is full (finished pages kept), 130 interrupted (finished
pages kept)."""


_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")  # :mod:`a.b`, :func:`~a.b`


def plain_help(doc: str) -> str:
    """A module docstring as ``--help`` text: reST markup as plain text (````x```` → x,
    :mod:`a.b` → a.b, a paragraph's closing ``::`` → ``:``)."""
    text = _ROLE.sub(lambda m: m.group(1), doc)
    text = text.replace("``", "")
    return re.sub(r"::$", ":", text, flags=re.M)


def named_command(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` asks for: its first word that is not an option (the top-level
    parser has flags only), when that is a known command."""
    word = next((a for a in argv if not a.startswith("-")), None)
    return word if word in COMMANDS else None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; given ``argv``, with only the command it names (see the module doc)."""
    parser = argparse.ArgumentParser(
        prog="python -m workbench",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-v", "--verbose", action="store_true", help=VERBOSE_HELP)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    named = None if argv is None else named_command(argv)
    for name in (named,) if named else COMMANDS:
        importlib.import_module(COMMANDS[name]).register(sub)
    for command in {id(p): p for p in sub.choices.values()}.values():  # after the command too
        command.add_argument(
            "-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help=VERBOSE_HELP
        )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    quiet_libraries(args.verbose)
    try:
        return int(args.func(args))
    except WorkbenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `| head` stopped reading: end quietly, as Unix tools do
        devnull = os.open(os.devnull, os.O_WRONLY)  # no second error when stdout is flushed
        os.dup2(devnull, sys.stdout.fileno())
        return 141  # what a shell reports for a command its pipe closed (128 + SIGPIPE)
