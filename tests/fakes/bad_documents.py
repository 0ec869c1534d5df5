"""Real files with one bad page among good ones, built byte by byte (no downloads).

* :func:`tiff_with_huge_frame`: a multi-frame TIFF whose frame ``bad`` claims 40000×40000
  pixels (its IFD's ImageWidth/ImageLength patched), the others small and readable.
* :func:`pdf_with_unloadable_page`: a PDF whose page tree lists a non-page object as page
  ``bad``; PDFium opens the file, counts the page and refuses to load that page
  ("Failed to load page"), as it does for a page object damaged in a real file.
"""

from __future__ import annotations

import io
import struct

from PIL import Image

HUGE = 40_000


def tiff_with_huge_frame(frames: int = 3, bad: int = 2) -> bytes:
    """A ``frames``-page TIFF (little-endian, uncompressed); frame ``bad`` (1-based) claims
    :data:`HUGE` × :data:`HUGE` pixels."""
    images = [Image.new("L", (120, 160), 255 - 40 * i) for i in range(frames)]
    buf = io.BytesIO()
    images[0].save(buf, "TIFF", save_all=True, append_images=images[1:])
    data = bytearray(buf.getvalue())
    assert data[:4] == b"II*\x00"
    (ifd,) = struct.unpack_from("<I", data, 4)
    for _ in range(bad - 1):  # walk the IFD chain to the bad frame's directory
        (count,) = struct.unpack_from("<H", data, ifd)
        (ifd,) = struct.unpack_from("<I", data, ifd + 2 + 12 * count)
    (count,) = struct.unpack_from("<H", data, ifd)
    patched = 0
    for n in range(count):
        entry = ifd + 2 + 12 * n
        tag, kind = struct.unpack_from("<HH", data, entry)
        if tag in (256, 257):  # ImageWidth, ImageLength
            fmt = "<H" if kind == 3 else "<I"
            struct.pack_into(fmt, data, entry + 8, HUGE)
            patched += 1
    assert patched == 2
    return bytes(data)


def _pdf(objects: list[bytes]) -> bytes:
    out = b"%PDF-1.7\n"
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<</Root 1 0 R/Size %d>>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return out


def pdf_with_unloadable_page(pages: int = 3, bad: int = 2) -> bytes:
    """A ``pages``-page PDF (blank letter pages with a line of text each) whose page ``bad``
    is not a page object: PDFium cannot load it."""
    font = b"<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>"
    objects: list[bytes] = [b"<</Type/Catalog/Pages 2 0 R>>", b"", font]
    kids = []
    for number in range(1, pages + 1):
        kids.append(len(objects) + 1)
        if number == bad:
            objects.append(b"<</Type/Font/Subtype/Type1/BaseFont/Courier>>")  # not a page
            continue
        text = b"BT /F1 24 Tf 72 700 Td (Page %d) Tj ET" % number
        objects.append(
            b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]"
            b"/Resources<</Font<</F1 3 0 R>>>>/Contents %d 0 R>>" % (len(objects) + 2)
        )
        objects.append(b"<</Length %d>>\nstream\n%s\nendstream" % (len(text), text))
    refs = b" ".join(b"%d 0 R" % k for k in kids)
    objects[1] = b"<</Type/Pages/Count %d/Kids[%s]>>" % (pages, refs)
    return _pdf(objects)
