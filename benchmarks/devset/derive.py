"""Cut one-page ground-truth Markdown out of documentation sources in pip sdists (dev tool).

    python benchmarks/devset/derive.py [ID ...]   # rewrites truth/<id>.md of the manifest's cuts

Each cut names an sdist member (Markdown, or reST converted by pandoc), the heading to start
at, and the typesetting options of its ``pandoc`` recipe. The source is cleaned of what a PDF
would not show as text (link targets, images, HTML, MyST directives, cross-reference roles),
split into blocks, and as many whole blocks are kept as fit one page when typeset with those
options (checked with pdflatex). The result is the page's truth *and* the source the page is
built from (``build.py``), so the two cannot disagree. Run once when the set is made; the
truth files are committed, this script records how they were cut.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from build import HERE, load_manifest, page_count, render_markdown, sdist_path

_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_REFLINK = re.compile(r"\[([^\]]+)\]\[[^\]]*\]")
_ROLE = re.compile(r"\{[a-z:]+\}`([^`<]*?)(?:\s*<[^>]*>)?`")
_FOOT = re.compile(r"\[\^[^\]]*\]")


def _clean_block(block: str) -> str | None:
    s = block.strip("\n")
    first = s.lstrip()
    if not first or first.startswith(("<", "```{", ":::", "(", "[^", "---", "{", "|---")):
        return None if not first.startswith("|---") else s
    if re.match(r"^\[[^\]]+\]:\s", first) or first.startswith("!["):
        return None
    s = _LINK.sub(r"\1", s)
    s = _REFLINK.sub(r"\1", s)
    s = _ROLE.sub(r"\1", s)
    s = _FOOT.sub("", s)
    s = s.replace("{.title-ref}", "")
    s = re.sub(r"\{#[^}]*\}", "", s)  # pandoc heading ids
    s = re.sub(r"\{\.[a-z-]+[^}]*\}", "", s)  # pandoc attributes: {.interpreted-text role=...}
    s = re.sub(r"\[\\\[(\w+)\\\]\]\(#\w+\)", r"[\1]", s)
    return s.rstrip()


def blocks(markdown: str) -> list[str]:
    """Top-level blocks (code fences kept whole), cleaned; dropped blocks left out."""
    out, cur, fence = [], [], False
    for line in markdown.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
        if not fence and not line.strip():
            if cur:
                out.append("\n".join(cur))
                cur = []
            continue
        cur.append(line)
    if cur:
        out.append("\n".join(cur))
    cleaned = [_clean_block(b) for b in out]
    return [b for b in cleaned if b and not b.lstrip().startswith("```{")]


_DEFAULT_ROLE = re.compile(r"(?<![:`\w])`([^`\n]+)`(?![`_])")


def source_markdown(member: str, data: bytes, default_math: bool) -> str:
    text = data.decode("utf-8")
    if member.endswith(".rst"):
        if default_math:  # sphinx default_role = "math" (sympy): `x` is a formula
            text = _DEFAULT_ROLE.sub(r":math:`\1`", text)
        done = subprocess.run(
            ["pandoc", "-f", "rst", "--wrap=none",
             "-t", "markdown-smart-simple_tables-multiline_tables-grid_tables"],
            input=text, capture_output=True, text=True, check=True,
        )  # fmt: skip
        text = done.stdout
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.S)  # front matter
    return text


def cut(blocks_: list[str], start: str | None, options: dict, limit: int = 60) -> str:
    """The longest run of whole blocks from the heading ``start`` that typesets on one page."""
    i = 0
    if start:
        i = next(k for k, b in enumerate(blocks_) if b.lstrip("# ").startswith(start))
    run = blocks_[i : i + limit]
    lo, hi = 1, len(run)
    while lo < hi:  # binary search on the number of blocks
        mid = (lo + hi + 1) // 2
        try:
            fits = page_count(render_markdown("\n\n".join(run[:mid]) + "\n", options)) == 1
        except RuntimeError:  # a character pdflatex cannot set (box drawing): stop before it
            fits = False
        if fits:
            lo = mid
        else:
            hi = mid - 1
    return "\n\n".join(run[:lo]) + "\n"


def main() -> int:
    only = set(sys.argv[1:])  # page ids; none: every cut
    manifest = load_manifest()
    for entry in manifest["pages"]:
        cut_spec = entry.get("cut")
        if only and entry["id"] not in only:
            continue
        if entry["recipe"]["kind"] != "pandoc" or not cut_spec:
            continue
        src = manifest["sources"][entry["source"]]
        with tarfile.open(sdist_path(src)) as tar:
            handle = tar.extractfile(tar.getmember(cut_spec["member"]))
            assert handle is not None
            data = handle.read()
        md = source_markdown(cut_spec["member"], data, cut_spec.get("default_math", False))
        text = cut(blocks(md), cut_spec.get("start"), entry["recipe"].get("options", {}))
        (HERE / entry["truth"]).write_text(text)
        print(f"{entry['id']:30s} {len(text.split()):5d} words", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
