"""Bulk loads: the one pause of the cyclic garbage collector.

Loading a tree allocates tens of thousands of objects and makes no reference cycles; a
collection in the middle of it scans everything allocated so far, which triples a build's
time. Loads pause the collector for their whole length; a pause inside a pause does nothing
more, and only the outermost one turns the collector back on.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["gc_paused"]


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic GC off while the block runs (as it was before, after it).

    >>> with gc_paused():
    ...     gc.isenabled()
    False
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
