"""uvicorn's HTTP/1.1 protocol, refusing a Host header padded with spaces or tabs.

The HTTP parser (h11) strips the spaces around a header's value before the app sees it, so
`Host: localhost:PORT ` reached the exact Host check as `localhost:PORT` and passed. This
protocol reads each header line as it arrives, before the parser, and answers 421 (as the
Host check does) and closes the connection when a Host value is empty or ends in a space or
tab. Only whole lines are judged: a line split across reads is judged once its end arrives,
which is before the parser can act on it.
"""

from __future__ import annotations

import re

from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["StrictHostProtocol", "padded_host"]

_HOST_LINE = re.compile(rb"^host:(.*?)\r?$", re.IGNORECASE | re.MULTILINE)
_MOST_KEPT = 64 * 1024  # of an unfinished line (h11 refuses a longer header block anyway)
_REFUSAL = (
    b"HTTP/1.1 421 Misdirected Request\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"connection: close\r\ncontent-length: 19\r\n\r\nInvalid Host header"
)


def padded_host(lines: bytes) -> bool:
    """True when a Host line among whole `lines` has an empty value or one ending in a
    space or tab.

    >>> padded_host(b"POST / HTTP/1.1\\r\\nHost: a:1 \\r\\n"), padded_host(b"Host: a:1\\r\\n")
    (True, False)
    """
    for found in _HOST_LINE.finditer(lines):
        value = found[1].lstrip(b" \t")
        if not value or value != value.rstrip(b" \t"):
            return True
    return False


class StrictHostProtocol(H11Protocol):
    """`H11Protocol` with `padded_host` judged on every line before the parser reads it."""

    _unfinished = b""

    def data_received(self, data: bytes) -> None:
        lines, _, rest = (self._unfinished + data).rpartition(b"\n")
        self._unfinished = rest[-_MOST_KEPT:]
        if padded_host(lines):
            self.transport.write(_REFUSAL)
            self.transport.close()
            return
        super().data_received(data)
