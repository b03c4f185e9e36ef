"""The records of a full build, saved to be loaded back instead of derived again.

A warm start whose every file is as the cache left it builds the same store from the same
tasks, so the records a full build would derive are the ones the build that wrote the cache
derived. `facts_of` packs them (msgpack, by msgspec); `restore` gives them back, or None
unless they fit: made by the same rules (`RULES`, a digest of the functions that derive a
record and of the statuses they read), for the same task ids in the same order (a digest of
the ids), every task exactly once. The caller (the live tree) keeps them beside the cache
they were derived from, under that cache's token, and offers them only when no file changed
since that cache was written; anything else is a full build.

Only trees without a cycle are saved (a cycle's members share one `Cycle` object, found by a
search this skips): a tree with one simply builds in full. A `Local` is saved once however
many tasks share it, and a record names its task, and the nearest blocked ancestor, by
position among the ids, so the restored records hold the tasks' own id strings. The task
order of every id (`sort_key`: what a first `list_tasks` sorts a whole tree by, 0.15 s at
100k tasks) is saved the same way, as positions.

>>> from graph.index import TaskIndex
>>> from storage.model import Task
>>> built = TaskIndex.build([Task(id="a", title="A", path="a.md")])
>>> saved = facts_of(built._store, built._records, ["a"])
>>> restore(saved or b"", built._store) == (built._records, ("a",))
True
"""

from __future__ import annotations

import hashlib
import sys
from array import array
from collections.abc import Iterable, Mapping, Sequence
from itertools import repeat
from sys import intern
from types import CodeType
from typing import Any, NamedTuple, get_type_hints

import msgspec

from graph._order import sort_key
from graph._records import (
    Local,
    Record,
    _dependency_state,
    build_records,
    make_local,
    make_record,
)
from graph._store import Store
from storage.model import BLOCKED_STATUS, READY_STATUSES, TERMINAL_STATUSES

__all__ = ["RULES", "Restored", "facts_of", "restore"]

_FORMAT = 2  # 2: the task order saved


def _digest_code(digest: Any, code: CodeType) -> None:
    """Add what `code` does to `digest`: its bytecode, names and constants, the same in
    every process: a nested code object (a comprehension's) by its own parts, not by its
    repr (which holds an address), a set's members sorted (not in hash order)."""
    digest.update(code.co_code + repr(code.co_names).encode())
    for constant in code.co_consts:
        if isinstance(constant, CodeType):
            _digest_code(digest, constant)
        elif isinstance(constant, frozenset):  # its order is the string hash's, per process
            digest.update(repr(sorted(constant, key=repr)).encode())
        else:
            digest.update(repr(constant).encode())


def _rules() -> str:
    """A digest of what a record is derived by: the rule functions' code, the fields, and
    the statuses they test. A change to any of them makes saved facts stale."""
    digest = hashlib.blake2b(str(_FORMAT).encode(), digest_size=12)
    for function in (make_local, make_record, build_records, _dependency_state):
        _digest_code(digest, function.__code__)
    digest.update(repr(sort_key).encode())  # attrgetter('priority', 'order', 'id')
    statuses = (sorted(TERMINAL_STATUSES), sorted(READY_STATUSES), BLOCKED_STATUS)
    machine = (sys.byteorder, array("i").itemsize)  # how the columns' ints are laid out
    digest.update(repr((Local._fields, Record._fields, statuses, machine)).encode())
    return digest.hexdigest()


RULES = _rules()

_WIDTH = len(Local._fields) - 1  # a Local but its cycle (always empty in a saved tree)
_CYCLE = Local._fields.index("cycle")
_KINDS: tuple[type, ...] = tuple(
    hint for name, hint in get_type_hints(Local).items() if name != "cycle"
)  # what each saved field is made back into: str, bool or int


class _Saved(msgspec.Struct, array_like=True):
    """Each column holds one C int (`array("i")`) per record, in record order: decoded as
    bytes, read without making a Python int for each (100k of them left holes in the heap
    after a restore: 6 MB more resident at 100k tasks)."""

    rules: str
    ids: str  # digest of the ids, in the store's order
    texts: list[str]  # the status and type strings the Locals hold
    locals: bytes  # each distinct Local but its cycle, `_WIDTH` ints: its strings by position
    # in `texts`, its flags 0 or 1 (no tuple decoded per Local, so none left as a hole)
    positions: bytes  # each record's task, by position among the ids
    local: bytes  # each record's Local, by position in `locals`
    depth: bytes  # -1: None
    anc: bytes  # the nearest blocked ancestor's position; -1: None
    flags: bytes  # 1: blocked, 2: ready
    order: bytes  # every id's position among the ids, in the task order


