"""Bulk loads: the one pause of the cyclic garbage collector, and the memory given back after.

Loading a tree allocates tens of thousands of objects and makes no reference cycles; a
collection in the middle of it scans everything allocated so far, which triples a build's
time. Loads pause the collector for their whole length; a pause inside a pause does nothing
more, and only the outermost one turns the collector back on.

After a load, the C heap holds the freed buffers of every file and cache line read:
`give_back_free_memory` returns its free pages to the system (glibc's `malloc_trim`;
elsewhere nothing), about 9 MB at 100k tasks, for a millisecond.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["gc_paused", "give_back_free_memory", "one_c_heap"]


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


def give_back_free_memory() -> bool:
    """Return the C heap's free pages to the system; False where the C library has no
    `malloc_trim` (not glibc).

    >>> give_back_free_memory() in (True, False)
    True
    """
    import ctypes  # noqa: PLC0415 - only after a big load; the small ones never need it

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return False
    trim(0)
    return True


M_ARENA_MAX = -8  # glibc's mallopt parameter: how many C heaps ("arenas") threads may make


def one_c_heap() -> bool:
    """Make threads started from now on allocate from the process's one C heap instead of
    one of their own (glibc's `mallopt(M_ARENA_MAX, 1)`; elsewhere nothing, False). A thread
    that encodes the cache otherwise leaves a heap of its own holding about 4 MB of pages
    at 100k tasks, which `malloc_trim` does not give back. Python allocates under its own
    lock, so threads sharing one heap wait for each other no more than before."""
    import ctypes  # noqa: PLC0415 - only for a serving tree's later cache write

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_ARENA_MAX, 1))
