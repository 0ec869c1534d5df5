"""Write the ``latex`` pages of the set: ``src/<id>.tex`` and its truth ``truth/<id>.md`` (dev tool).

    python benchmarks/devset/make_latex.py

Both files of a page come from the same data, so the truth cannot drift from the page:
tables from tabula-py's ``data_1.csv`` (R's ``mtcars``: Motor Trend road tests, 1974), the
key/value forms from sdists' ``PKG-INFO``, receipts from the lists below (invented, ours).
The layouts are the ones issue 23 names: two-level headers with notes under the table, a
two-line header cell, dot leaders, two borderless tables stacked, receipts and forms whose
keys and values sit far apart.
"""

# ruff: noqa: E501 - the page tables below read best one entry a line

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from build import HERE, load_manifest, sdist_member

PRE = r"""\documentclass[11pt]{article}
\usepackage[T1]{fontenc}
\usepackage[utf8]{inputenc}
\usepackage{lmodern}
\usepackage[letterpaper,margin=2.2cm]{geometry}
\usepackage{booktabs}
\usepackage{amsmath}
\pagestyle{empty}
\setlength{\parindent}{0pt}
\setlength{\parskip}{6pt}
"""


def mtcars() -> list[dict[str, str]]:
    src = load_manifest()["sources"]["tabula"]
    data = sdist_member(src, "tabula_py-2.10.0/tests/resources/data_1.csv", None).decode()
    rows = list(csv.reader(io.StringIO(data)))
    head = ["car", *rows[0][1:]]
    return [dict(zip(head, r, strict=True)) for r in rows[1:]]


