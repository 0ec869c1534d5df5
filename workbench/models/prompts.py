"""The prompts, verbatim: built the same way the upstream code builds them.

* Chandra 1/2: chandra-ocr 0.1.8 / 0.2.0 ``prompts.OCR_LAYOUT_PROMPT``
  (github.com/datalab-to/chandra);
* dots.ocr: ``dict_promptmode_to_prompt["prompt_layout_all_en"]`` (rednote-hilab/dots.ocr
  ``dots_ocr/utils/prompts.py``); the client prefixes :data:`DOTS_IMAGE_PREFIX`
  (``dots_ocr/model/inference.py``: "if no image token here, vllm v1 will add '\\n'");
* olmOCR 2: olmocr 0.4.27 ``prompts.build_no_anchoring_v4_yaml_prompt()``;
* DeepSeek-OCR: ``DeepSeek-OCR-vllm/config.py`` PROMPT (grounding mode).

tests/models/test_registry.py pins the sha256 of the upstream strings.
"""

from __future__ import annotations

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


def chandra_prompt(version: int) -> str:
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

DOTS_IMAGE_PREFIX = "<|img|><|imgpad|><|endofimg|>"
LIGHTON_GROUNDING_PROMPT = "grounding"  # LightOnOCR grounding.GROUNDING_PROMPT
