"""The size check (scripts/check_module_size.py): modules under 450 lines, functions under 80
(issue 32), with the functions over it today named in an allow-list."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "check_module_size.py"
_spec = importlib.util.spec_from_file_location("check_module_size", SCRIPT)
assert _spec and _spec.loader
size = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(size)


def _function(name: str, lines: int, indent: str = "") -> str:
    body = "".join(f"{indent}    x = {k}\n" for k in range(lines - 1))
    return f"{indent}def {name}():\n{body}"


def test_a_function_of_the_limit_is_found_one_under_is_not(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    long = _function("long", size.FUNCTION_LIMIT)
    inner = "class C:\n" + _function("method", size.FUNCTION_LIMIT, "    ")
    src.write_text(long + _function("short", size.FUNCTION_LIMIT - 1) + inner)
    found = size.long_functions(src, "m.py")
    assert found == [("m.py:long", size.FUNCTION_LIMIT), ("m.py:C.method", size.FUNCTION_LIMIT)]


def test_the_package_keeps_its_sizes() -> None:
    assert size.main() == 0
