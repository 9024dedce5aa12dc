"""stdin as the server reads it, with every frame held to a size.

pygls reads a header line whole and then as many bytes as `Content-Length` says, in one
allocation: one frame announcing 99,999,999,999 bytes ended the server with a MemoryError, and a
header line without an end was read whole. Here a header line is read up to `MAX_HEADER` bytes,
and a frame over `MAX_FRAME` is refused: pygls is handed a notification no handler answers in
its place (the server goes on), and the frame's own bytes are read past, never kept.
"""

from __future__ import annotations

import re
from typing import BinaryIO

MAX_FRAME = 128 * 1024 * 1024  # a 10 MB eval file in a didOpen, escaped, is far below
MAX_HEADER = 64 * 1024
_LENGTH = re.compile(rb"Content-Length: (\d+)\r\n")
# What pygls reads instead of a refused frame: a notification of our own that nothing answers.
REFUSED = b'{"jsonrpc": "2.0", "method": "$/evallint/frameRefused", "params": {}}'
_CHUNK = 1 << 16


class CappedReader:
    """The `readline` and `read` pygls calls, over the real stdin."""

    def __init__(self, raw: BinaryIO, limit: int = MAX_FRAME) -> None:
        self.raw = raw
        self.limit = limit
        self.pending = 0  # the size of a refused frame whose headers are being read
        self.skip = 0  # bytes of a refused frame still to read past
        self.refused = 0  # frames refused so far

    def readline(self) -> bytes:
        self._read_past()
        line = self.raw.readline(MAX_HEADER)
        found = _LENGTH.fullmatch(line)
        if found is not None:
            digits = found.group(1)
            size = int(digits) if len(digits) <= 18 else self.limit + 1
            if size > self.limit:
                self.pending, self.refused = size, self.refused + 1
                return b"Content-Length: %d\r\n" % len(REFUSED)
        return line

    def read(self, size: int = -1) -> bytes:
        if self.pending:  # the refused frame's body: read past before the next header
            self.skip, self.pending = self.pending, 0
            return REFUSED
        return self.raw.read(size)

    def _read_past(self) -> None:
        """The refused frame's bytes, read and dropped a chunk at a time."""
        while self.skip:
            chunk = self.raw.read(min(self.skip, _CHUNK))
            if not chunk:
                self.skip = 0
                break
            self.skip -= len(chunk)
