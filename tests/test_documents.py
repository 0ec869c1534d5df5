"""documents: content sniffing, page ranges, pixel caps and clear errors on bad files."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
import pytest
from PIL import Image

from workbench.documents import open_document, parse_page_range, poppler_available, sniff_kind
from workbench.errors import DocumentError, PageRangeError
from workbench.settings import Settings

DATA = Path(__file__).parent / "data"


def make_pdf(pages: int = 3, size: tuple[float, float] = (612, 792)) -> bytes:
    pdf = pdfium.PdfDocument.new()
    for _ in range(pages):
        pdf.new_page(*size)
    buf = io.BytesIO()
    pdf.save(buf)
    return buf.getvalue()


def image_bytes(
    fmt: str, size: tuple[int, int] = (120, 80), mode: str = "RGB", **kw: object
) -> bytes:
    buf = io.BytesIO()
    Image.new(mode, size, "white").save(buf, fmt, **kw)
    return buf.getvalue()


@pytest.mark.parametrize(
    ("fmt", "kind"),
    [("PNG", "png"), ("JPEG", "jpeg"), ("TIFF", "tiff"), ("WEBP", "webp"), ("BMP", "bmp")],
)
def test_images_are_recognised_by_content_not_name(fmt: str, kind: str) -> None:
    data = image_bytes(fmt)
    assert sniff_kind("scan.pdf", data) == kind  # mislabelled on purpose
    doc = open_document("scan.pdf", data)
    assert doc.kind == kind
    page = doc.page(1)
    assert page.image.mode == "RGB" and page.size == (120, 80)


def test_pdf_pages_render_at_dpi_and_one_based() -> None:
    doc = open_document("a.pdf", make_pdf(3))
    assert doc.page_count == 3
    page = doc.page(3, dpi=100)
    assert page.index == 3 and page.size == (850, 1100) and page.dpi == 100
    with pytest.raises(PageRangeError):
        doc.page(4)
    with pytest.raises(PageRangeError):
        doc.page(0)


def test_multipage_tiff_gives_every_frame() -> None:
    buf = io.BytesIO()
    first = Image.new("L", (100, 50))
    first.save(buf, "TIFF", save_all=True, append_images=[Image.new("1", (60, 70))])
    doc = open_document("fax.tif", buf.getvalue())
    assert doc.page_count == 2
    assert [p.size for p in doc.pages()] == [(100, 50), (60, 70)]


def test_transparent_png_is_flattened_on_white() -> None:
    doc = open_document("t.png", image_bytes("PNG", mode="RGBA", size=(4, 4)))
    assert doc.page(1).image.getpixel((0, 0)) == (255, 255, 255)


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "empty"),
        (make_pdf(2)[:200], "damaged"),
        (b"just some text, not a scan\n", "not a PDF or image"),
        (b"PK\x03\x04" + b"\0" * 40, "ZIP"),
        (b"GIF89a" + b"\0" * 40, "GIF"),
        (image_bytes("PNG")[:60], "damaged"),
    ],
)
def test_bad_files_name_the_file_and_say_why(data: bytes, reason: str) -> None:
    with pytest.raises(DocumentError) as err:
        open_document("upload.pdf", data)
    assert str(err.value).startswith("upload.pdf: ")
    assert reason in str(err.value)


def test_encrypted_pdf_is_reported_as_encrypted() -> None:
    with pytest.raises(DocumentError, match="encrypted"):
        open_document("secret.pdf", (DATA / "bad" / "encrypted.pdf").read_bytes())


def test_decompression_bomb_is_refused_before_decoding() -> None:
    # 20000 x 20000 = 400 MP of white compresses to a few hundred KB of PNG.
    bomb = image_bytes("PNG", size=(20000, 20000), mode="1")
    assert len(bomb) < 2_000_000
    with pytest.raises(DocumentError, match="decompression bomb") as err:
        open_document("bomb.png", bomb)
    # The refusal says the limit and how to raise it (issue 24), with the value that would do.
    assert "claims 20000×20000 pixels (400 MP), more than the 200 MP limit" in str(err.value)
    assert "WORKBENCH_MAX_IMAGE_MP=401" in str(err.value)


def test_the_image_limit_can_be_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    picture = image_bytes("PNG", size=(1500, 1000), mode="L")
    monkeypatch.setenv("WORKBENCH_MAX_IMAGE_MP", "1")
    with pytest.raises(DocumentError, match="WORKBENCH_MAX_IMAGE_MP=2"):
        open_document("wide.png", picture)
    monkeypatch.setenv("WORKBENCH_MAX_IMAGE_MP", "2")
    assert open_document("wide.png", picture).page(1).size == (1500, 1000)


def test_giant_pdf_page_is_capped_with_a_note() -> None:
    settings = Settings(max_pixels=4_000_000)
    doc = open_document("poster.pdf", make_pdf(1, size=(14400, 14400)), settings)
    page = doc.page(1, dpi=200)
    w, h = page.size
    assert w * h <= 4_000_000 * 1.01
    assert page.scale_note and "pixel cap" in page.scale_note


def test_giant_image_is_shrunk_to_the_cap() -> None:
    settings = Settings(max_pixels=1_000_000)
    doc = open_document("big.png", image_bytes("PNG", size=(4000, 3000)), settings)
    page = doc.page(1)
    assert page.size[0] * page.size[1] <= 1_000_000 and page.scale_note


def test_thousand_page_pdf_is_capped_and_rendered_lazily() -> None:
    doc = open_document("long.pdf", make_pdf(1200, size=(200, 200)), Settings(max_pages=1000))
    assert doc.page_count == 1200
    assert len(doc.select()) == 1000
    assert doc.select("1199-")[-1] == 1200
    pages = doc.pages([5, 1000])
    assert next(pages).index == 5  # a generator: nothing rendered ahead


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("1,3-5", [1, 3, 4, 5]),
        ("2", [2]),
        ("4-", [4, 5, 6]),
        ("-2", [1, 2]),
        ("", None),
        (" 3 , 1 ", [3, 1]),
        ("2-9", [2, 3, 4, 5, 6]),
        ("1,1,2", [1, 2]),
    ],
)
def test_page_ranges(spec: str, expected: list[int] | None) -> None:
    assert parse_page_range(spec, 6) == (expected or [1, 2, 3, 4, 5, 6])


@pytest.mark.parametrize("spec", ["a", "3-1", "0", "7", "1-x"])
def test_bad_page_ranges_raise(spec: str) -> None:
    with pytest.raises(PageRangeError):
        parse_page_range(spec, 6)


@pytest.mark.skipif(not poppler_available(), reason="poppler-utils (pdftoppm) is not installed")
def test_poppler_backend_renders_the_same_page_as_pdfium() -> None:
    data = (DATA / "sf424_page2.pdf").read_bytes()
    pdfium_page = open_document("f.pdf", data).page(1, dpi=72)
    poppler_page = open_document("f.pdf", data, Settings(pdf_backend="poppler")).page(1, dpi=72)
    assert abs(poppler_page.size[0] - pdfium_page.size[0]) <= 1
    assert abs(poppler_page.size[1] - pdfium_page.size[1]) <= 1
    a = np.asarray(pdfium_page.image.convert("L").resize((100, 130)), dtype=float)
    b = np.asarray(poppler_page.image.convert("L").resize((100, 130)), dtype=float)
    diff = float(np.abs(a - b).mean())
    assert diff < 20  # the same page drawn by two rasterizers: grey levels agree closely


# ---------------------------------------------------------------- issue 10 items 6-9


def test_multipage_tiff_frames_are_decoded_only_when_asked() -> None:
    # Each frame has its own grey level, so a page shows which frame was decoded.
    buf = io.BytesIO()
    frames = [Image.new("L", (40, 30), 10 * i) for i in range(12)]
    frames[0].save(buf, "TIFF", save_all=True, append_images=frames[1:])
    doc = open_document("fax.tif", buf.getvalue())
    assert doc.page_count == 12
    assert [p.image.getpixel((0, 0))[0] for p in doc.pages([11, 2])] == [100, 10]
    assert list(doc.pages([])) == []  # nothing asked, nothing rendered (never "all pages")


_TIFF_RSS_SCRIPT = """
import resource, sys
from workbench.documents import open_document
data = open(sys.argv[1], "rb").read()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
doc = open_document("scan.tif", data)
sizes = [p.size for p in doc.pages([1, 2])]
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(doc.page_count, len(sizes), (after - before) // 1024)
"""


def test_two_pages_of_a_long_tiff_cost_two_frames_of_memory(tmp_path: Path) -> None:
    import subprocess
    import sys

    # 60 frames of 1200×1200 RGB: 4.3 MB each decoded, 260 MB if every frame were loaded.
    frame = Image.new("RGB", (1200, 1200), (250, 250, 250))
    path = tmp_path / "long.tif"
    frame.save(path, "TIFF", save_all=True, append_images=[frame] * 59, compression="tiff_lzw")
    out = subprocess.run(
        [sys.executable, "-c", _TIFF_RSS_SCRIPT, str(path)],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parent.parent,
    ).stdout.split()
    count, rendered, grown_mb = (int(v) for v in out)
    assert (count, rendered) == (60, 2)
    assert grown_mb < 80, f"peak memory grew {grown_mb} MB for 2 of 60 frames"


def test_damaged_later_tiff_frame_is_a_document_error_for_that_page() -> None:
    rng = np.random.default_rng(0)  # noise does not compress: the strips are long
    frames = [Image.fromarray(rng.integers(0, 255, (200, 200), dtype=np.uint8)) for _ in "ab"]
    buf = io.BytesIO()
    frames[0].save(
        buf, "TIFF", save_all=True, append_images=frames[1:], compression="tiff_adobe_deflate"
    )
    data = bytearray(buf.getvalue())
    probe = Image.open(io.BytesIO(bytes(data)))
    probe.seek(1)
    strip = probe.tag_v2[273][0]  # StripOffsets of the second frame
    data[strip : strip + 2000] = bytes(2000)  # its deflate stream is now garbage
    doc = open_document("fax.tif", bytes(data))
    assert doc.page_count == 2
    assert doc.page(1).size == (200, 200)  # the first frame is fine
    with pytest.raises(DocumentError, match=r"^fax\.tif: page 2 is damaged"):
        doc.page(2)


def _zero_page_pdf() -> bytes:
    buf = io.BytesIO()
    pdfium.PdfDocument.new().save(buf)
    return buf.getvalue()


def test_zero_page_pdf_after_an_encrypted_one_says_no_pages() -> None:
    encrypted = (DATA / "bad" / "encrypted.pdf").read_bytes()
    for name, data, reason in [
        ("empty.pdf", _zero_page_pdf(), "has no pages"),
        ("secret.pdf", encrypted, "encrypted"),
        ("empty.pdf", _zero_page_pdf(), "has no pages"),  # PDFium's last error is stale here
        ("secret.pdf", encrypted, "encrypted"),
        ("cut.pdf", make_pdf(2)[:300], "damaged"),
    ]:
        with pytest.raises(DocumentError) as err:
            open_document(name, data)
        assert str(err.value).startswith(f"{name}: ") and reason in str(err.value), err.value


def test_wrong_password_is_named_as_such() -> None:
    encrypted = (DATA / "bad" / "encrypted.pdf").read_bytes()
    with pytest.raises(DocumentError, match="password given is wrong"):
        open_document("secret.pdf", encrypted, password="not-it")


def test_fifo_is_refused_at_once_without_blocking(tmp_path: Path) -> None:
    import os
    import threading

    from workbench.documents import read_input

    fifo = tmp_path / "scan.pdf"
    os.mkfifo(fifo)  # nobody ever writes to it: reading it would block forever
    outcome: list[BaseException | bytes] = []

    def read() -> None:
        try:
            outcome.append(read_input(fifo))
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    thread.join(timeout=5)
    assert not thread.is_alive(), "reading a FIFO blocked"
    [error] = outcome
    assert isinstance(error, DocumentError)
    assert str(error) == f"{fifo}: not a regular file (a FIFO); skipped"


@pytest.mark.parametrize(("path", "what"), [("/dev/null", "a character device"), (".", "folder")])
def test_other_non_regular_inputs_are_refused(path: str, what: str) -> None:
    from workbench.documents import read_input

    with pytest.raises(DocumentError, match=what):
        read_input(Path(path))


def test_regular_file_and_link_to_it_are_read(tmp_path: Path) -> None:
    from workbench.documents import read_input

    data = make_pdf(1)
    (tmp_path / "a.pdf").write_bytes(data)
    (tmp_path / "link.pdf").symlink_to(tmp_path / "a.pdf")
    assert read_input(tmp_path / "a.pdf") == data == read_input(tmp_path / "link.pdf")
    with pytest.raises(DocumentError, match="No such file"):
        read_input(tmp_path / "missing.pdf")
    with pytest.raises(DocumentError, match="larger than 1 MB"):
        (tmp_path / "big.pdf").write_bytes(b"%PDF-" + b"\0" * 2_000_000)
        read_input(tmp_path / "big.pdf", Settings(max_file_mb=1))


def test_a_newline_in_a_name_keeps_the_error_on_one_line(tmp_path: Path) -> None:
    from workbench.documents import read_input

    path = tmp_path / "bad\nname.pdf"
    path.write_bytes(b"not a scan\n")
    with pytest.raises(DocumentError) as err:
        open_document(path.name, read_input(path))
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith("bad\\nname.pdf: not a PDF or image")  # escaped, not quoted
    os_fifo = tmp_path / "fifo\rname"
    import os

    os.mkfifo(os_fifo)
    with pytest.raises(DocumentError) as err:
        read_input(os_fifo)
    assert "\r" not in str(err.value) and "fifo\\rname" in str(err.value)


def test_cli_refuses_a_fifo_and_a_newline_name_one_line_each(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    inputs = tmp_path / "in"
    inputs.mkdir()
    os.mkfifo(inputs / "a.pdf")
    bad = inputs / "b\nc.pdf"
    bad.write_bytes(b"plain text\n")
    done = subprocess.run(
        [sys.executable, "-m", "workbench", "ocr", str(inputs), "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=60,  # the FIFO used to block here forever
        cwd=Path(__file__).parent.parent,
    )
    lines = done.stderr.splitlines()
    assert done.returncode == 1
    shown = str(bad).replace("\n", "\\n")  # the newline as the two characters \n
    assert lines == [
        f"error: {inputs / 'a.pdf'}: not a regular file (a FIFO); skipped",
        f"error: {shown}: not a PDF or image (named .pdf, but its content is neither)",
        "error: no readable input",
    ]
