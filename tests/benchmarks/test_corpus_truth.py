"""The corpus builder's truth checks (benchmarks/corpus/build.py): a page whose images hold
text its layer lacks has no text truth; a page whose images hold no words keeps it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
# loaded by path under its own name: "build" is also PyPA's package
_spec = importlib.util.spec_from_file_location(
    "corpus_build", ROOT / "benchmarks" / "corpus" / "build.py"
)
assert _spec is not None and _spec.loader is not None
build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build)


def test_a_scanned_page_with_no_layer_holds_text_in_its_image() -> None:
    # a real scan of two columns of English prose: one image, no text layer
    assert build.text_in_images((DATA / "scan_two_columns.pdf").read_bytes()) >= build.IMAGE_WORDS


def test_a_born_digital_page_has_no_text_only_in_images() -> None:
    # every word of the census tables is in the layer; it has no image of text
    assert build.text_in_images((DATA / "census_12s0324.pdf").read_bytes()) == 0
