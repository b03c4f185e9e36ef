"""Task files: YAML frontmatter between `---` lines, then a free markdown body.

`loads`/`dumps` in the style of `json`, plus `update_text`, which rewrites only the lines
of the keys that change: every other byte of the file (other keys, their order, comments,
quoting, the body, the line endings, a BOM) stays as it was. Cutting the text into its
frontmatter and body, and reading the YAML as a mapping, is `frontmatter.py`'s job; here the
mapping becomes a task (leniently: `0123` stays a string) and a task becomes text.

>>> task = loads("---\\nid: t-1\\ntitle: Write docs\\nstatus: todo\\n---\\nBody\\n", path="t.md")
>>> task.id, task.status, task.body
('t-1', 'active', 'Body\\n')
>>> update_text("---\\nid: t-1 # keep\\nstatus: active\\n---\\nBody\\n", {"status": "done"})
'---\\nid: t-1 # keep\\nstatus: done\\n---\\nBody\\n'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

from storage.errors import NotATask, NotUtf8, ParseError, WouldNotLoad
from storage.frontmatter import Parts, parse_front, split
from storage.model import (
    DEFAULT_TYPE,
    Task,
    is_valid_id,
    normalise_priority,
    normalise_status,
    pack_text,
    share_strings,
    task_of,
)
from storage.timestamps import parse_timestamp
from storage.yamltext import (
    Unrepresentable,
    check_encodable,
    is_blank,
    key_lines,
    line_key,
    lines_of,
    raw_values,
)

__all__ = [
    "DELETE", "Parts", "Unrepresentable", "dumps", "loads", "parse_front", "split", "text_of",
    "update_text",
]  # fmt: skip

DELETE: Final = object()
"""A value for `update_text` that removes the key."""

_ID_KEYS = ("id", "task_id", "permalink")
_STRING_KEYS = ("title", "type", "parent", "project", "assignee", "complexity", "effort", "context")
_LIST_KEYS = ("depends_on", "soft_depends_on", "tags")
_TIME_KEYS = ("due", "created", "modified", "completed")
_COMPUTED_KEYS = ("depth", "leaf", "children", "blocks")
_MODEL_KEYS = frozenset(
    (
        *_ID_KEYS,
        *_STRING_KEYS,
        *_LIST_KEYS,
        *_TIME_KEYS,
        *_COMPUTED_KEYS,
        "status",
        "priority",
        "order",
    )
)
_NO_EXTRA: Mapping[str, Any] = MappingProxyType({})
_FIELD_ORDER = (
    "id", "title", "type", "status", "priority", "order", "parent", "depends_on",
    "soft_depends_on", "project", "tags", "assignee", "complexity", "effort", "context",
    "due", "created", "modified", "completed",
)  # fmt: skip


def loads(text: str, *, path: str = "", stem: str | None = None) -> Task:
    """Parse one task file's text. `stem` is the id for a file whose frontmatter has none."""
    parts = split(text, path)
    meta = parse_front(parts, path)
    return to_task(meta, parts, path=path, stem=stem)


def to_task(meta: dict[str, Any], parts: Parts, *, path: str, stem: str | None) -> Task:
    """Build the model from parsed frontmatter; raw text recovers strings YAML re-typed.
    The values are read first, then made the model's in one go (statuses normalised, the
    body packed)."""
    raw = _RawScalars(parts.front)
    text = {key: _string(meta, key, raw) for key in _STRING_KEYS}
    title = text["title"]
    if title is None or not title.strip():
        raise NotATask(path)
    task_id = _task_id(meta, raw, stem, path)
    try:
        times = [parse_timestamp(meta.get(key)) for key in _TIME_KEYS]  # due ... completed
    except (ValueError, TypeError) as exc:
        raise ParseError(path, f"unreadable timestamp: {exc}") from exc
    task = task_of(  # the fields in the order `Task` lists them
        (
            task_id,
            title.strip(),
            path,
            text["type"] or DEFAULT_TYPE,
            normalise_status(_string(meta, "status", raw) or "inbox"),
            normalise_priority(meta.get("priority")),
            _int(meta.get("order")),
            text["parent"] or None,
            _ids(meta.get("depends_on")),
            _ids(meta.get("soft_depends_on")),
            text["project"] or None,
            _tags(meta.get("tags")),
            text["assignee"] or None,
            text["complexity"],
            text["effort"],
            text["context"],
            *times,
            pack_text(parts.body),
            _extra(meta),
        )
    )
    return share_strings(task)


