"""Compare labels CER for what it measures and explains each metric where it is shown
(issue 30.5). A reference holding run A's own text in another order (as a table read row by
row against one read column by column) gives A a high CER with a word F1 of 100 %: the table
names the CER "(reading order)" and the explanation beside it says why the two differ. On
e859558 the row read "CER vs reference" with no explanation."""

from __future__ import annotations

from pathlib import Path

from tests.ui.compare.test_compare_apptest import compare_app
from tests.ui.runs_seed import DOC, seed
from workbench.evaluate.metrics import plain_text
from workbench.runs.store import RunStore


def test_cer_is_named_for_what_it_measures_and_every_metric_is_explained(tmp_path: Path) -> None:
    a, b = seed(tmp_path)
    at = compare_app(tmp_path, a, b).run()
    truth = plain_text(RunStore(tmp_path).open(a).page(DOC, 1).markdown)
    reordered = "\n".join(reversed([line for line in truth.splitlines() if line.strip()]))
    at.text_area(key=f"cmp_ref_{DOC}_1").set_value(reordered).run()
    assert not at.exception
    doc = next(d.value for d in at.dataframe if "metric" in d.value.columns).set_index("metric")
    cer, f1 = doc.loc["CER vs reference (reading order)", "A"], doc.loc["word F1 vs reference", "A"]
    assert float(cer) > 0.2 and f1 == "100.0%"  # the right words, in another order
    help_text = " ".join(m.value for m in at.markdown)
    for metric in doc.index:
        assert f"**{metric}**:" in help_text, metric  # each metric shown is explained
    assert "in any order" in help_text and "in their own order" in help_text
