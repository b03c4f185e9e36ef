"""The task model: one frozen record per task file, and the vocabulary it uses.

Every status, type and readiness constant of the product lives here, so that `graph`
(which imports this module and nothing else of `storage`) and `tasks_server` share one
definition.

>>> normalise_status("In-Progress")
'in_progress'
>>> normalise_status("queued")
'queued'
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from sys import intern
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import zstandard

__all__ = [
    "DEFAULT_PRIORITY",
    "DEFAULT_TYPE",
    "DONE_STATUS",
    "ID_PATTERN",
    "KNOWN_STATUSES",
    "KNOWN_TYPES",
    "MAX_ID_LENGTH",
    "READY_STATUSES",
    "TERMINAL_STATUSES",
    "UTC_MAX",
    "UTC_MIN",
    "Task",
    "body_unpacker",
    "is_valid_id",
    "normalise_priority",
    "normalise_status",
    "pack_text",
    "packed_size",
    "plus_clamped",
    "share_all_strings",
    "share_strings",
    "unpack_text",
    "within_utc",
]

ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
"""Anchored for JSON Schema and pydantic `pattern`; in Python use `fullmatch` (`$` alone
also matches before a trailing newline, so `re.match` would accept `"abc\\n"`)."""
MAX_ID_LENGTH = 255

KNOWN_STATUSES = (
    "inbox",
    "active",
    "in_progress",
    "blocked",
    "waiting",
    "review",
    "merge_ready",
    "deferred",
    "done",
    "cancelled",
)
TERMINAL_STATUSES = frozenset({"done", "cancelled"})
READY_STATUSES = frozenset({"active"})
IN_PROGRESS_STATUS = "in_progress"
DONE_STATUS = "done"
BLOCKED_STATUS = "blocked"
REVIEW_STATUS = "review"

_STATUS_ALIASES = {
    "in-progress": "in_progress",
    "inprogress": "in_progress",
    "doing": "in_progress",
    "todo": "active",
    "to_do": "active",
    "to-do": "active",
    "to do": "active",
    "open": "active",
    "ready": "active",
    "closed": "done",
    "completed": "done",
    "complete": "done",
    "finished": "done",
    "canceled": "cancelled",
    "wontfix": "cancelled",
    "won't do": "cancelled",
    "in_review": "review",
    "in-review": "review",
    "in review": "review",
}

KNOWN_TYPES = ("goal", "project", "epic", "task", "action", "bug", "feature", "learn")
DEFAULT_TYPE = "task"
DEFAULT_PRIORITY = 2
_PRIORITY_WORDS = {
    "critical": 0,
    "urgent": 0,
    "highest": 0,
    "high": 1,
    "medium": 2,
    "normal": 2,
    "low": 3,
    "lowest": 4,
    "trivial": 4,
}

_EMPTY: Mapping[str, Any] = MappingProxyType({})


def normalise_status(raw: str) -> str:
    """Map a status as written to its canonical name; unknown statuses are kept as written."""
    key = raw.strip().lower()
    if key in KNOWN_STATUSES:
        return key
    return _STATUS_ALIASES.get(key, raw.strip())


def normalise_priority(raw: object) -> int:
    """Read a priority, 0 (most urgent) to 4; words like `high` map, others get the default."""
    if isinstance(raw, bool):
        return DEFAULT_PRIORITY
    if isinstance(raw, int):
        return min(max(raw, 0), 4)
    if isinstance(raw, str):
        text = raw.strip().lower().removeprefix("p")
        if text.isdigit():
            return min(int(text), 4)
        return _PRIORITY_WORDS.get(text, DEFAULT_PRIORITY)
    return DEFAULT_PRIORITY


_CODECS = threading.local()  # a zstd context serves one thread at a time
_LEVEL = 1  # packs as small as 3 on task bodies, and faster


def _codecs() -> tuple[zstandard.ZstdCompressor, zstandard.ZstdDecompressor]:
    """This thread's packer and unpacker, made on its first use (a context each, reused:
    making one costs more than packing a body)."""
    pair: tuple[zstandard.ZstdCompressor, zstandard.ZstdDecompressor] | None = getattr(
        _CODECS, "pair", None
    )
    if pair is None:
        import zstandard  # noqa: PLC0415 - at the first body packed or unpacked, not at start

        packer = zstandard.ZstdCompressor(level=_LEVEL, write_checksum=False, write_dict_id=False)
        pair = _CODECS.pair = (packer, zstandard.ZstdDecompressor())
    return pair


def body_unpacker() -> Callable[[bytes], bytes]:
    """This thread's unpacker of non-empty packed bodies, for a loop over many of them
    (`unpack_text` looks it up per call). Not to be handed to another thread."""
    return _codecs()[1].decompress


def pack_text(text: str) -> bytes:
    """`text` as a task record holds it: UTF-8 (lone surrogates kept, so that `unpack_text`
    gives back exactly `text`), packed by zstd. About half the bytes of the text (0.54 on
    the generated trees), for 5 µs a body.

    >>> unpack_text(pack_text("- [ ] ship it\\n")), pack_text("")
    ('- [ ] ship it\\n', b'')
    """
    if not text:
        return b""
    packed = _codecs()[0].compress(text.encode("utf-8", "surrogatepass"))
    # A copy of its own size: zstd fills a buffer of the worst case and shrinks it in place,
    # which left each kept body between freed holes of the C heap that a cold load's later
    # buffers were too big to reuse (at 100k tasks, 50-70 MB more resident than warm).
    return bytes(memoryview(packed))


def unpack_text(packed: bytes) -> str:
    """The text `pack_text` packed (2 µs a body)."""
    if not packed:
        return ""
    return _codecs()[1].decompress(packed).decode("utf-8", "surrogatepass")


def packed_size(packed: bytes) -> int | None:
    """How many UTF-8 bytes `packed` says it unpacks to (0 for no bytes), read from its
    frame header without unpacking; None when it is not a frame `pack_text` makes.

    >>> packed_size(pack_text("notes")), packed_size(b""), packed_size(b"not zstd")
    (5, 0, None)
    """
    if not packed:
        return 0
    size = _frame_content_size(packed)
    return size if size > 0 else None


_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_DICT_ID_BYTES = (0, 1, 2, 4)
_SIZE_BYTES = (0, 2, 4, 8)  # a single-segment frame's flag 0 says 1 byte


def _frame_content_size(packed: bytes) -> int:
    """The content size a zstd frame's header gives (RFC 8878, 3.1.1.1), 0 where it gives
    none or `packed` is not a whole header: read here, as a warm start checks every cached
    body, without importing zstandard (about 2 ms of a start).

    >>> _frame_content_size(pack_text("x" * 300)), _frame_content_size(_ZSTD_MAGIC)
    (300, 0)
    """
    if len(packed) < 5 or not packed.startswith(_ZSTD_MAGIC) or packed[4] & 0x08:
        return 0
    descriptor = packed[4]
    single = descriptor >> 5 & 1
    start = 5 + (1 - single) + _DICT_ID_BYTES[descriptor & 3]
    width = _SIZE_BYTES[descriptor >> 6] or single
    field_bytes = packed[start : start + width]
    if not width or len(field_bytes) < width:
        return 0
    return int.from_bytes(field_bytes, "little") + (256 if width == 2 else 0)


UTC_MAX = datetime.max.replace(tzinfo=UTC)
"""The latest instant a time can hold (year 9999's last microsecond, UTC)."""
UTC_MIN = datetime.min.replace(tzinfo=UTC)
"""The earliest instant a time can hold (year 1's first microsecond, UTC)."""


def within_utc(moment: datetime) -> datetime:
    """`moment`, or the nearest end of the range when its instant lies outside it.

    A person may write a time whose UTC instant Python cannot hold (year 9999's last hour at
    `-01:00`, year 1 at `+14:00`); clamped here as it is read, it can be compared, converted
    to UTC and written back like any other.

    >>> within_utc(datetime.fromisoformat("9999-12-31T23:59:59-01:00")) == UTC_MAX
    True
    >>> within_utc(datetime.fromisoformat("0001-01-01T00:00:00+14:00")) == UTC_MIN
    True
    """
    try:
        moment.astimezone(UTC)
    except OverflowError:
        return UTC_MAX if moment.year > 1 else UTC_MIN
    return moment


def plus_clamped(moment: datetime, delta: timedelta) -> datetime:
    """`moment + delta` in UTC, held at the range's ends (a lease from a clock near 9999).

    >>> plus_clamped(datetime(9999, 12, 31, 23, tzinfo=UTC), timedelta(days=1)) == UTC_MAX
    True
    """
    start = within_utc(moment).astimezone(UTC)
    try:
        return start + delta
    except OverflowError:
        return UTC_MAX if delta > timedelta(0) else UTC_MIN


def is_valid_id(task_id: str) -> bool:
    """True when `task_id` is safe as an id and as part of a file name: the whole string
    matches `ID_PATTERN` (no `/`, no trailing newline), no `..`, at most `MAX_ID_LENGTH`."""
    return (
        len(task_id) <= MAX_ID_LENGTH
        and ID_PATTERN.fullmatch(task_id) is not None
        and ".." not in task_id
    )


@dataclass(frozen=True, slots=True)
class Task:
    """One task as read from its file. `path` is relative to the root, POSIX style.

    `depth`, `leaf`, `children` and `blocks` are not here: the index computes them.
    `extra` holds every frontmatter key the model does not name, untouched. The body is
    held packed (`pack_text`: bodies were nearly half of a loaded tree's memory) and read
    through `body`; make a task with `packed_body=pack_text(text)`.
    """

    id: str
    title: str
    path: str
    type: str = DEFAULT_TYPE
    status: str = "inbox"
    priority: int = DEFAULT_PRIORITY
    order: int = 0
    parent: str | None = None
    depends_on: tuple[str, ...] = ()
    soft_depends_on: tuple[str, ...] = ()
    project: str | None = None
    tags: tuple[str, ...] = ()
    assignee: str | None = None
    complexity: str | None = None
    effort: str | None = None
    context: str | None = None
    due: datetime | None = None
    created: datetime | None = None
    modified: datetime | None = None
    completed: datetime | None = None
    packed_body: bytes = b""
    extra: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)

    @property
    def is_terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES

    @property
    def body(self) -> str:
        """The markdown after the frontmatter, as written."""
        return unpack_text(self.packed_body)

    def same_body(self, other: Task) -> bool:
        """True when both bodies read the same (equal packed bytes spare the unpacking; a
        zstd of another version or level may pack the same text differently)."""
        return self.packed_body == other.packed_body or self.body == other.body