def _task_id(meta: dict[str, Any], raw: _RawScalars, stem: str | None, path: str) -> str:
    for key in _ID_KEYS:
        value = _string(meta, key, raw)
        if value:
            break
    else:
        value = stem or ""
    if not is_valid_id(value):
        raise ParseError(path, f"invalid id {value!r}")
    return value


def _string(meta: dict[str, Any], key: str, raw: _RawScalars) -> str | None:
    value = meta.get(key)
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list):
        return ", ".join(str(item) for item in value) or None
    return raw.get(key) or str(value)


def _int(value: object) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return 0


def _ids(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, list):  # the usual shape; a loop, not a generator: 2x faster
        ids = []
        for item in value:
            text = str(item).strip() if item is not None else ""
            if text:
                ids.append(text)
        return tuple(ids)
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    return (str(value),)


def _tags(value: object) -> tuple[str, ...]:
    """Tags as written: a list's items keep their spaces (only a blank one is dropped); a
    comma-separated string is split, and the spaces around each comma go with it."""
    if isinstance(value, list):
        return tuple(text for item in value if item is not None and (text := str(item)).strip())
    return _ids(value)


def _extra(meta: dict[str, Any]) -> Mapping[str, Any]:
    if meta.keys() <= _MODEL_KEYS:  # the usual case, checked in C
        return _NO_EXTRA
    return MappingProxyType({key: value for key, value in meta.items() if key not in _MODEL_KEYS})


class _RawScalars:
    """The text after `key:` on a top-level line, for strings YAML would re-type (`0123`)."""

    def __init__(self, front: str) -> None:
        self._front = front
        self._values: dict[str, str] | None = None

    def get(self, key: str) -> str | None:
        if self._values is None:
            self._values = raw_values(self._front)
        return self._values.get(key)


# --- writing ---------------------------------------------------------------------------


def dumps(task: Task) -> str:
    """A new file's text for `task`: known fields in the usual order, then `extra`.

    Raises Unrepresentable, before any text is returned, for a value UTF-8 cannot hold or
    a task whose file would not read back as a task with its id (a blank title, say).
    """
    text = text_of(task)
    _check_reads_back(text, task.id)
    return text


def text_of(task: Task) -> str:
    """The text `dumps` writes, not yet parsed back: for a writer that checks the bytes it
    is about to write itself (`reading.checked_write`), so a new file is parsed once."""
    lines = [key_lines(key, value, "\n") for key, value in _fields_to_write(task)]
    body = task.body  # unpacked once
    check_encodable(body, f"{task.id}: the body")
    return "---\n" + "".join(lines) + "---\n" + body


def _check_reads_back(text: str, task_id: str) -> None:
    try:
        again = loads(text, path=task_id)
    except ParseError as exc:
        raise WouldNotLoad(task_id, exc.detail) from exc
    if again.id != task_id:
        raise WouldNotLoad(task_id, f"it would read back with id {again.id!r}")


def _fields_to_write(task: Task) -> list[tuple[str, object]]:
    values: dict[str, object] = {
        "id": task.id, "title": task.title, "type": task.type, "status": task.status,
        "priority": task.priority, "order": task.order, "parent": task.parent,
        "depends_on": list(task.depends_on), "soft_depends_on": list(task.soft_depends_on),
        "project": task.project, "tags": list(task.tags), "assignee": task.assignee,
        "complexity": task.complexity, "effort": task.effort, "context": task.context,
        "due": task.due, "created": task.created, "modified": task.modified,
        "completed": task.completed,
    }  # fmt: skip
    always = {"id", "title", "type", "status", "priority", "parent", "depends_on"}
    fields = [(k, values[k]) for k in _FIELD_ORDER if k in always or values[k] not in (None, [], 0)]
    return fields + [(key, value) for key, value in task.extra.items()]


def update_text(
    text: str, changes: Mapping[str, object], path: str = "", *, body: str | None = None
) -> str:
    """Rewrite only the frontmatter lines of the keys in `changes` (DELETE removes a key),
    and the body when `body` is given. New keys go at the end of the frontmatter.

    Raises ParseError for a file with no frontmatter to update.
    """
    parts = split(text, path)
    front = _rewrite_front(parts.front, changes, parts.newline)
    closing = parts.closing or "---" + parts.newline
    if body is not None:
        check_encodable(body, f"{path or 'the task'}: the new body")
    new_body = parts.body if body is None else body
    new = Parts(parts.bom, parts.opening, front, closing, new_body, parts.newline)
    _check_keys_kept(parts, new, changes, path)
    return new.join()


