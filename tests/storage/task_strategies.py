"""Hypothesis strategies for hostile task files, and the readers' views compared by meaning.

The strings mix ordinary text with what trips line splitters (U+2028, U+0085, \\x0c, a lone
\\r), YAML 1.1 readers (`0b101`, `no`, `12:30`, `2024-01-01`), YAML itself (`: `, ` #`, `---`,
quotes, a BOM) and control characters.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any

import frontmatter
from hypothesis import strategies as st

from storage import codec
from storage.model import Task, is_valid_id, normalise_status, pack_text
from storage.timestamps import parse_timestamp

LINE_BREAKERS = ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\r"]
YAML_11_TRAPS = [
    "0b101", "0o17", "0x1F", "017", "0123", "1_000", "+1", "-1", "1e3", "1.5", ".5", ".inf",
    "-.inf", ".nan", "~", "null", "NULL", "y", "n", "Y", "yes", "No", "ON", "off", "true",
    "False", "2024-01-01", "2024-1-1 10:00:00", "2001-12-14t21:59:43.10-05:00", "12:30",
    "1:20:30", "190:20:30.15", "=", "<<", "---", "...", "- x", "a: b", "# x", "a #b", "[x]",
    "{x: 1}", "!x", "&a", "*a", "|", ">", "?", "%x", "@x", "`x", "'", '"', "\\", "",
]  # fmt: skip
CONTROLS = ["\x00", "\x07", "\x1b", "\x7f", "\x80", "\x9f", "\ufeff", "\ufffe", "\uffff", "\t"]
TIME_KEYS = ("due", "created", "modified", "completed")
MODEL_KEYS = frozenset(
    {"id", "task_id", "permalink", "title", "type", "status", "priority", "order", "parent",
     "depends_on", "soft_depends_on", "project", "tags", "assignee", "complexity", "effort",
     "context", "depth", "leaf", "children", "blocks", *TIME_KEYS}
)  # fmt: skip

_characters = st.characters(exclude_categories=["Cs"])
_pieces = st.one_of(
    st.text(_characters, max_size=8),
    st.sampled_from(YAML_11_TRAPS + LINE_BREAKERS + CONTROLS + [" ", ": ", " #", "\n", "\r\n"]),
)
hostile_text = st.lists(_pieces, max_size=5).map("".join)
"""Any string UTF-8 can hold, hostile pieces favoured."""

some_text = st.one_of(st.sampled_from(YAML_11_TRAPS), hostile_text)


def _stripped(text: str) -> str | None:
    return text.strip() or None


nonblank = some_text.map(_stripped).filter(lambda t: t is not None).map(str)
"""A string as the reader keeps it: stripped, not empty (titles, list items)."""

ids = st.one_of(
    st.sampled_from(["0123", "0b101", "1e3", "1_000", "2024-01-01", "y", "no", "NULL", "a.b"]),
    st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,24}", fullmatch=True),
).filter(is_valid_id)

_zones = st.sampled_from(
    [UTC, timezone(timedelta(hours=-8)), timezone(timedelta(hours=5, minutes=30))]
)
timestamps = st.datetimes(
    min_value=datetime(1000, 1, 1), max_value=datetime(9998, 12, 31), timezones=_zones
)
statuses = some_text.map(normalise_status).filter(bool)
json_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    some_text,
)
json_values = st.recursive(
    json_leaves,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(some_text, inner, max_size=3),
    max_leaves=8,
)
extra_keys = some_text.filter(lambda key: key not in MODEL_KEYS)


@st.composite
def tasks(draw: st.DrawFn) -> Task:
    """A task every field of which the codec can write and read back as it is."""
    optional = st.none() | nonblank
    return Task(
        id=draw(ids),
        title=draw(nonblank),
        path="p.md",
        type=draw(nonblank),
        status=draw(statuses),
        priority=draw(st.integers(0, 4)),
        order=draw(st.integers()),
        parent=draw(optional),
        depends_on=tuple(draw(st.lists(nonblank, max_size=3))),
        soft_depends_on=tuple(draw(st.lists(nonblank, max_size=3))),
        project=draw(optional),
        tags=tuple(draw(st.lists(nonblank, max_size=3))),
        assignee=draw(optional),
        complexity=draw(st.none() | some_text),
        effort=draw(st.none() | some_text),
        context=draw(st.none() | some_text),
        due=draw(st.none() | timestamps),
        created=draw(st.none() | timestamps),
        modified=draw(st.none() | timestamps),
        completed=draw(st.none() | timestamps),
        packed_body=pack_text(draw(hostile_text)),
        extra=draw(st.dictionaries(extra_keys, json_values, max_size=3)),
    )


# --- the two readers, compared by meaning -------------------------------------------------


def typed(value: object) -> object:
    """`value` with each scalar tagged by its type, so that 1, 1.0, True and "1" differ."""
    if isinstance(value, dict):
        return {typed(k): typed(v) for k, v in value.items()}  # type: ignore[misc]
    if isinstance(value, list | tuple):
        return [typed(item) for item in value]
    if isinstance(value, datetime | date):
        return ("time", parse_timestamp(value))
    return (type(value).__name__, value)


def meaning(meta: dict[str, Any]) -> object:
    """Frontmatter as its meaning: a timestamp key holds an aware datetime whichever reader
    (PyYAML makes datetimes, ours keeps the text) read it."""
    return typed({key: _time(v) if key in TIME_KEYS else v for key, v in meta.items()})


def _time(value: object) -> object:
    try:
        return parse_timestamp(value)
    except (ValueError, TypeError):
        return value


def frontmatter_view(text: str) -> tuple[object, str]:
    """What python-frontmatter (PyYAML, YAML 1.1) reads: the metadata's meaning, the body."""
    post = frontmatter.loads(text)
    return meaning(dict(post.metadata)), post.content


def codec_view(text: str) -> tuple[object, str]:
    """What our codec reads, put the way python-frontmatter puts it (it joins CRLF into LF
    and strips the body; both are its documented habits, not differences of meaning). It
    joins twice (`loads` and `parse` each run `u()`), so "\\r\\r\\n" comes out as "\\n"."""
    parts = codec.split(text)
    body = parts.body.replace("\r\n", "\n").replace("\r\n", "\n").strip()
    return meaning(codec.parse_front(parts)), body