_FIELD_SETTERS = tuple(Task.__dict__[name].__set__ for name in Task.__slots__)
_new = object.__new__


def task_of(values: tuple[Any, ...]) -> Task:
    """`Task(*values)`, every field given in the order the class lists them, in half the
    time: the slots are filled by their own setters instead of the frozen `__init__`'s
    `object.__setattr__` by name (a cold load makes a task per file).

    >>> made = Task("a", "A", "a.md", tags=("x",))
    >>> task_of(tuple(getattr(made, name) for name in Task.__slots__)) == made
    True
    """
    if len(values) != len(_FIELD_SETTERS):
        raise TypeError(f"a task has {len(_FIELD_SETTERS)} fields, not {len(values)}")
    task: Task = _new(Task)
    for setter, value in zip(_FIELD_SETTERS, values, strict=True):
        setter(task, value)
    return task


_ID_POOLS = threading.local()  # this thread's pools, innermost last (`ids_pooled`)


@contextlib.contextmanager
def ids_pooled() -> Iterator[None]:
    """While the block runs (a whole load), `share_strings` shares ids through one dict,
    dropped at the end, instead of interning them: the interpreter's table of interned
    strings keeps an entry for every id as long as it lives (4.3 MB at 100k tasks).

    >>> with ids_pooled():
    ...     first, second = (share_strings(Task("".join(["t", "1"]), "T", "t.md")) for _ in "ab")
    >>> first.id is second.id
    True
    """
    pools: list[dict[str, str]] = _ID_POOLS.__dict__.setdefault("stack", [])
    pools.append({})
    try:
        yield
    finally:
        pools.pop()