def _check_keys_kept(old: Parts, new: Parts, changes: Mapping[str, object], path: str) -> None:
    """A last guard: a readable frontmatter stays readable, with the keys it had (less the
    deleted ones, plus the new ones), else Unrepresentable and nothing is written."""
    try:
        before = parse_front(old, path)
    except ParseError:
        return  # nothing readable to protect
    try:
        after = parse_front(new, path)
    except ParseError as exc:
        raise Unrepresentable(f"{path}: the update would break the file: {exc.detail}") from exc
    deleted = {key for key, value in changes.items() if value is DELETE}
    expected = (before.keys() | changes.keys()) - deleted
    if after.keys() != expected:
        lost = sorted(map(str, expected ^ after.keys()))
        raise Unrepresentable(f"{path}: the update would change other keys: {lost}")


def _rewrite_front(front: str, changes: Mapping[str, object], newline: str) -> str:
    lines = lines_of(front)
    pending = dict(changes)
    out: list[str] = []
    for key, start, end in _key_blocks(lines):
        if key is None or key not in pending:
            out.extend(lines[start:end])
            continue
        value = pending.pop(key)
        if value is not DELETE:
            indent = _block_indent(lines[start:end])
            written = key_lines(key, value, newline, block_indent=indent)
            out.append(
                _keep_comment(written, lines[start], newline) if end - start == 1 else written
            )
    if out and not out[-1].endswith("\n"):
        out[-1] += newline
    out.extend(key_lines(k, v, newline) for k, v in pending.items() if v is not DELETE)
    return "".join(out)


def _key_blocks(lines: list[str]) -> list[tuple[str | None, int, int]]:
    """Top-level keys with the line range each spans; other lines (comments) on their own."""
    blocks: list[tuple[str | None, int, int]] = []
    for index, line in enumerate(lines):
        key = line_key(line)
        if key is not None:
            blocks.append((key, index, index + 1))
        elif blocks and blocks[-1][0] is not None and _continues(line):
            key, start, _ = blocks[-1]
            blocks[-1] = (key, start, index + 1)
        else:
            blocks.append((None, index, index + 1))
    return _trim_blank_tails(blocks, lines)


def _trim_blank_tails(
    blocks: list[tuple[str | None, int, int]], lines: list[str]
) -> list[tuple[str | None, int, int]]:
    """Blank lines after a key's last value line stay in place when the key is rewritten."""
    trimmed: list[tuple[str | None, int, int]] = []
    for key, start, end in blocks:
        last = end
        while key is not None and last - 1 > start and is_blank(lines[last - 1]):
            last -= 1
        trimmed.append((key, start, last))
        trimmed.extend((None, index, index + 1) for index in range(last, end))
    return trimmed


def _continues(line: str) -> bool:
    """A line that belongs to the key above it: indented, a `- ` list item, or blank."""
    return line[:1] in (" ", "\t", "-") or is_blank(line)


_TRAILING_COMMENT = re.compile(
    r"""^[^:]*:[ \t]*(?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^#'"\r\n]*?)([ \t]+#[^\r\n]*)\r?\n?$"""
)


def _keep_comment(text: str, old_line: str, newline: str) -> str:
    """Carry a `  # comment` at the end of the old line over to the rewritten one."""
    found = _TRAILING_COMMENT.match(old_line)
    if not found or "\n" in text.removesuffix(newline):
        return text
    return text.removesuffix(newline) + found.group(1) + newline


def _block_indent(lines: list[str]) -> str | None:
    """The `- ` item prefix of a block-style list (`'  '` for `  - a`), else None."""
    for line in lines[1:]:
        stripped = line.lstrip(" ")
        if stripped.startswith("- ") or stripped.rstrip() == "-":
            return line[: len(line) - len(stripped)]
    return None


def from_bytes(data: bytes, rel: str) -> Task:
    """Parse one file's bytes (`rel` is its path under the root); the stem is the fallback id."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotUtf8(rel, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    return loads(text, path=rel, stem=rel.rsplit("/", 1)[-1].removesuffix(".md"))
