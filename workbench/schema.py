"""The one currency between modules: typed page, region and run records.

Coordinate spaces
-----------------
Every :class:`BBox` names the space its numbers are in. There is one space after parsing:

``page_px``
    pixels of the page image that was sent to the engine (the ``page-NNNN.png`` the CLI
    writes), origin top-left, x to the right, y down, ``x0 < x1`` and ``y0 < y1``.

Parsers convert each model's native scale (Chandra 2 0-1000, Chandra 1 0-1024, DeepSeek
0-999, dots.ocr model-input pixels, ...) to ``page_px`` once, at parse time, with
:meth:`BBox.from_scaled`; nothing downstream rescales. A region whose box cannot be read is
*unlocated* (``bbox is None``), never a 1-pixel box at the origin.

On disk a bbox is the list ``[x0, y0, x1, y1]``; the page record carries
``coordinate_space`` once for all of its regions.

Labels
------
Every engine speaks the canonical vocabulary :class:`Label`; the model's own label is kept
beside it in ``Region.native_label``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from PIL import Image
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    computed_field,
    model_serializer,
    model_validator,
)


class Label(StrEnum):
    TEXT = "text"
    TITLE = "title"
    SECTION_HEADER = "section_header"
    LIST = "list"
    TABLE = "table"
    FORMULA = "formula"
    FIGURE = "figure"
    CAPTION = "caption"
    HEADER = "header"
    FOOTER = "footer"
    PAGE_NUMBER = "page_number"
    FOOTNOTE = "footnote"
    CODE = "code"
    FORM = "form"
    SIGNATURE = "signature"


#: Running headers, footers and page numbers: kept as regions, out of document Markdown by default.
FURNITURE: frozenset[Label] = frozenset({Label.HEADER, Label.FOOTER, Label.PAGE_NUMBER})


class CoordSpace(StrEnum):
    PAGE_PX = "page_px"


class BBox(BaseModel):
    """An axis-aligned box; serialized as ``[x0, y0, x1, y1]``."""

    model_config = ConfigDict(frozen=True)

    x0: float
    y0: float
    x1: float
    y1: float
    space: CoordSpace = CoordSpace.PAGE_PX

    @model_validator(mode="before")
    @classmethod
    def _from_list(cls, value: Any) -> Any:
        if isinstance(value, list | tuple):
            x0, y0, x1, y1 = (float(v) for v in value)
            return {"x0": x0, "y0": y0, "x1": x1, "y1": y1}
        return value

    @model_validator(mode="after")
    def _ordered(self) -> BBox:
        if not (self.x0 <= self.x1 and self.y0 <= self.y1):
            raise ValueError(f"bbox corners out of order: {self.as_list()}")
        return self

    @model_serializer
    def _to_list(self) -> list[float]:
        return self.as_list()

    @classmethod
    def from_scaled(
        cls,
        coords: Sequence[float],
        scale_x: float,
        scale_y: float,
        width: int,
        height: int,
    ) -> BBox | None:
        """Convert a native box to ``page_px``: ``coords`` are in a space ``scale_x`` wide and
        ``scale_y`` tall (1000 for a 0-1000 grid, the model input size for pixel outputs).

        Corners are reordered and clamped to the page; an empty or unreadable box gives None.
        """
        try:
            x0, y0, x1, y1 = (float(c) for c in coords)
        except (TypeError, ValueError):
            return None
        if scale_x <= 0 or scale_y <= 0:
            return None
        fx, fy = width / scale_x, height / scale_y
        xs = sorted((min(max(x0 * fx, 0.0), width), min(max(x1 * fx, 0.0), width)))
        ys = sorted((min(max(y0 * fy, 0.0), height), min(max(y1 * fy, 0.0), height)))
        if xs[1] - xs[0] < 1 or ys[1] - ys[0] < 1:
            return None
        return cls(x0=round(xs[0], 1), y0=round(ys[0], 1), x1=round(xs[1], 1), y1=round(ys[1], 1))

    def as_list(self) -> list[float]:
        return [self.x0, self.y0, self.x1, self.y1]

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @property
    def area(self) -> float:
        return self.width * self.height

    @property
    def center(self) -> tuple[float, float]:
        return ((self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2)

    def pixels(
        self, width: int, height: int, scale_x: float = 1.0, scale_y: float = 1.0
    ) -> tuple[int, int, int, int]:
        """The box in whole pixels of a ``width``×``height`` image (``scale_*``: image pixels
        per ``page_px``): corners floored, clamped to the image, at least 1 px wide and high.
        The one crop rule (figure files, the viewer's figure crops)."""
        x0 = min(max(0, int(self.x0 * scale_x)), width - 1)
        y0 = min(max(0, int(self.y0 * scale_y)), height - 1)
        x1 = min(max(x0 + 1, int(self.x1 * scale_x)), width)
        y1 = min(max(y0 + 1, int(self.y1 * scale_y)), height)
        return x0, y0, x1, y1

    def intersection(self, other: BBox) -> float:
        w = min(self.x1, other.x1) - max(self.x0, other.x0)
        h = min(self.y1, other.y1) - max(self.y0, other.y0)
        return max(w, 0.0) * max(h, 0.0)

    def iou(self, other: BBox) -> float:
        inter = self.intersection(other)
        union = self.area + other.area - inter
        return inter / union if union > 0 else 0.0

    def union(self, other: BBox) -> BBox:
        return BBox(
            x0=min(self.x0, other.x0),
            y0=min(self.y0, other.y0),
            x1=max(self.x1, other.x1),
            y1=max(self.y1, other.y1),
        )


class Region(BaseModel):
    """One layout block of a page, in reading order."""

    model_config = ConfigDict(frozen=True)

    id: str
    label: Label
    native_label: str
    bbox: BBox | None = None  # None: unlocated (the model gave no readable box)
    text: str = ""  # the block's content as Markdown (tables as Markdown/HTML, math as $…$)
    order: int = 0
    score: float | None = None
    continues: bool = False  # LightOnOCR-3 "text+": continues the previous block
    source: str | None = None  # CPU engine's reader: "text_layer", "tesseract", "rapidocr"
    confidence: float | None = None  # 0-1, how sure the reader is of the text (None: unknown)


@dataclass(frozen=True)
class Sampling:
    """Sampling for one generation attempt (the spec registry holds each model's values)."""

    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 4096
    repetition_penalty: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # passed through to the server/vLLM


class Attempt(BaseModel):
    """One generation attempt for a page (a retry after a repetition loop adds one)."""

    temperature: float = 0.0
    finish_reason: str | None = None  # "stop", "length", or None when the call failed
    tokens: int = 0
    seconds: float = 0.0
    repeated: bool = False  # the output ended in a repetition loop
    error: str | None = None


#: A page (or region) whose confidence is under this is flagged "low confidence" to the user.
LOW_CONFIDENCE = 0.6


class PageStatus(StrEnum):
    OK = "ok"
    TRUNCATED = "truncated"  # cut off by max_tokens
    LOOPED = "looped"  # every attempt ended in a repetition loop
    ERROR = "error"


class PageResult(BaseModel):
    """What one engine made of one page. Coordinates: see the module docstring."""

    document: str
    page: int  # 1-based
    width: int  # page image size, page_px
    height: int
    engine: str
    model: str
    coordinate_space: CoordSpace = CoordSpace.PAGE_PX
    regions: list[Region] = Field(default_factory=list)
    markdown: str = ""  # assembled page Markdown, furniture excluded
    raw: str = ""  # the engine's raw output
    seconds: float = 0.0
    tokens: int = 0
    attempts: list[Attempt] = Field(default_factory=list)
    status: PageStatus = PageStatus.OK
    error: str | None = None
    rotation: int = 0  # degrees the page was turned counter-clockwise on the model's word (olmOCR)
    notes: list[str] = Field(default_factory=list)  # user-facing remarks ("no boxes…")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def confidence(self) -> float | None:
        """Text-weighted mean of the regions' confidences (0-1); None when no region has one.
        Under :data:`LOW_CONFIDENCE` the page is flagged as low confidence."""
        rated = [
            (r.confidence, max(len(r.text), 1)) for r in self.regions if r.confidence is not None
        ]
        if not rated:
            return None
        return round(sum(c * n for c, n in rated) / sum(n for _, n in rated), 3)

    @property
    def low_confidence(self) -> bool:
        return self.confidence is not None and self.confidence < LOW_CONFIDENCE

    @property
    def retries(self) -> int:
        return max(len(self.attempts) - 1, 0)

    @property
    def located(self) -> list[Region]:
        return [r for r in self.regions if r.bbox is not None]


@dataclass(frozen=True)
class PageImage:
    """A rasterized page, ready for an engine. ``index`` is 1-based within its document."""

    document: str
    index: int
    image: Image.Image = field(repr=False, compare=False)
    dpi: float | None = None  # None for image inputs
    scale_note: str | None = None  # set when a giant page was shrunk to the pixel cap
    text_layer: TextLayer | None = field(default=None, compare=False)  # PDF pages with text
    # Set once the page is prepared for a model (workbench.pipeline.prepare): ``image`` at the
    # model's size, encoded once, losslessly; these bytes are sent and written as they are.
    png: bytes | None = field(default=None, repr=False, compare=False)

    @property
    def size(self) -> tuple[int, int]:
        return self.image.size

    def __getstate__(self) -> dict[str, Any]:
        # A prepared page crosses process boundaries as its PNG, not its pixels.
        state = dict(self.__dict__)
        if self.png is not None:
            state["image"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        if state.get("image") is None and state.get("png") is not None:
            import io

            state["image"] = Image.open(io.BytesIO(state["png"]))  # decoded on first use
        for key, value in state.items():
            object.__setattr__(self, key, value)


@dataclass(frozen=True)
class TextWord:
    """One word of a PDF text layer. ``box`` is in PDF points of the displayed page (origin
    top-left, rotation and crop box applied), so it scales to any rendering of the page."""

    text: str
    box: tuple[float, float, float, float]
    size: float  # font size in points (the word's first character)
    bold: bool = False
    line: int = 0  # index of the text-layer line the word belongs to
    tex: str | None = None  # with sub/superscripts as ``x^{2}``/``x_{i}``, when it has any
    # font class of the first character: "b" bold, "i" italic, "m" math font, "s" TeX symbol
    # font (CMSY: letters are calligraphic), "x" TeX extension font (CMEX: codes are glyphs),
    # "c" small capitals; and "u": the character is set on its side (turned 60-120 degrees),
    # then "d" when the word runs down the displayed page, "a" up it (none: one character)
    style: str = ""
    # per character (text, x0, y0, x1, y1, size, style, baseline y), points; only for words
    # that may be math (a math font, characters outside ASCII, or mixed sizes): formulas
    # read geometry
    glyphs: tuple[tuple[str, float, float, float, float, float, str, float], ...] = ()
    base: float = 0.0  # baseline y of the first character, points (0: not measured)


@dataclass(frozen=True)
class TextLayer:
    """A PDF page's text layer (see :mod:`workbench.documents.textlayer`): words in points, the page
    size in points, and what the engine needs to judge whether to trust it. Picklable."""

    width: float  # page size in points, as displayed
    height: float
    words: tuple[TextWord, ...] = ()
    chars: int = 0  # characters drawn (generated spaces and line breaks excluded)
    unmapped: int = 0  # characters without a Unicode mapping (garbled layer)
    invisible: int = 0  # characters drawn invisibly (render mode 3: an OCR layer over a scan)
    images: tuple[tuple[float, float, float, float], ...] = ()  # image objects, points
    rules: tuple[tuple[float, float, float, float], ...] = ()  # thin horizontal paths (fractions)
    # ruling lines (x0, top, x1, bottom), points, horizontal or vertical: ruled tables' grids
    edges: tuple[tuple[float, float, float, float], ...] = ()
    outline: tuple[tuple[int, str], ...] = ()  # the PDF's bookmarks on this page: (depth, title)

    def scale(self, width_px: int, height_px: int) -> tuple[float, float]:
        """Factors from points to the pixels of an image of the page ``width_px`` wide."""
        return width_px / max(self.width, 1e-6), height_px / max(self.height, 1e-6)


class DocumentInfo(BaseModel):
    name: str
    sha256: str
    kind: str  # "pdf", "png", "jpeg", "tiff", "webp", "bmp"
    pages: int  # pages in the file (not only those selected)


class RunStatus(StrEnum):
    RUNNING = "running"
    DONE = "done"
    PARTIAL = "partial"  # some pages failed
    CANCELLED = "cancelled"
    FAILED = "failed"


class RunInfo(BaseModel):
    """The manifest of one processing of one or more documents."""

    id: str
    name: str
    created: datetime = Field(default_factory=lambda: datetime.now(UTC))
    engine: str
    model: str
    profile: str | None = None
    settings: dict[str, str | int | float | bool | None] = Field(default_factory=dict)
    versions: dict[str, str] = Field(default_factory=dict)
    documents: list[DocumentInfo] = Field(default_factory=list)
    status: RunStatus = RunStatus.RUNNING
