"""An encrypted PDF made readable with its password: a plain copy (its security removed) that
the engines and their worker processes open as any PDF, by content. The app's password field
and the CLI's ``--password`` both use :func:`unlock_pdf`; a password is never stored."""

from __future__ import annotations

import io

from workbench.documents.files import _PDFIUM_LOCK
from workbench.errors import DocumentError

WRONG_PASSWORD = "the PDF is encrypted and the password given does not open it"


def unlock_pdf(name: str, data: bytes, password: str) -> bytes:
    """``data`` without its password when ``password`` opens it; ``data`` itself when it is
    not an encrypted PDF. Raises :class:`DocumentError` naming ``name`` when the password does
    not open it, or the plain copy cannot be made."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    if b"%PDF" not in data[:1024]:
        return data
    with _PDFIUM_LOCK:
        try:
            pdfium.PdfDocument(data).close()
            return data  # opens without a password: nothing to remove
        except pdfium.PdfiumError:
            pass
        try:
            pdf = pdfium.PdfDocument(data, password=password)
        except pdfium.PdfiumError:
            raise DocumentError(name, WRONG_PASSWORD) from None
        try:
            out = io.BytesIO()
            pdf.save(out, flags=pdfium_c.FPDF_REMOVE_SECURITY)
            return out.getvalue()
        except Exception as exc:  # a PDF PDFium opens but cannot copy
            raise DocumentError(
                name, f"the PDF opened with the password but could not be copied ({exc})"
            ) from None
        finally:
            pdf.close()
