"""Docstrings and comments cite files of this repository that exist (issue 32.4: four cited
notes that were never in it). Paths inside other projects (vLLM's ``v1/worker/...``) are
not this repository's and are not checked."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: a path this repository could hold: in one of its top folders, or a file of benchmarks/
#: itself (upstream projects have benchmarks/ and scripts/ folders of their own), or in
#: ``shared/``, which it never holds (notes kept beside a checkout are not the repository's)
CITED = re.compile(
    r"(?<![\w./-])((?:(?:tests|workbench|assets|pages|shared)/[\w./-]*|benchmarks/[\w.-]*)"
    r"\.(?:py|md|json|sh|toml|txt|pdf|png))\b"
)


def test_every_cited_repository_file_exists() -> None:
    missing = []
    for path in sorted((ROOT / "workbench").rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            for cited in CITED.findall(line):
                target = cited.split("#")[0].split("::")[0]
                if not (ROOT / target).exists():
                    missing.append(f"{path.relative_to(ROOT)}:{number}: {cited}")
    assert missing == []
