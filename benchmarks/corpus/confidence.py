"""Page confidence against page score on the development corpus of issue 35, recomputed from
saved pages (``dump_pages.py``) without reading them again: the calibration of
:mod:`workbench.engines.cpu.confidence` (after) beside the characters' confidence (before),
per half; ``--fit`` searches its constant and the other structural signals tried, on the
tuning half only, and prints each candidate on both halves.

    nice python benchmarks/corpus/dump_pages.py /tmp/pages       # once (~10-25 min)
    python benchmarks/corpus/confidence.py /tmp/pages [--fit]

Scores are ``score.py``'s (the same function on the saved Markdown). Pages under 85 should
read < 0.7 and pages over 95 > 0.85 (issue 35). Signals tried besides tables, each a page
factor ``1 - weight * signal`` (all on the finished regions, never on words):
``empty``: the share of the tables' cells left empty (a grid that does not fit its rows);
``scattered``: the share of text blocks under 25 characters over a knee (a page in pieces:
slides, forms); ``foreign``: the share of letters outside Latin, Greek and Cyrillic.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent.parent))
import heldout  # noqa: E402
import score  # noqa: E402

from workbench.engines.cpu import confidence  # noqa: E402
from workbench.schema import FURNITURE, Label, PageResult, Region  # noqa: E402

TEXTUAL = (Label.TEXT, Label.LIST, Label.CAPTION, Label.FOOTNOTE, Label.CODE)
_CELL = re.compile(r"<t[dh][^>]*>(.*?)</t[dh]>|(?<=\|)([^|\n]*)(?=\|)", re.S)
_FOREIGN = re.compile(r"[^\W\d_\u0000-\u024F\u0370-\u04FF\u1E00-\u1EFF]")
_LETTER = re.compile(r"[^\W\d_]")


def signals(regions: list[Region]) -> dict[str, float]:
    """The page's structural signals other than tables (module docstring), 0-1 each."""
    content = [r for r in regions if r.label not in FURNITURE and r.text.strip()]
    rows = [ln for r in content if r.label is Label.TABLE for ln in r.text.splitlines()]
    body = [ln for ln in rows if not re.match(r"^\|?\s*:?-{3,}", ln)]
    cells = [(a or b).strip() for ln in body for a, b in _CELL.findall(ln)]
    texts = [r for r in content if r.label in TEXTUAL]
    letters = _LETTER.findall("".join(r.text for r in content))
    return {
        "empty": sum(1 for c in cells if not c) / len(cells) if cells else 0.0,
        "scattered": sum(len(r.text) < 25 for r in texts) / len(texts) if texts else 0.0,
        "foreign": len(_FOREIGN.findall("".join(letters))) / len(letters) if letters else 0.0,
    }


def load(folder: Path) -> list[dict]:
    """Every saved page with its score, regions (characters' confidence) and signals."""
    pages = []
    for path in sorted(folder.glob("*.json")):
        saved = json.loads(path.read_text())
        entry, raw = saved["page"], saved["result"]
        result = PageResult.model_validate({k: v for k, v in raw.items() if k != "confidence"})
        truth = json.loads((score.CACHE / "truth" / f"{entry['id']}.json").read_text())
        out = heldout.Output(result.markdown, saved["seconds"], None, result.error)
        page_score = score.score(entry, "workbench", out, truth).score
        if page_score is None:  # no measurable part (a page whose images hold its text)
            continue
        pages.append(
            {"id": entry["id"], "half": entry["half"], "score": page_score, "result": result}
            | {"signals": signals(result.regions)}
        )
    return pages


def page_confidence(page: dict, trust: float, weights: dict[str, float], knee: float) -> float:
    regions = page["result"].regions
    tables = [
        r.model_copy(update={"confidence": r.confidence * trust})
        if r.label is Label.TABLE and r.confidence is not None
        else r
        for r in regions
    ]
    conf = page["result"].model_copy(update={"regions": tables}).confidence
    if conf is None:
        return conf
    s = page["signals"]
    over = {"empty": s["empty"], "foreign": s["foreign"]}
    over["scattered"] = max(0.0, s["scattered"] - knee) / (1 - knee)
    for name, w in weights.items():
        conf *= 1 - w * over[name]
    return conf


