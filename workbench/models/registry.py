"""Model specs: what each supported model needs, kept apart from how an engine runs it.

A :class:`ModelSpec` holds the prompt, the page sizing rule, sampling (and the hotter
sampling used to retry after a repetition loop), ``max_tokens``, the recommended vLLM engine
arguments, and the name of the parser for its output (see :mod:`workbench.parsers.base`).

Lookup: :func:`get_spec` by exact id or alias; :func:`match_served_model` for the name a
server reports in ``/v1/models`` (served names are often a bare or renamed repo id).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from workbench.schema import Sampling


@dataclass(frozen=True)
class PageSizing:
    """How a page image is sized before it is sent to the model.

    PDFs are rendered at ``dpi`` (or the workbench default). Then, in order: upscale so the
    short edge is at least ``min_short_edge``; shrink so the long edge is at most
    ``longest_edge``; shrink so width*height is at most ``max_pixels``; snap both sides down to
    a multiple of ``grid``. Images are never upscaled unless ``min_short_edge`` asks for it.
    """

    dpi: int | None = None
    longest_edge: int | None = None
    min_short_edge: int | None = None
    max_pixels: int | None = None
    grid: int | None = None
    min_pixels: int | None = None  # upscale so width*height is at least this (optional)


@dataclass(frozen=True)
class ModelSpec:
    id: str  # Hugging Face repo id, or "cpu" for the embedded engine
    display: str
    family: str
    parser: str  # parser registry key; "native" = the engine returns regions itself
    prompt: str | None = None  # None: image only
    system: str | None = None
    sizing: PageSizing = field(default_factory=PageSizing)
    sampling: Sampling = field(default_factory=Sampling)
    retry_sampling: tuple[Sampling, ...] = ()
    boxes: bool = True  # whether the model gives layout boxes at all
    aliases: tuple[str, ...] = ()
    vllm_args: dict[str, Any] = field(default_factory=dict)  # recommended engine args
    chat_template_kwargs: dict[str, Any] = field(default_factory=dict)
    notes: str = ""
    sources: tuple[str, ...] = ()  # where the prompt, sizing and sampling were checked


CPU_SPEC = ModelSpec(
    id="cpu",
    display="Embedded CPU engine (Tesseract + RapidOCR + CDLA layout)",
    family="cpu",
    parser="native",
    sizing=PageSizing(dpi=200, max_pixels=12_000_000),
    notes="Runs offline on the CPU; its weights ship inside its wheels.",
)

_SPECS: dict[str, ModelSpec] = {}


def register_spec(spec: ModelSpec) -> ModelSpec:
    for key in (spec.id, *spec.aliases):
        _SPECS[key.lower()] = spec
    return spec


register_spec(CPU_SPEC)


def all_specs() -> list[ModelSpec]:
    seen: dict[str, ModelSpec] = {}
    for spec in _SPECS.values():
        seen.setdefault(spec.id, spec)
    return list(seen.values())


def get_spec(model_id: str) -> ModelSpec:
    try:
        return _SPECS[model_id.lower()]
    except KeyError:
        known = ", ".join(s.id for s in all_specs())
        raise KeyError(f"unknown model {model_id!r}; known: {known}") from None


def match_served_model(served: str) -> ModelSpec | None:
    """Best spec for a name from ``/v1/models``: exact id or alias, then the repo basename."""
    key = served.lower().strip()
    if key in _SPECS:
        return _SPECS[key]
    base = key.rsplit("/", 1)[-1]
    for spec in all_specs():
        names = [spec.id.lower(), *(a.lower() for a in spec.aliases)]
        if base in {n.rsplit("/", 1)[-1] for n in names}:
            return spec
    return None


# --------------------------------------------------------------------------------------------
# The models. Every value below was read in the model's own code, README or card; the sources
# field says where. Prompts are verbatim (built the same way the upstream code builds them).

_CHANDRA_TAGS = ["math", "br", "i", "b", "u", "del", "sup", "sub", "table", "tr", "td", "p",
                 "th", "div", "pre", "h1", "h2", "h3", "h4", "h5", "ul", "ol", "li", "input",
                 "a", "span", "img", "hr", "tbody", "small", "caption", "strong", "thead", "big",
                 "code"]  # fmt: skip
_CHANDRA_ATTRS = ["class", "colspan", "rowspan", "display", "checked", "type", "border", "value",
                  "style", "href", "alt", "align"]  # fmt: skip
_CHANDRA_LABELS_1 = ["Caption", "Footnote", "Equation-Block", "List-Group", "Page-Header",
                     "Page-Footer", "Image", "Section-Header", "Table", "Text", "Complex-Block",
                     "Code-Block", "Form", "Table-Of-Contents", "Figure"]  # fmt: skip
_CHANDRA_LABELS_2 = [*_CHANDRA_LABELS_1, "Chemical-Block", "Diagram", "Bibliography", "Blank-Page"]


def _chandra_prompt(version: int) -> str:
    """chandra-ocr 0.1.8 (v1) / 0.2.0 (v2) ``OCR_LAYOUT_PROMPT``, character for character."""
    tags = _CHANDRA_TAGS + (["chem"] if version == 2 else [])
    attrs = _CHANDRA_ATTRS + (["data-bbox", "data-label"] if version == 2 else [])
    images = "* Images: Include a description of any images in the alt attribute of an <img> tag. Do not fill out the src property."  # noqa: E501
    extra = ""
    if version == 2:
        images += " Describe in detail inside the div tag. Also convert charts to high fidelity data, and convert diagrams to mermaid."  # noqa: E501
        extra = (
            "* Chemistry: Use <chem>...</chem> tags for chemical formulas with reactive SMILES.\n"
            "* Lists: Preserve indents and proper list markers.\n"
        )
    ending = (
        f"Only use these tags {tags}, and these attributes {attrs}.\n\n"
        "Guidelines:\n"
        "* Inline math: Surround math with <math>...</math> tags. Math expressions should be rendered in KaTeX-compatible LaTeX. Use display for block math.\n"  # noqa: E501
        "* Tables: Use colspan and rowspan attributes to match table structure.\n"
        "* Formatting: Maintain consistent formatting with the image, including spacing, indentation, subscripts/superscripts, and special characters.\n"  # noqa: E501
        f"{images}\n"
        "* Forms: Mark checkboxes and radio buttons properly.\n"
        "* Text: join lines together properly into paragraphs using <p>...</p> tags.  Use <br> tags for line breaks within paragraphs, but only when absolutely necessary to maintain meaning.\n"  # noqa: E501
        f"{extra}"
        "* Use the simplest possible HTML structure that accurately represents the content of the block.\n"  # noqa: E501
        "* Make sure the text is accurate and easy for a human to read and interpret.  Reading order should be correct and natural."  # noqa: E501
    )
    box = "x0 y0 x1 y1" if version == 2 else "[x0, y0, x1, y1]"
    scale = 1000 if version == 2 else 1024
    labels = "\n".join(
        f"- {name}" for name in (_CHANDRA_LABELS_2 if version == 2 else _CHANDRA_LABELS_1)
    )
    return (
        "OCR this image to HTML, arranged as layout blocks.  "
        "Each layout block should be a div with "
        f"the data-bbox attribute representing the bounding box of the block in {box} format.  "
        f"Bboxes are normalized 0-{scale}. The data-label attribute is the label for the block.\n\n"
        f"Use the following labels:\n{labels}\n\n{ending}"
    )


DOTS_PROMPT_LAYOUT_ALL_EN = """Please output the layout information from the PDF image, including each layout element's bbox, its category, and the corresponding text content within the bbox.

