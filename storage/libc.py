"""The C library, for the Linux calls Python does not wrap (`renameat2`, inotify).

Its symbols are already in the process (the interpreter links it), so `CDLL(None)` finds
them at once; `ctypes.util.find_library("c")` would run `ldconfig -p` in a child process
(about 15 ms, paid at every start, twice: docs/performance.md).
"""

from __future__ import annotations

import ctypes
from functools import cache

__all__ = ["libc"]


@cache
def libc() -> ctypes.CDLL | None:
    """The process's C library, `errno` kept for `ctypes.get_errno`; None where the process's
    symbols cannot be opened (a platform without `dlopen`)."""
    try:
        return ctypes.CDLL(None, use_errno=True)
    except (OSError, TypeError):
        return None