def counts(pages: list[dict], conf: Callable[[dict], float | None]) -> tuple[int, int, int, int]:
    """Pages < 85 reading < 0.7, pages < 85; pages > 95 reading > 0.85, pages > 95."""
    low = [p for p in pages if p["score"] < 85]
    high = [p for p in pages if p["score"] > 95]
    ok_low = sum(1 for p in low if (c := conf(p)) is not None and c < 0.7)
    ok_high = sum(1 for p in high if (c := conf(p)) is not None and c > 0.85)
    return ok_low, len(low), ok_high, len(high)


def grid(pages: list[dict], conf: Callable[[dict], float | None]) -> list[list[int]]:
    """Pages by score band (rows: < 85, 85-95, > 95) and confidence band (< 0.7, 0.7-0.85,
    > 0.85, none)."""
    out = []
    for _, lo, hi in score.SCORE_BANDS:
        band = [conf(p) for p in pages if lo <= p["score"] < hi]
        cells = [
            sum(1 for c in band if c is not None and a <= c < b) for _, a, b in score.CONF_BANDS
        ]
        out.append([*cells, sum(1 for c in band if c is None)])
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("pages", type=Path, help="dump_pages.py's folder")
    ap.add_argument("--fit", action="store_true", help="search the constants on the tuning half")
    args = ap.parse_args()
    pages = load(args.pages)
    halves = {h: [p for p in pages if p["half"] == h] for h in ("tuning", "checking")}
    trust = confidence.TABLE_TRUST
    rules = {
        "before (characters only)": lambda p: p["result"].confidence,
        f"after (tables x {trust})": lambda p: page_confidence(p, trust, {}, 0.5),
    }
    print("| rule | half | pages < 85 reading < 0.7 | pages > 95 reading > 0.85 |")
    print("|---|---|---|---|")
    for name, rule in rules.items():
        for half, mine in halves.items():
            a, n, b, m = counts(mine, rule)
            print(f"| {name} | {half} | {a} of {n} | {b} of {m} |")
    print("\n| rule | half | score | < 0.7 | 0.7-0.85 | > 0.85 | none |")
    print("|---|---|---|---|---|---|---|")
    for name, rule in rules.items():
        for half, mine in halves.items():
            for (band, _, _), row in zip(score.SCORE_BANDS, grid(mine, rule), strict=True):
                print(f"| {name} | {half} | {band} | " + " | ".join(map(str, row)) + " |")
    if args.fit:
        fit(halves)
    return 0


def fit(halves: dict[str, list[dict]]) -> None:
    """Every candidate's share of both sides met on the tuning half (the sum ranks them),
    beside the checking half; the best 15 and the table-only line."""
    found = []
    weights = (0.0, 0.2, 0.4)
    for trust, empty, scat, knee, foreign in itertools.product(
        (0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 1.0), weights, (0.0, 0.3, 0.5), (0.3, 0.5), weights
    ):
        w = {"empty": empty, "scattered": scat, "foreign": foreign}
        res = {
            h: counts(mine, lambda p, t=trust, w=w, k=knee: page_confidence(p, t, w, k))
            for h, mine in halves.items()
        }
        a, n, b, m = res["tuning"]
        found.append((a / n + b / m, trust, w, knee, res))
    found.sort(key=lambda f: -f[0])
    print("\n| rank on tuning | table trust | weights | knee | tuning | checking |")
    print("|---|---|---|---|---|---|")
    for rank, (_, trust, w, knee, res) in enumerate(found, 1):
        if rank <= 15 or (not any(w.values()) and knee == 0.3):
            t, c = res["tuning"], res["checking"]
            print(
                f"| {rank} | {trust} | {w} | {knee} | {t[0]}/{t[1]}, {t[2]}/{t[3]} | "
                f"{c[0]}/{c[1]}, {c[2]}/{c[3]} |"
            )


if __name__ == "__main__":
    raise SystemExit(main())
