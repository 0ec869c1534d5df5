"""A standalone HTML report of pages: image with region boxes beside the rendered Markdown.

Model output is untrusted: Markdown is rendered by markdown-it with raw HTML on (VLMs write
tables as HTML), then cleaned by the one nh3 policy
(:func:`workbench.markdown.sanitize.render_html`: no script, no ``on*`` attributes, no
``javascript:`` URLs, no ``img``, so no remote fetches); labels, names and region text go
through :func:`html.escape`. Page images are embedded as JPEG data URIs (at most
:data:`MAX_IMAGE_SIDE` px on the long side); boxes are placed in percent of the page, so they
stay on the image at any size. Box coordinates are the stored ``page_px`` ones (stated in an
HTML comment and in the footer).
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Sequence

from PIL import Image

from workbench.exports.formats import COORDINATES, ExportPage, regions_of
from workbench.markdown.sanitize import render_html
from workbench.schema import Label, RunInfo

MAX_IMAGE_SIDE = 1600
COLORS: dict[Label, str] = {
    Label.TEXT: "#1f77b4",
    Label.TITLE: "#d62728",
    Label.SECTION_HEADER: "#ff7f0e",
    Label.LIST: "#17becf",
    Label.TABLE: "#2ca02c",
    Label.FORMULA: "#9467bd",
    Label.FIGURE: "#8c564b",
    Label.CAPTION: "#e377c2",
    Label.HEADER: "#7f7f7f",
    Label.FOOTER: "#7f7f7f",
    Label.PAGE_NUMBER: "#7f7f7f",
    Label.FOOTNOTE: "#bcbd22",
    Label.CODE: "#393b79",
    Label.FORM: "#637939",
    Label.SIGNATURE: "#843c39",
}

CSS = """
body{font-family:system-ui,sans-serif;margin:1.5rem;color:#222}
section{margin-bottom:2.5rem;border-top:1px solid #ccc;padding-top:1rem}
.row{display:flex;gap:1.5rem;align-items:flex-start}
.page{position:relative;flex:0 0 48%;border:1px solid #ddd}
.page img{width:100%;display:block}
.box{position:absolute;border:2px solid;box-sizing:border-box}
.box span{position:absolute;top:-1.1em;left:0;font-size:10px;color:#fff;padding:0 2px}
.md{flex:1;min-width:0;overflow-x:auto}
.md table{border-collapse:collapse}.md td,.md th{border:1px solid #ccc;padding:2px 6px}
footer{color:#666;font-size:.85rem}
"""


def _data_uri(image: Image.Image) -> str:
    image = image.convert("RGB")
    image.thumbnail((MAX_IMAGE_SIDE, MAX_IMAGE_SIDE))
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=85)
    return "data:image/jpeg;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _page_html(page: ExportPage) -> str:
    result = page.result
    regions, source = regions_of(page)
    image = page.load_image()
    boxes = []
    for region in regions:
        if region.bbox is None or not result.width or not result.height:
            continue
        b = region.bbox
        left, top = 100 * b.x0 / result.width, 100 * b.y0 / result.height
        width, height = 100 * b.width / result.width, 100 * b.height / result.height
        color = COLORS.get(region.label, "#000")
        tip = html.escape(f"{region.label.value} ({region.native_label}) {b.as_list()}")
        boxes.append(
            f'<div class="box" style="left:{left:.3f}%;top:{top:.3f}%;width:{width:.3f}%;'
            f'height:{height:.3f}%;border-color:{color}" title="{tip}">'
            f'<span style="background:{color}">{html.escape(region.label.value)}</span></div>'
        )
    if image is not None:
        picture = f'<img alt="page {result.page}" src="{_data_uri(image)}">'
    else:
        picture = f"<p>(no image; {result.width}x{result.height} px)</p>"
    heading = html.escape(f"{result.document} — page {result.page}")
    meta = html.escape(
        f"{result.engine} / {result.model} · {result.status.value} · {result.seconds:.1f} s · "
        f"{result.tokens} tokens · regions: {source} layer"
    )
    return (
        f'<section><h2>{heading}</h2><p>{meta}</p><div class="row">'
        f'<div class="page">{picture}{"".join(boxes)}</div>'
        f'<div class="md">{render_html(result.markdown)}</div></div></section>'
    )


def to_html(pages: Sequence[ExportPage], *, title: str = "", run: RunInfo | None = None) -> str:
    """One self-contained HTML file (no external resources)."""
    if not title:
        title = run.name if run is not None else "OCR Workbench export"
    body = "\n".join(_page_html(p) for p in pages)
    coords = html.escape(COORDINATES)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>\n"
        f"<!-- coordinate space: {coords.replace('--', '- -')} -->\n"
        f"<h1>{html.escape(title)}</h1>\n{body}\n"
        f"<footer>Boxes drawn from region coordinates in {coords}.</footer>\n</body></html>\n"
    )