def html_table(header: list[list[tuple[str, int]]], body: list[list[str]]) -> str:
    """An HTML table: header rows of (text, colspan) cells, then body rows."""
    out = ["<table>"]
    for row in header:
        cells = "".join(f'<th colspan="{n}">{t}</th>' if n > 1 else f"<th>{t}</th>" for t, n in row)
        out.append(f"<tr>{cells}</tr>")
    for row in body:
        out.append("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def two_level(cars: list[dict[str, str]]) -> tuple[str, str]:
    groups = []
    for cyl in ("4", "6", "8"):
        row = [cyl]
        for am in ("0", "1"):
            g = [c for c in cars if c["cyl"] == cyl and c["am"] == am]
            row += [
                str(len(g)),
                f"{sum(float(c['mpg']) for c in g) / len(g):.1f}",
                f"{sum(float(c['hp']) for c in g) / len(g):.0f}",
            ]
        groups.append(row)
    intro = (
        "The road tests of 32 cars published by Motor Trend in 1974 are summarised below by "
        "number of cylinders and type of transmission. Cars with manual gearboxes travel "
        "further on a gallon in every group, while the eight-cylinder cars with manual "
        "gearboxes are also the most powerful."
    )
    notes = (
        "Source: Motor Trend US magazine, 1974 road tests. Note: mpg is miles per US gallon; "
        "hp is gross horsepower; figures are means over the cars of each group."
    )
    rows_tex = "\n".join(" & ".join(r) + r" \\" for r in groups)
    tex = (
        PRE
        + rf"""\begin{{document}}
\section*{{Fuel economy by engine and transmission}}
{intro}

\begin{{center}}
\textbf{{Table 2.}} Mean fuel economy and power, by cylinders and transmission\\[4pt]
\begin{{tabular}}{{lrrrrrr}}
\toprule
 & \multicolumn{{3}}{{c}}{{Automatic}} & \multicolumn{{3}}{{c}}{{Manual}} \\
\cmidrule(lr){{2-4}}\cmidrule(lr){{5-7}}
Cylinders & Cars & mpg & hp & Cars & mpg & hp \\
\midrule
{rows_tex}
\bottomrule
\end{{tabular}}
\end{{center}}
{{\small {notes}}}

The four-cylinder manual cars, eight of the sample, average more than 28 miles per gallon.
\end{{document}}
"""
    )
    table = html_table(
        [[("", 1), ("Automatic", 3), ("Manual", 3)],
         [("Cylinders", 1), ("Cars", 1), ("mpg", 1), ("hp", 1), ("Cars", 1), ("mpg", 1), ("hp", 1)]],
        groups,
    )  # fmt: skip
    md = (
        f"# Fuel economy by engine and transmission\n\n{intro}\n\n"
        f"Table 2. Mean fuel economy and power, by cylinders and transmission\n\n{table}\n\n"
        f"{notes}\n\nThe four-cylinder manual cars, eight of the sample, average more than 28 "
        "miles per gallon.\n"
    )
    return tex, md


def dot_leaders(cars: list[dict[str, str]]) -> tuple[str, str]:
    first, second = cars[:18], cars[18:26]
    lead = r"\dotfill"

    def block(rows: list[dict[str, str]], cols: list[str]) -> str:
        return "\n".join(
            rf"\makebox[7.5cm][l]{{{c['car']}{lead}}}" + "".join(rf"\makebox[2cm][r]{{{c[k]}}}" for k in cols) + r"\\"
            for c in rows
        )  # fmt: skip

    tex = (
        PRE
        + rf"""\begin{{document}}
\section*{{Road test results}}
Miles per gallon and gross horsepower of each car tested.

\medskip
\makebox[7.5cm][l]{{\textbf{{Car}}}}\makebox[2cm][r]{{\textbf{{mpg}}}}\makebox[2cm][r]{{\textbf{{hp}}}}\\
{block(first, ["mpg", "hp"])}

\bigskip
Quarter-mile time in seconds and weight in thousands of pounds.

\medskip
\makebox[7.5cm][l]{{\textbf{{Car}}}}\makebox[2cm][r]{{\textbf{{qsec}}}}\makebox[2cm][r]{{\textbf{{wt}}}}\\
{block(second, ["qsec", "wt"])}
\end{{document}}
"""
    )
    t1 = html_table(
        [[("Car", 1), ("mpg", 1), ("hp", 1)]], [[c["car"], c["mpg"], c["hp"]] for c in first]
    )
    t2 = html_table(
        [[("Car", 1), ("qsec", 1), ("wt", 1)]], [[c["car"], c["qsec"], c["wt"]] for c in second]
    )
    md = (
        "# Road test results\n\nMiles per gallon and gross horsepower of each car tested.\n\n"
        f"{t1}\n\nQuarter-mile time in seconds and weight in thousands of pounds.\n\n{t2}\n"
    )
    return tex, md


def borderless(cars: list[dict[str, str]]) -> tuple[str, str]:
    heavy = sorted(cars, key=lambda c: -float(c["wt"]))[:9]
    fast = sorted(cars, key=lambda c: float(c["qsec"]))[:9]

    def tab(rows: list[dict[str, str]], keys: list[str]) -> str:
        return "\n".join(c["car"] + "".join(f" & {c[k]}" for k in keys) + r" \\" for c in rows)

    tex = (
        PRE
        + rf"""\begin{{document}}
\textbf{{Heaviest cars}}

\begin{{tabular}}{{@{{}}l@{{\hspace{{3cm}}}}r@{{\hspace{{2cm}}}}r}}
Car & Weight & Displacement \\[3pt]
{tab(heavy, ["wt", "disp"])}
\end{{tabular}}

\bigskip
\textbf{{Quickest cars}}

\begin{{tabular}}{{@{{}}l@{{\hspace{{3cm}}}}r@{{\hspace{{2cm}}}}r}}
Car & Quarter mile & Gears \\[3pt]
{tab(fast, ["qsec", "gear"])}
\end{{tabular}}

\bigskip
Weight in thousands of pounds, displacement in cubic inches, quarter-mile times in seconds.
\end{{document}}
"""
    )
    t1 = html_table(
        [[("Car", 1), ("Weight", 1), ("Displacement", 1)]],
        [[c["car"], c["wt"], c["disp"]] for c in heavy],
    )
    t2 = html_table(
        [[("Car", 1), ("Quarter mile", 1), ("Gears", 1)]],
        [[c["car"], c["qsec"], c["gear"]] for c in fast],
    )
    md = (
        f"Heaviest cars\n\n{t1}\n\nQuickest cars\n\n{t2}\n\n"
        "Weight in thousands of pounds, displacement in cubic inches, quarter-mile times in seconds.\n"
    )
    return tex, md


def multiline_header(cars: list[dict[str, str]]) -> tuple[str, str]:
    by_gear = []
    for gear in ("3", "4", "5"):
        g = [c for c in cars if c["gear"] == gear]
        n = len(g)
        by_gear.append([
            gear, str(n), f"{sum(float(c['drat']) for c in g) / n:.2f}",
            f"{sum(float(c['wt']) for c in g) / n:.2f}", f"{sum(float(c['qsec']) for c in g) / n:.2f}",
        ])  # fmt: skip
    para = (
        "For each group of $n$ cars we report the sample mean "
        r"$\bar{x} = \frac{1}{n}\sum_{i=1}^{n} x_i$ of three measurements. "
        "Table 1 shows that cars with more forward gears are lighter and have a higher rear axle ratio."
    )
    para_md = (
        "For each group of $n$ cars we report the sample mean "
        r"$\bar{x} = \frac{1}{n}\sum_{i=1}^{n} x_i$ of three measurements. "
        "Table 1 shows that cars with more forward gears are lighter and have a higher rear axle ratio."
    )
    rows_tex = "\n".join(" & ".join(r) + r" \\" for r in by_gear)
    tex = (
        PRE
        + rf"""\begin{{document}}
\section*{{3\quad Results}}
{para}

\begin{{center}}
Table 1: Means by number of forward gears.\\[4pt]
\begin{{tabular}}{{ccccc}}
\toprule
\shortstack{{Forward\\gears}} & Cars & \shortstack{{Rear axle\\ratio}} & \shortstack{{Weight\\(1000 lb)}} & \shortstack{{Quarter\\mile (s)}} \\
\midrule
{rows_tex}
\bottomrule
\end{{tabular}}
\end{{center}}

The variance is estimated by
\[ s^2 = \frac{{1}}{{n-1}}\sum_{{i=1}}^{{n}} (x_i - \bar{{x}})^2 \]
and is omitted from the table for brevity.
\end{{document}}
"""
    )
    table = html_table(
        [[("Forward gears", 1), ("Cars", 1), ("Rear axle ratio", 1), ("Weight (1000 lb)", 1), ("Quarter mile (s)", 1)]],
        by_gear,
    )  # fmt: skip
    md = (
        f"# 3 Results\n\n{para_md}\n\nTable 1: Means by number of forward gears.\n\n{table}\n\n"
        "The variance is estimated by\n\n$$s^2 = \\frac{1}{n-1}\\sum_{i=1}^{n} (x_i - \\bar{x})^2$$\n\n"
        "and is omitted from the table for brevity.\n"
    )
    return tex, md


RECEIPT_PRE = r"""\documentclass[10pt]{article}
\usepackage[T1]{fontenc}
\usepackage[utf8]{inputenc}
\usepackage{lmodern}
\usepackage[paperwidth=3.4in,paperheight=%s,margin=0.25in]{geometry}
\pagestyle{empty}
\setlength{\parindent}{0pt}
\renewcommand{\familydefault}{\ttdefault}
"""

RECEIPTS = {
    "receipt-grocery": {
        "height": "7.2in",
        "head": ["GREENLEAF MARKET", "418 Alder Street", "Springfield, OR 97477", "Tel. 541-555-0142"],
        "meta": [("Date", "03/14/2025"), ("Time", "17:42"), ("Register", "04"), ("Cashier", "Dana")],
        "items": [("Bananas 1.24 lb", "0.73"), ("Whole milk 1 gal", "3.89"), ("Sourdough loaf", "5.49"),
                  ("Eggs large 12 ct", "4.29"), ("Cheddar 8 oz", "3.99"), ("Apples Gala 2.1 lb", "3.13"),
                  ("Coffee beans 12 oz", "9.99"), ("Paper towels 6 pk", "7.49")],
        "totals": [("Subtotal", "39.00"), ("Tax 0.0%", "0.00"), ("TOTAL", "39.00"), ("VISA **** 4417", "39.00"),
                   ("Change", "0.00")],
        "foot": ["Items sold: 8", "Thank you for shopping with us"],
    },
    "receipt-hardware": {
        "height": "6.4in",
        "head": ["NORTHSIDE HARDWARE", "72 Mill Road", "Burlington, VT 05401"],
        "meta": [("Invoice", "118-20457"), ("Date", "11/02/2024"), ("Clerk", "R. Alvarez")],
        "items": [("Wood screws 2in x100", "6.98"), ("Hinge brass 3in x2", "8.58"), ("Sandpaper 120 grit", "4.25"),
                  ("Wood glue 8 oz", "5.79"), ("Paint brush 2in", "7.49")],
        "totals": [("Subtotal", "33.09"), ("Sales tax 6%", "1.99"), ("Total", "35.08"), ("Cash", "40.00"),
                   ("Change due", "4.92")],
        "foot": ["Returns within 30 days with receipt"],
    },
}  # fmt: skip


def receipt(spec: dict) -> tuple[str, str]:
    def kv(rows: list[tuple[str, str]]) -> str:
        pct = "\\%"
        return "\n".join(rf"{k.replace('%', pct)}\hfill {v}\\" for k, v in rows)

    head = "\\\\\n".join(spec["head"])
    foot = "\\\\\n".join(spec["foot"])
    tex = (
        RECEIPT_PRE % spec["height"]
        + rf"""\begin{{document}}
\begin{{center}}
{head}
\end{{center}}
{kv(spec["meta"])}
\rule{{\linewidth}}{{0.4pt}}\\
{kv(spec["items"])}
\rule{{\linewidth}}{{0.4pt}}\\
{kv(spec["totals"])}
\begin{{center}}
{foot}
\end{{center}}
\end{{document}}
"""
    )
    lines = [
        *spec["head"],
        *(f"{k} {v}" for k, v in spec["meta"] + spec["items"] + spec["totals"]),
        *spec["foot"],
    ]
    return tex, "\n\n".join(lines) + "\n"


def pkg_form(source: str, member: str, title: str) -> tuple[str, str]:
    info = sdist_member(load_manifest()["sources"][source], member, None).decode()
    keys = ["Name", "Version", "Summary", "Author", "Author-email", "License", "License-Expression",
            "Requires-Python", "Keywords", "Home-page", "Metadata-Version"]  # fmt: skip
    fields: list[tuple[str, str]] = []
    for line in info.split("\n\n")[0].splitlines():
        key, _, value = line.partition(": ")
        if key in keys and value and key not in dict(fields):
            fields.append((key, value))
    urls = [ln.partition(": ")[2] for ln in info.splitlines() if ln.startswith("Project-URL: ")][:3]
    for url in urls:
        label, _, link = url.partition(", ")
        fields.append((f"URL: {label}", link))

    def esc(s: str) -> str:
        for a, b in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("_", r"\_"), ("#", r"\#"),
                     ("~", r"\textasciitilde{}"), ("^", r"\^{}"), ("$", r"\$"), ("{", r"\{"), ("}", r"\}")):  # fmt: skip
            s = s.replace(a, b)
        return s

    rows = "\n".join(
        rf"\textbf{{{esc(k)}}} & \texttt{{\detokenize{{{v}}}}} \\[8pt]" if "URL" in k else rf"\textbf{{{esc(k)}}} & {esc(v)} \\[8pt]"
        for k, v in fields
    )  # fmt: skip
    tex = (
        PRE
        + rf"""\begin{{document}}
\begin{{center}}\Large\textbf{{{title}}}\end{{center}}
\bigskip
Record of the metadata a package declares, as filed with its source distribution.

\bigskip
\begin{{tabular}}{{@{{}}p{{5cm}}@{{\hspace{{1.5cm}}}}p{{9cm}}}}
{rows}
\end{{tabular}}

\vfill
Filed by: \rule{{5cm}}{{0.4pt}} \hfill Date: \rule{{3cm}}{{0.4pt}}
\end{{document}}
"""
    )
    md = (
        f"# {title}\n\nRecord of the metadata a package declares, as filed with its source distribution.\n\n"
        + "\n\n".join(f"{k}: {v}" for k, v in fields)
        + "\n\nFiled by: Date:\n"
    )
    return tex, md


