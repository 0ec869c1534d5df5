"""Pages → engine → parser → assembled :class:`~workbench.schema.PageResult`.

The one path from page images to results, shared by the app and the CLI:

1. each page is prepared for the model (:mod:`workbench.pipeline.prepare`): at the size of the
   spec's :class:`PageSizing` and encoded once as PNG. Pages from
   :func:`~workbench.pipeline.feed.prepare_pages` come prepared (rendered at that size in
   worker processes, ahead of the engine); a plain :class:`PageImage` is sized and encoded
   here. The prepared image is the page image of the result (``page_px`` refers to it) and
   its PNG is what the engine sends (:attr:`Processed.png`: write it as it is);
2. pages go to the engine as they are prepared. A streaming engine
   (:func:`~workbench.engines.base.streams`: a server, a pool of CPU worker processes) gets
   one ``run`` over all pages and pulls each as it frees one of its ``concurrency`` slots;
   any other engine gets chunks (vLLM in-process batches a chunk in one call) while the next
   pages are prepared. Results are yielded *as each page finishes*;
3. VLM output is parsed by the spec's parser (looked up in the registry); engines that
   detect layout themselves return regions directly;
4. the page Markdown is assembled by :mod:`workbench.markdown.assemble`;
5. a model that reports the page is rotated (olmOCR) gets the page again, turned upright.

A page that could not be rendered (an :class:`~workbench.pipeline.prepare.UnreadablePage`:
a bad TIFF frame, a PDF page PDFium cannot load) is never sent: it becomes an ``error``
result with its reason, yielded in turn with the others, and the pages after it go on.

Status: ``error`` when the engine failed (or the page could not be read), ``looped`` when
every attempt ended in a repetition loop, ``truncated`` when cut off by ``max_tokens`` (or
the parser saw cut-off structure), else ``ok``. Nothing here touches disk or Streamlit:
callers store and show.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from PIL import Image

from workbench.documents import Document
from workbench.engines.base import Engine, EngineOutput, PageRequest, streams
from workbench.engines.png import encode_png
from workbench.markdown.assemble import assemble_page
from workbench.models.registry import ModelSpec
from workbench.parsers import NO_BOXES_NOTE, ParseContext, get_parser
from workbench.pipeline.feed import prepare_pages
from workbench.pipeline.prepare import UnreadablePage, prepare_page
from workbench.schema import PageImage, PageResult, PageStatus, TextLayer

__all__ = ["Processed", "process", "process_document", "to_result"]

DEFAULT_BATCH = 32  # pages per engine call for engines that do not say

#: Called after each page with (pages done, pages total, the result).
OnPage = Callable[[int, int, PageResult], None]


@dataclass(frozen=True)
class Processed:
    result: PageResult
    image: Image.Image  # the image the engine saw (page_px); opened lazily from ``png``
    png: bytes | None = None  # that image as the engine was sent it: write these bytes as-is
    unreadable: bool = False  # the page could not be rendered: ``image`` is a placeholder

    @property
    def page_image(self) -> Image.Image | None:
        """The image to write with the result; None for a page that could not be read."""
        return None if self.unreadable else self.image


def page_key(page: PageImage) -> str:
    return f"{page.document}#{page.index}"


def build_request(
    spec: ModelSpec,
    key: str,
    image: Image.Image,
    text_layer: TextLayer | None = None,
    png: bytes | None = None,
) -> PageRequest:
    return PageRequest(
        key=key,
        image=image,
        text_layer=text_layer,
        png=png,
        prompt=spec.prompt,
        sampling=spec.sampling,
        retry_sampling=spec.retry_sampling,
        system=spec.system,
        chat_template_kwargs=dict(spec.chat_template_kwargs),
        prompt_first=spec.prompt_first,
        retry_on_length=spec.retry_on_length,
    )


def _request(spec: ModelSpec, page: PageImage) -> PageRequest:
    return build_request(spec, page_key(page), page.image, page.text_layer, page.png)


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
    notes = [*base.notes, *output.notes]
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
    elif truncated:  # by max_tokens only when the engine says so; else the parser saw it
        status = PageStatus.TRUNCATED
        cut = output.finish_reason == "length"
        notes.append("output cut off by max_tokens" if cut else "the output ends mid-block")
    if not spec.boxes and not any(r.bbox for r in regions):
        notes.append(NO_BOXES_NOTE)  # the parser's own, if it said so: dropped as a repeat below
    return base.model_copy(
        update={
            "regions": regions,
            "markdown": assemble_page(regions, page),
            "status": status,
            "rotation": rotation,
            "notes": list(dict.fromkeys(notes)),
        }
    )


def _result(spec: ModelSpec, engine: Engine, page: PageImage, output: EngineOutput) -> PageResult:
    return to_result(
        spec,
        output,
        document=page.document,
        page=page.index,
        size=page.size,
        engine=engine.name,
        model=engine.model,
        scale_note=page.scale_note,
    )


def _unreadable(engine: Engine, page: UnreadablePage) -> Processed:
    result = PageResult(
        document=page.document,
        page=page.index,
        width=0,
        height=0,
        engine=engine.name,
        model=engine.model,
        status=PageStatus.ERROR,
        error=page.reason,
    )
    return Processed(result, page.image, None, unreadable=True)


def _turned(page: PageImage, turn: int) -> PageImage:
    """The page turned counter-clockwise by ``turn`` as olmOCR itself does (PIL ROTATE_n);
    its text layer no longer fits the pixels."""
    image = page.image.rotate(turn, expand=True)
    return dataclasses.replace(page, image=image, png=encode_png(image), text_layer=None)


def _with_turn(result: PageResult, turn: int) -> PageResult:
    note = f"page turned {turn}° counter-clockwise as the model asked"
    return result.model_copy(update={"notes": [*result.notes, note], "rotation": turn})


def _wants_turn(result: PageResult) -> bool:
    return bool(result.rotation) and result.status is not PageStatus.ERROR


def _run(
    engine: Engine, spec: ModelSpec, pages: Iterable[PageImage], lazy: bool
) -> Iterator[Processed]:
    """One ``engine.run`` over ``pages``: a list (a chunk), or pulled lazily by a streaming
    engine as it frees a slot. Pages the model wants turned go again once it is done."""
    in_flight: dict[str, PageImage] = {}

    def requests() -> Iterator[PageRequest]:
        for page in pages:
            in_flight[page_key(page)] = page
            yield _request(spec, page)

    rotated: list[tuple[PageImage, int]] = []
    outputs = engine.run(requests()) if lazy and streams(engine) else engine.run(list(requests()))
    for output in outputs:
        page = in_flight.pop(output.key)
        result = _result(spec, engine, page, output)
        if _wants_turn(result):
            rotated.append((_turned(page, result.rotation), result.rotation))
            continue
        yield Processed(result, page.image, page.png)
    for page, turn in rotated:
        for output in engine.run([_request(spec, page)]):
            result = _with_turn(_result(spec, engine, page, output), turn)
            yield Processed(result, page.image, page.png)


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

    Pages are pulled from ``pages`` as the engine can take them, so a lazily rendered
    thousand-page document never sits in memory whole. A streaming engine pulls pages as it
    frees a slot unless ``chunk_size`` is given; other engines get chunks of their
    ``batch_size`` (the in-process vLLM engine takes a whole ≤256-page document in
    one call). ``cancelled()`` is checked between pages; pages already yielded stay done.
    """
    done = 0
    unreadable: deque[UnreadablePage] = deque()  # set aside as they are pulled, yielded in turn

    def readable() -> Iterator[PageImage]:
        for page in pages:
            if isinstance(page, UnreadablePage):
                unreadable.append(page)
                continue
            yield prepare_page(page, spec.sizing)

    source = readable()
    items: Iterator[Processed]
    if chunk_size is None and streams(engine):
        items = _run(engine, spec, source, lazy=True)
    else:
        items = _chunked(
            engine,
            spec,
            source,
            chunk_size or int(getattr(engine, "batch_size", DEFAULT_BATCH)),
            cancelled,
        )

    def in_turn() -> Iterator[Processed]:
        for item in items:
            while unreadable:
                yield _unreadable(engine, unreadable.popleft())
            yield item
        while unreadable:
            yield _unreadable(engine, unreadable.popleft())

    try:
        if cancelled is not None and cancelled():
            return
        for item in in_turn():
            done += 1
            if on_page is not None:
                on_page(done, total or done, item.result)
            yield item
            if cancelled is not None and cancelled():
                return
    finally:
        close = getattr(items, "close", None)
        if close is not None:
            close()


