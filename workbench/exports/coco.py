"""COCO layout annotations for a page or a run (object-detection flavour).

* ``images``: one per page; ``file_name`` is the page image's path inside the run folder,
  ``width``/``height`` its pixels; ``regions_source`` says whether the page's boxes come from
  the hand-corrected layer (``corrected``) or the model (``model``).
* ``categories``: every canonical :class:`~workbench.schema.Label`, with the fixed ids of
  :data:`CATEGORY_IDS` (stable across runs and releases: new labels get new ids).
* ``annotations``: ``bbox`` is ``[x, y, width, height]`` in page pixels (origin top-left),
  ``area`` = width * height, ``iscrowd`` 0, ``segmentation`` the box as one polygon.
  Unlocated regions have no box and are skipped (counted in ``info.unlocated_skipped``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from workbench.exports.formats import ExportPage, export_info, regions_of
from workbench.schema import Label, RunInfo

CATEGORY_IDS: dict[Label, int] = {
    Label.TEXT: 1,
    Label.TITLE: 2,
    Label.SECTION_HEADER: 3,
    Label.LIST: 4,
    Label.TABLE: 5,
    Label.FORMULA: 6,
    Label.FIGURE: 7,
    Label.CAPTION: 8,
    Label.HEADER: 9,
    Label.FOOTER: 10,
    Label.PAGE_NUMBER: 11,
    Label.FOOTNOTE: 12,
    Label.CODE: 13,
    Label.FORM: 14,
    Label.SIGNATURE: 15,
}

COCO_COORDINATES = "page_px; COCO bbox [x, y, width, height] in page pixels, origin top-left"


def to_coco(pages: Sequence[ExportPage], run: RunInfo | None = None) -> dict[str, Any]:
    """A COCO dict (``json.dumps`` it); see the module docstring for the fields."""
    images: list[dict[str, Any]] = []
    annotations: list[dict[str, Any]] = []
    skipped = 0
    for image_id, page in enumerate(pages, start=1):
        result = page.result
        regions, source = regions_of(page)
        images.append(
            {
                "id": image_id,
                "file_name": page.image_file,
                "width": result.width,
                "height": result.height,
                "document": result.document,
                "page": result.page,
                "regions_source": source,
            }
        )
        for region in sorted(regions, key=lambda r: r.order):
            if region.bbox is None:
                skipped += 1
                continue
            box = region.bbox
            w, h = round(box.width, 2), round(box.height, 2)
            x, y = round(box.x0, 2), round(box.y0, 2)
            annotation: dict[str, Any] = {
                "id": len(annotations) + 1,
                "image_id": image_id,
                "category_id": CATEGORY_IDS[region.label],
                "bbox": [x, y, w, h],
                "area": round(w * h, 2),
                "iscrowd": 0,
                "segmentation": [[x, y, x + w, y, x + w, y + h, x, y + h]],
                "attributes": {
                    "region_id": region.id,
                    "native_label": region.native_label,
                    "order": region.order,
                    "text": region.text,
                    "source": source,
                },
            }
            if region.score is not None and source == "model":
                annotation["score"] = region.score
            annotations.append(annotation)
    return {
        "info": export_info(
            run,
            description="OCR Workbench layout regions",
            coordinate_space=COCO_COORDINATES,
            unlocated_skipped=skipped,
        ),
        "images": images,
        "categories": [
            {"id": cid, "name": label.value, "supercategory": "layout"}
            for label, cid in CATEGORY_IDS.items()
        ],
        "annotations": annotations,
    }