1. Bbox format: [x1, y1, x2, y2]

2. Layout Categories: The possible categories are ['Caption', 'Footnote', 'Formula', 'List-item', 'Page-footer', 'Page-header', 'Picture', 'Section-header', 'Table', 'Text', 'Title'].

3. Text Extraction & Formatting Rules:
    - Picture: For the 'Picture' category, the text field should be omitted.
    - Formula: Format its text as LaTeX.
    - Table: Format its text as HTML.
    - All Others (Text, Title, etc.): Format their text as Markdown.

4. Constraints:
    - The output text must be the original text from the image, with no translation.
    - All layout elements must be sorted according to human reading order.

5. Final Output: The entire output must be a single JSON object.
"""  # noqa: E501

OLMOCR_PROMPT = (  # olmocr 0.4.27 prompts.build_no_anchoring_v4_yaml_prompt()
    "Attached is one page of a document that you must process. "
    "Just return the plain text representation of this document as if you were reading it naturally. Convert equations to LateX and tables to HTML.\n"  # noqa: E501
    "If there are any figures or charts, label them with the following markdown syntax ![Alt text describing the contents of the figure](page_startx_starty_width_height.png)\n"  # noqa: E501
    "Return your output as markdown, with a front matter section on top specifying values for the primary_language, is_rotation_valid, rotation_correction, is_table, and is_diagram parameters."  # noqa: E501
)

DEEPSEEK_PROMPT = "<image>\n<|grounding|>Convert the document to markdown."

_CHANDRA_SRC = ("https://github.com/datalab-to/chandra", "https://pypi.org/project/chandra-ocr/")
_LIGHTON_SRC = (
    "https://github.com/lightonai/LightOnOCR (README, lightonocr/models.py, client.py)",
)
# DeepSeek's loop guard: vLLM's n-gram logits processor, <td>/</td> token ids whitelisted.
_NGRAM_PROCESSOR = "vllm.model_executor.models.deepseek_ocr:NGramPerReqLogitsProcessor"
_NGRAM = {"ngram_size": 30, "window_size": 90, "whitelist_token_ids": [128821, 128822]}
_NO_CACHE = {"mm_processor_cache_gb": 0, "enable_prefix_caching": False}


def _ladder(
    temps: list[float], top_p: float, max_tokens: int, **extra: Any
) -> tuple[Sampling, ...]:
    return tuple(
        Sampling(temperature=t, top_p=top_p, max_tokens=max_tokens, **extra) for t in temps
    )


register_spec(ModelSpec(
    id="datalab-to/chandra-ocr-2", display="Chandra OCR 2", family="chandra", parser="chandra2",
    prompt=_chandra_prompt(2),
    sizing=PageSizing(dpi=192, min_short_edge=1024, max_pixels=3072 * 2048, grid=28,
                      min_pixels=1792 * 28),
    sampling=Sampling(temperature=0.0, top_p=0.1, max_tokens=12384),
    # chandra 0.2.0: up to 6 retries, temperature +0.2 each (max 0.8), top_p 0.95
    retry_sampling=_ladder([0.2, 0.4, 0.6, 0.8, 0.8, 0.8], 0.95, 12384),
    aliases=("chandra-ocr-2", "chandra2", "chandra"),
    vllm_args={"max_model_len": 18000, "gpu_memory_utilization": 0.85,
               "enable_prefix_caching": True, "dtype": "bfloat16",
               "mm_processor_kwargs": {"min_pixels": 3136, "max_pixels": 6291456}},
    notes="Served as 'chandra' by chandra_vllm. PDF pages at max(192 DPI, short side >= 1024 px); "
          "images upscaled to a 1536 px short side. The prompt alone is about 2,300 tokens.",
    sources=_CHANDRA_SRC,
))  # fmt: skip

register_spec(ModelSpec(
    id="datalab-to/chandra", display="Chandra 1", family="chandra", parser="chandra1",
    prompt=_chandra_prompt(1),
    sizing=PageSizing(dpi=192, min_short_edge=1024, max_pixels=3072 * 2048),
    sampling=Sampling(temperature=0.0, top_p=0.1, max_tokens=8192),
    retry_sampling=_ladder([0.3] * 6, 0.95, 8192),  # chandra 0.1.8: 6 retries at 0.3 / 0.95
    aliases=("chandra1", "chandra-1"),
    vllm_args={"max_model_len": 32768, "max_num_batched_tokens": 65536, "max_num_seqs": 32,
               "gpu_memory_utilization": 0.9, "dtype": "bfloat16"},
    sources=_CHANDRA_SRC,
))  # fmt: skip

_LIGHTON_PLAIN = Sampling(temperature=0.2, top_p=0.9, max_tokens=4096)
for _id, _display in (("lightonai/LightOnOCR-1B-1025", "LightOnOCR-1B-1025"),
                      ("lightonai/LightOnOCR-2-1B", "LightOnOCR-2-1B")):  # fmt: skip
    register_spec(ModelSpec(
        id=_id, display=_display, family="lighton", parser="lighton_plain", prompt=None,
        sizing=PageSizing(dpi=200, longest_edge=1540),
        sampling=_LIGHTON_PLAIN,
        retry_sampling=_ladder([0.4, 0.6], 0.9, 4096),  # LightOn has no retry; ours, hotter
        boxes=False,
        aliases=(_display, _display.lower()),
        vllm_args={"limit_mm_per_prompt": {"image": 1}, **_NO_CACHE},
        notes="Plain Markdown only (HTML tables, LaTeX): no layout boxes. Temperature 0.2 / "
              "top_p 0.9 as the card and client; the README suggests 0.1, never greedy.",
        sources=_LIGHTON_SRC,
    ))  # fmt: skip

for _size, _edge, _len in (("1B", 1540, 16384), ("0.8B", 2048, 18000), ("4B", 2048, 18000)):
    _name = f"LightOnOCR-3-{_size}"
    register_spec(ModelSpec(
        id=f"lightonai/{_name}", display=_name, family="lighton", parser="lighton_grounding",
        prompt="grounding",  # plain mode is the image alone (parser "lighton_plain")
        sizing=PageSizing(dpi=200, longest_edge=_edge),
        sampling=Sampling(temperature=0.2, top_p=1.0, max_tokens=12288),
        retry_sampling=_ladder([0.4, 0.6], 1.0, 12288),
        aliases=(_name, _name.lower()),
        vllm_args={"limit_mm_per_prompt": {"image": 1}, "max_model_len": _len, **_NO_CACHE,
                   **({"default_chat_template_kwargs": {"enable_thinking": False}}
                      if _size != "1B" else {})},
        chat_template_kwargs={"enable_thinking": False},
        notes="Grounding: ![label](x1,y1,x2,y2) before each block, 0-1000; 'text+' continues "
              "the previous block. Never upscales pages.",
        sources=_LIGHTON_SRC,
    ))  # fmt: skip

_OLMOCR_TEMPS = [0.1, 0.1, 0.2, 0.3, 0.5, 0.8, 0.9, 1.0]  # olmocr pipeline TEMPERATURE_BY_ATTEMPT
for _id, _display in (("allenai/olmOCR-2-7B-1025", "olmOCR 2 (7B)"),
                      ("allenai/olmOCR-2-7B-1025-FP8", "olmOCR 2 (7B, FP8)")):  # fmt: skip
    register_spec(ModelSpec(
        id=_id, display=_display, family="olmocr", parser="olmocr", prompt=OLMOCR_PROMPT,
        sizing=PageSizing(longest_edge=1288),
        sampling=Sampling(temperature=_OLMOCR_TEMPS[0], top_p=1.0, max_tokens=8000),
        retry_sampling=_ladder(_OLMOCR_TEMPS[1:], 1.0, 8000),
        boxes=False,
        aliases=(_id.rsplit("/", 1)[-1],) + (("olmocr",) if not _id.endswith("FP8") else ()),
        vllm_args={"max_model_len": 16384, "limit_mm_per_prompt": {"video": 0}},
        notes="Served as 'olmocr' by the olmOCR pipeline. Pages rendered at 1288 px longest "
              "side. No boxes; YAML front matter gives rotation_correction. Invalid if "
              "finish_reason != 'stop' or total tokens > 16384.",
        sources=("https://github.com/allenai/olmocr (olmocr 0.4.27 pipeline.py, prompts.py)",),
    ))  # fmt: skip

register_spec(ModelSpec(
    id="rednote-hilab/dots.ocr", display="dots.ocr", family="dots", parser="dots_ocr",
    prompt=DOTS_PROMPT_LAYOUT_ALL_EN,
    sizing=PageSizing(dpi=200, max_pixels=11_289_600, min_pixels=3136, grid=28),
    sampling=Sampling(temperature=0.1, top_p=1.0, max_tokens=16384),
    retry_sampling=_ladder([0.3, 0.5], 1.0, 16384),  # dots.ocr has no retry; ours, hotter
    aliases=("dots.ocr", "dotsocr", "dots_ocr"),
    vllm_args={"trust_remote_code": True, "async_scheduling": True,
               "gpu_memory_utilization": 0.95},
    notes="Boxes in pixels of the smart-resized input (28 px grid). dots.ocr's own client "
          "prefixes the text with '<|img|><|imgpad|><|endofimg|>' so vLLM v1 adds no newline.",
    sources=("https://github.com/rednote-hilab/dots.ocr (README, dots_ocr/utils, inference.py)",),
))  # fmt: skip

register_spec(ModelSpec(
    id="deepseek-ai/DeepSeek-OCR", display="DeepSeek-OCR", family="deepseek",
    parser="deepseek_ocr", prompt=DEEPSEEK_PROMPT,
    sizing=PageSizing(dpi=200),  # the processor tiles: 1024 base view + 640 px crops (Gundam)
    sampling=Sampling(temperature=0.0, max_tokens=8192, extra={
        "skip_special_tokens": False,  # keeps the <|ref|>/<|det|> markers
        "vllm_xargs": _NGRAM,
    }),
    retry_sampling=(Sampling(temperature=0.3, top_p=0.95, max_tokens=8192,
                             extra={"skip_special_tokens": False}),),
    aliases=("DeepSeek-OCR", "deepseek-ocr"),
    vllm_args={"max_model_len": 8192, **_NO_CACHE,
               "logits_processors": [_NGRAM_PROCESSOR]},
    notes="Boxes 0-999 in <|det|>; the n-gram processor (size 30, window 90, <td>/</td> "
          "whitelisted) is DeepSeek's fix for repetition loops (issue #250).",
    sources=("https://github.com/deepseek-ai/DeepSeek-OCR (DeepSeek-OCR-vllm/config.py, "
             "run_dpsk_ocr_image.py)",),
))  # fmt: skip