def _chunked(
    engine: Engine,
    spec: ModelSpec,
    pages: Iterator[PageImage],
    size: int,
    cancelled: Callable[[], bool] | None,
) -> Iterator[Processed]:
    chunk: list[PageImage] = []
    for page in pages:
        if cancelled is not None and cancelled():
            return
        chunk.append(page)
        if len(chunk) >= size:
            yield from _run(engine, spec, chunk, lazy=False)
            chunk = []
    if chunk:
        yield from _run(engine, spec, chunk, lazy=False)


def prefetch(engine: Engine) -> int | None:
    """Pages to prepare ahead for ``engine``: a whole chunk for a chunked engine (the next
    batch is ready when the GPU finishes one); the default (a few per worker) for a streaming
    engine, whose slots in flight are the buffer."""
    return None if streams(engine) else int(getattr(engine, "batch_size", DEFAULT_BATCH))


def process_document(
    engine: Engine,
    spec: ModelSpec,
    doc: Document,
    indices: Sequence[int] | None = None,
    dpi: float | None = None,
    *,
    on_page: OnPage | None = None,
    cancelled: Callable[[], bool] | None = None,
    workers: int | None = None,
) -> Iterator[Processed]:
    """:func:`process` over pages of ``doc`` prepared in worker processes ahead of the engine
    (:func:`~workbench.pipeline.feed.prepare_pages`), as far ahead as :func:`prefetch`."""
    pages = list(range(1, doc.page_count + 1) if indices is None else indices)
    prepared = prepare_pages(
        doc, pages, spec, dpi, ahead=prefetch(engine), workers=workers, keep_going=True
    )
    return process(engine, spec, prepared, total=len(pages), on_page=on_page, cancelled=cancelled)