def _interned_twice(text: str, _: str) -> str:
    return intern(text)


def _id_sharer() -> Callable[[str, str], str]:
    """`share(text, text)` gives the one object kept for ids equal to `text`."""
    pools: list[dict[str, str]] | None = getattr(_ID_POOLS, "stack", None)
    return pools[-1].setdefault if pools else _interned_twice


def _interned(texts: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(map(intern, texts)) if texts else texts


def _shared(texts: tuple[str, ...], share: Callable[[str, str], str]) -> tuple[str, ...]:
    return tuple([share(text, text) for text in texts])


def _setter(name: str) -> Callable[[Task, Any], None]:
    """The slot's own setter: what `object.__setattr__(task, name, ...)` calls, without
    looking the name up each time (a third off sharing 100k tasks' strings)."""
    setter: Callable[[Task, Any], None] = Task.__dict__[name].__set__
    return setter


_SET_ID, _SET_TYPE, _SET_STATUS, _SET_PARENT, _SET_PROJECT = map(
    _setter, ("id", "type", "status", "parent", "project")
)
_SET_DEPENDS_ON, _SET_SOFT_DEPENDS_ON, _SET_TAGS = map(
    _setter, ("depends_on", "soft_depends_on", "tags")
)


def share_all_strings(tasks: Iterable[Task]) -> None:
    """`share_strings` for each of `tasks`, in one loop: a cache line's thousand decoded
    tasks pay for the id pool's look-up and the calls once, not once a task (a third of
    the time 100k warm tasks spent here)."""
    share = _id_sharer()
    set_id, set_type, set_status, set_parent = _SET_ID, _SET_TYPE, _SET_STATUS, _SET_PARENT
    for task in tasks:
        set_id(task, share(task.id, task.id))
        set_type(task, intern(task.type))
        set_status(task, intern(task.status))
        if task.parent is not None:
            set_parent(task, share(task.parent, task.parent))
        if task.project is not None:
            _SET_PROJECT(task, intern(task.project))
        if task.depends_on:
            _SET_DEPENDS_ON(task, _shared(task.depends_on, share))
        if task.soft_depends_on:
            _SET_SOFT_DEPENDS_ON(task, _shared(task.soft_depends_on, share))
        if task.tags:
            _SET_TAGS(task, _interned(task.tags))


def share_strings(task: Task) -> Task:
    """Make the strings that many tasks repeat one object each, in place, and return `task`:
    its status, type, project and tags, its id and every id it names (the same id object
    then serves as the graph's node and as each reference to it). At 100k tasks the copies
    held 40 MB. Only for a task just made (parsed or decoded) and not yet shared: equal
    strings swapped for equal strings, so nothing anyone can compare changes."""
    share_all_strings((task,))
    return task