def tabula_truths() -> dict[str, str]:
    """Truth of the tabula-py test PDFs taken whole: their tables as the CSVs tabula-py's own
    tests expect (page furniture, the page number and the annex footer, left out)."""
    src = load_manifest()["sources"]["tabula"]

    def rows(name: str) -> list[list[str]]:
        data = sdist_member(src, f"tabula_py-2.10.0/tests/resources/{name}", None).decode()
        return list(csv.reader(io.StringIO(data)))

    cars = rows("data_1.csv")
    data = html_table([[(h, 1) for h in cars[0]]], cars[1:])
    multi = rows("MultiColumn.csv")
    left = html_table([], multi[:24])
    right = html_table([], multi[24:])
    donors = [r[1:] for r in rows("campaign_donors.csv")]
    campaign = html_table([[(h, 1) for h in donors[0]]], donors[1:])
    return {
        "tabula-data-p1": data + "\n",
        "tabula-multicolumn": f"{left}\n\n{right}\n",
        "tabula-campaign-donors": campaign + "\n",
    }


def main() -> int:
    cars = mtcars()
    pages = {
        "table-mtcars-two-level": two_level(cars),
        "table-mtcars-dot-leaders": dot_leaders(cars),
        "table-borderless-stacked": borderless(cars),
        "table-paper-multiline-header": multiline_header(cars),
        **{k: receipt(v) for k, v in RECEIPTS.items()},
        "form-pkginfo-black": pkg_form(
            "black", "black-26.10.1/PKG-INFO", "Package Metadata Record"
        ),
        "form-pkginfo-sympy": pkg_form("sympy", "sympy-1.14.0/PKG-INFO", "Package Metadata Record"),
    }
    for pid, md in tabula_truths().items():
        (HERE / "truth" / f"{pid}.md").write_text(md)
        print(pid)
    for pid, (tex, md) in pages.items():
        (HERE / "src" / f"{pid}.tex").write_text(tex)
        (HERE / "truth" / f"{pid}.md").write_text(md)
        print(pid)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