class Restored(NamedTuple):
    """What saved facts give back: every task's record, and every id in the task order."""

    records: dict[str, Record]
    order: tuple[str, ...]


_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(_Saved)
_tuple_new = tuple.__new__
_INT = array("i").itemsize


def _ids_digest(ids: list[str]) -> str:
    joined = "\0".join(ids).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(joined, digest_size=16).hexdigest()


def facts_of(store: Store, records: Mapping[str, Record], order: Sequence[str]) -> bytes | None:
    """The records of a full build over `store` and its ids in the task order (`order`),
    packed; None for a tree with a cycle."""
    if store.dep_cycle or store.parent_cycle:
        return None
    ids = list(store.tasks)
    position = {task_id: n for n, task_id in enumerate(ids)}
    shared: dict[Local, int] = {}
    local = [shared.setdefault(record.local, len(shared)) for record in records.values()]
    saved = _Saved(
        RULES,
        _ids_digest(ids),
        *_local_columns(list(shared)),
        _ints(position[task_id] for task_id in records),
        _ints(local),
        _ints(-1 if r.depth is None else r.depth for r in records.values()),
        _ints(-1 if r.anc is None else position[r.anc] for r in records.values()),
        _ints(r.blocked | r.ready << 1 for r in records.values()),
        _ints(map(position.__getitem__, order)),
    )
    return _ENCODER.encode(saved)


def _ints(values: Iterable[int]) -> bytes:
    return array("i", values).tobytes()


def _local_columns(locals_: list[Local]) -> tuple[list[str], bytes]:
    """The strings of `locals_` once each, and every Local but its cycle as `_WIDTH` ints."""
    texts: dict[str, int] = {}
    values: list[int] = []
    for local in locals_:
        for value in local[:_CYCLE] + local[_CYCLE + 1 :]:
            if isinstance(value, str):
                values.append(texts.setdefault(value, len(texts)))
            elif isinstance(value, int):  # a bool too: 0 or 1
                values.append(value)
            else:
                raise TypeError(f"a Local field of type {type(value).__name__}")
    return list(texts), _ints(values)


def _locals(texts: list[str], columns: bytes) -> list[Local]:
    """The Locals of `_local_columns`: each field by the type `make_local` gives it. Made a
    column at a time (`map` over a strided view), then zipped into rows: no Python loop a
    field (a tenth of a warm 10k start's index step went to that loop)."""
    shared = [intern(text) for text in texts]
    values = memoryview(columns).cast("i")
    if len(values) % _WIDTH:
        raise IndexError("not whole Locals")
    made: list[Iterable[Any]] = [
        map(shared.__getitem__, values[k::_WIDTH]) if kind is str else map(kind, values[k::_WIDTH])
        for k, kind in enumerate(_KINDS)
    ]
    made.insert(_CYCLE, repeat((), len(values) // _WIDTH))
    return [_tuple_new(Local, row) for row in zip(*made, strict=True)]


def restore(data: bytes, store: Store) -> Restored | None:
    """The records and order `facts_of` packed, if they are of this store's ids under these
    rules and name every task once; else None."""
    try:
        saved = _DECODER.decode(data)
    except msgspec.DecodeError:
        return None
    ids = list(store.tasks)
    if saved.rules != RULES or saved.ids != _ids_digest(ids):
        return None
    try:
        records = _records(ids, _locals(saved.texts, saved.locals), saved)
        order = _order(ids, saved.order)
    except IndexError:
        return None
    return None if records is None or order is None else Restored(records, order)


def _order(ids: list[str], column: bytes) -> tuple[str, ...] | None:
    """The ids at the saved positions: each once, else None (IndexError: past the end)."""
    positions = memoryview(column).cast("i")
    if (
        len(positions) != len(ids)
        or len(set(positions)) != len(ids)
        or min(positions, default=0) < 0
    ):
        return None
    return tuple(map(ids.__getitem__, positions))


def _records(ids: list[str], locals_: list[Local], saved: _Saved) -> dict[str, Record] | None:
    """The records of `saved`, each task once and every position in range, else None."""
    raw = (saved.positions, saved.local, saved.depth, saved.anc, saved.flags)
    if any(len(column) != len(ids) * _INT for column in raw):
        return None
    columns = [memoryview(column).cast("i") for column in raw]
    records: dict[str, Record] = {}
    for n, at, d, a, f in zip(*columns, strict=True):
        if n < 0 or at < 0 or a < -1:
            return None  # a negative position would read from the end
        records[ids[n]] = _tuple_new(
            Record,
            (locals_[at], None if d < 0 else d, None if a < 0 else ids[a], f & 1 == 1, f & 2 == 2),
        )
    return records if len(records) == len(ids) else None
