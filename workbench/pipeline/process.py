"""Pages → engine → parser → assembled :class:`~workbench.schema.PageResult`.

The one path from page images to results, shared by the app and the CLI:

1. each page is sized for the model (:func:`model_input`, the spec's :class:`PageSizing`);
   the sized image is the page image of the result (``page_px`` refers to it);
2. pages go to the engine in chunks (an engine batches a chunk: vLLM in one call, a server
   with many requests in flight), and results are yielded *as each page finishes*;
3. VLM output is parsed by the spec's parser (looked up in the registry); engines that
   detect layout themselves return regions directly;
4. the page Markdown is assembled by :mod:`workbench.markdown.assemble`;
5. a model that reports the page is rotated (olmOCR) gets the page again, turned upright.

Status: ``error`` when the engine failed, ``looped`` when every attempt ended in a
repetition loop, ``truncated`` when cut off by ``max_tokens`` (or the parser saw cut-off
structure), else ``ok``. Nothing here touches disk or Streamlit: callers store and show.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from PIL import Image

from workbench.engines.base import Engine, EngineOutput, PageRequest
from workbench.markdown.assemble import assemble_page
from workbench.models.registry import ModelSpec, PageSizing
from workbench.parsers import ParseContext, get_parser
from workbench.schema import PageImage, PageResult, PageStatus

DEFAULT_BATCH = 32  # pages per engine call for engines that do not say

#: Called after each page with (pages done, pages total, the result).
OnPage = Callable[[int, int, PageResult], None]


@dataclass(frozen=True)
class Processed:
    result: PageResult
    image: Image.Image  # the image the engine saw (page_px)


def render_dpi(spec: ModelSpec, default: float) -> float:
    return float(spec.sizing.dpi or default)


def model_input(image: Image.Image, sizing: PageSizing) -> Image.Image:
    """Size a page image by the spec's rule (see :class:`~workbench.models.registry.PageSizing`)."""
    w, h = image.size
    f = 1.0
    if sizing.min_short_edge and min(w, h) < sizing.min_short_edge:
        f = sizing.min_short_edge / min(w, h)
    if sizing.longest_edge and max(w, h) * f > sizing.longest_edge:
        f = sizing.longest_edge / max(w, h)
    if sizing.max_pixels and w * h * f * f > sizing.max_pixels:
        f = math.sqrt(sizing.max_pixels / (w * h))
    nw, nh = max(1, round(w * f)), max(1, round(h * f))
    if sizing.grid:
        nw = max(sizing.grid, nw // sizing.grid * sizing.grid)
        nh = max(sizing.grid, nh // sizing.grid * sizing.grid)
    if (nw, nh) == (w, h):
        return image
    return image.resize((nw, nh), Image.Resampling.LANCZOS)


def page_key(page: PageImage) -> str:
    return f"{page.document}#{page.index}"


def build_request(spec: ModelSpec, key: str, image: Image.Image) -> PageRequest:
    return PageRequest(
        key=key,
        image=image,
        prompt=spec.prompt,
        sampling=spec.sampling,
        retry_sampling=spec.retry_sampling,
        system=spec.system,
        chat_template_kwargs=dict(spec.chat_template_kwargs),
    )


def to_result(
    spec: ModelSpec,
    output: EngineOutput,
    *,
    document: str,
    page: int,
    size: tuple[int, int],
    engine: str,
    model: str,
    scale_note: str | None = None,
) -> PageResult:
    """Parse and assemble one engine output into a PageResult for a page image of ``size``."""
    width, height = size
    base = PageResult(
        document=document,
        page=page,
        width=width,
        height=height,
        engine=engine,
        model=model,
        raw=output.raw,
        seconds=round(output.seconds, 3),
        tokens=output.tokens,
        attempts=list(output.attempts),
        notes=[scale_note] if scale_note else [],
    )
    if output.error is not None:
        return base.model_copy(update={"status": PageStatus.ERROR, "error": output.error})
    truncated = output.finish_reason == "length"
    rotation = 0
    notes = list(base.notes)
    if output.regions is not None:
        regions = output.regions
    else:
        parsed = get_parser(spec.parser)(output.raw, ParseContext(width, height))
        regions, rotation = parsed.regions, parsed.rotation
        truncated = truncated or parsed.truncated
        notes.extend(parsed.notes)
    status = PageStatus.OK
    answered = [a for a in output.attempts if a.error is None]  # a failed retry proves nothing
    if answered and all(a.repeated for a in answered):
        status = PageStatus.LOOPED
        notes.append(f"repetition loop in all {len(answered)} answered attempts")
    elif truncated:
        status = PageStatus.TRUNCATED
        notes.append("output cut off by max_tokens")
    said = any("no layout boxes" in n for n in notes)  # the parser may have said so already
    if not spec.boxes and not said and not any(r.bbox for r in regions):
        notes.append("this model gives no layout boxes: Markdown only, nothing to draw")
    return base.model_copy(
        update={
            "regions": regions,
            "markdown": assemble_page(regions, page),
            "status": status,
            "rotation": rotation,
            "notes": list(dict.fromkeys(notes)),
        }
    )


def _result(
    spec: ModelSpec, engine: Engine, page: PageImage, image: Image.Image, output: EngineOutput
) -> PageResult:
    return to_result(
        spec,
        output,
        document=page.document,
        page=page.index,
        size=image.size,
        engine=engine.name,
        model=engine.model,
        scale_note=page.scale_note,
    )


def _run_chunk(
    engine: Engine, spec: ModelSpec, chunk: Sequence[tuple[PageImage, Image.Image]]
) -> Iterator[Processed]:
    by_key = {page_key(p): (p, img) for p, img in chunk}
    requests = [build_request(spec, key, img) for key, (_, img) in by_key.items()]
    rotated: list[tuple[PageImage, Image.Image, int]] = []
    for output in engine.run(requests):
        page, image = by_key[output.key]
        result = _result(spec, engine, page, image, output)
        if result.rotation and result.status is not PageStatus.ERROR:
            # The model says the page is turned: send it again upright, turned counter-clockwise
            # by its correction as olmOCR itself does (PIL ROTATE_n).
            turn = result.rotation
            rotated.append((page, image.rotate(turn, expand=True), turn))
            continue
        yield Processed(result, image)
    for page, image, turn in rotated:
        request = build_request(spec, page_key(page), image)
        for output in engine.run([request]):
            result = _result(spec, engine, page, image, output)
            note = f"page turned {turn}° counter-clockwise as the model asked"
            update = {"notes": [*result.notes, note], "rotation": turn}
            yield Processed(result.model_copy(update=update), image)


def process(
    engine: Engine,
    spec: ModelSpec,
    pages: Iterable[PageImage],
    total: int | None = None,
    chunk_size: int | None = None,
    on_page: OnPage | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Iterator[Processed]:
    """Run ``pages`` through ``engine``; yields each page's result as soon as it is done.

    Pages are pulled from ``pages`` one chunk at a time, so a lazily rendered thousand-page
    document never sits in memory whole. The chunk is the engine's ``batch_size`` unless
    given: the in-process vLLM engine takes a whole (≤256-page) document in one call, a server
    engine twice its pages in flight. ``cancelled()`` is checked between pages; pages
    already yielded stay done.
    """
    done = 0
    size = chunk_size or int(getattr(engine, "batch_size", DEFAULT_BATCH))
    chunk: list[tuple[PageImage, Image.Image]] = []

    def flush() -> Iterator[Processed]:
        nonlocal done
        for item in _run_chunk(engine, spec, chunk):
            done += 1
            if on_page is not None:
                on_page(done, total or done, item.result)
            yield item
            if cancelled is not None and cancelled():
                return
        chunk.clear()

    for page in pages:
        if cancelled is not None and cancelled():
            return
        chunk.append((page, model_input(page.image, spec.sizing)))
        if len(chunk) >= size:
            yield from flush()
    if chunk:
        yield from flush()
