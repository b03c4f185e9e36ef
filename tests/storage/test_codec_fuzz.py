"""The codec's write-then-read round trip under hostile values (Unicode line separators, YAML
1.1 literals, control characters, BOM, CRLF): what is written reads back equal, a rewrite
touches only the keys it changes, and what cannot be written is refused before any byte."""

from __future__ import annotations

import difflib
import re
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from storage import codec
from storage.errors import ParseError, WouldNotLoad
from storage.model import Task, pack_text
from storage.repository import TaskRepository
from tests.conftest import examples, write
from tests.storage.task_strategies import (
    extra_keys,
    hostile_text,
    json_values,
    meaning,
    nonblank,
    statuses,
    tasks,
    timestamps,
)

FUZZ = settings(
    max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

# Changes in the shapes the tools hand to update_text, and to unknown keys.
changes = st.fixed_dictionaries(
    {},
    optional={
        "title": nonblank,
        "status": statuses,
        "assignee": nonblank,
        "project": nonblank,
        "tags": st.lists(nonblank, max_size=3),
        "due": timestamps,
        "priority": st.integers(0, 4),
    },
) | st.dictionaries(extra_keys, json_values, max_size=2)


@st.composite
def task_files(draw: st.DrawFn) -> str:
    """A task file as people keep them: maybe CRLF, maybe a BOM, comments and blank lines."""
    text = codec.dumps(draw(tasks()))
    head, rest = text[4:].split("\n---\n", 1)
    lines = head.split("\n")
    for _ in range(draw(st.integers(0, 2))):
        spot = draw(st.integers(0, len(lines)))
        lines.insert(spot, draw(st.sampled_from(["", "# a comment", "   "])))
    text = "---\n" + "\n".join(lines) + "\n---\n" + rest
    if draw(st.booleans()):
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    return ("\ufeff" if draw(st.booleans()) else "") + text


def yaml_lines(text: str) -> list[str]:
    """Lines where YAML breaks them (\\n, \\r\\n, \\r), each with its ending."""
    return re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+", text)


KEY = re.compile(r"\"((?:[^\"\\]|\\.)*)\"|'((?:[^']|'')*)'|([^:]*)")
"""A top-level key as a line starts it: double-quoted, single-quoted (either may hold a
colon, e.g. a timestamp) or plain up to the first colon."""


def removed_keys(before: str, after: str) -> set[str]:
    """The keys of the frontmatter lines a rewrite took out."""
    lines = difflib.ndiff(yaml_lines(before), yaml_lines(after))
    gone = [line[2:] for line in lines if line.startswith("- ")]
    keys = [KEY.match(line) for line in gone if not line.startswith(" ")]
    return {next(part for part in key.groups() if part is not None) for key in keys if key}


@given(tasks())
@FUZZ
def test_every_task_written_reads_back_equal(task: Task) -> None:
    assert codec.loads(codec.dumps(task), path=task.path) == task


@given(task_files())
@FUZZ
def test_dump_of_a_load_keeps_every_field_and_rewriting_nothing_keeps_every_byte(
    text: str,
) -> None:
    task = codec.loads(text, path="p.md")
    assert codec.loads(codec.dumps(task), path="p.md") == task
    assert codec.update_text(text, {}) == text


@given(task_files(), changes)
@example(  # a quoted key holding a colon, rewritten (found by the fuzz)
    text='---\nid: "0123"\ntitle: T\n"2024-1-1 10:00:00": null\n---\n',
    change={"2024-1-1 10:00:00": []},
)
@FUZZ
def test_a_rewrite_reads_back_with_the_changes_and_everything_else_as_it_was(
    text: str, change: dict[str, object]
) -> None:
    updated = codec.update_text(text, change)
    before, after = (codec.parse_front(codec.split(t)) for t in (text, updated))
    assert meaning(after) == meaning({**before, **change})
    assert list(after)[: len(before)] == list(before)
    old, new = codec.split(text), codec.split(updated)
    assert (new.bom, new.body, new.newline) == (old.bom, old.body, old.newline)
    assert all(line.endswith(old.newline) for line in yaml_lines(new.front))
    assert removed_keys(old.front, new.front) <= set(change)


@given(st.lists(st.sampled_from(
    ["---\n", "title: ", "id: ", "status: ", "x", '"', "'", ": ", " #", "- ", "  ", "\t", "\n",
     "\r\n", "\r", "\u2028", "\x85", "\x0c", "\ufeff", "\x00", "&a ", "*a", "[", "{", "0b101",
     "...\n", "|\n", "? "]
)), hostile_text)  # fmt: skip
@FUZZ
def test_any_text_is_a_task_or_a_parse_error_and_an_update_never_breaks_a_readable_file(
    pieces: list[str], title: str
) -> None:
    text = "---\n" + "".join(pieces) + "\n---\nbody\n"
    try:
        meta = codec.parse_front(codec.split(text))
    except ParseError:
        event("a parse error")
        return
    try:
        updated = codec.update_text(text, {"title": title or "T", "status": "blocked"})
    except codec.Unrepresentable:
        event("an update refused")
        return  # refused, nothing to write
    event("an update written")
    again = codec.parse_front(codec.split(updated))
    assert set(again) == set(meta) | {"title", "status"}
    assert (again["title"], again["status"]) == (title or "T", "blocked")


@given(st.sampled_from(["title", "assignee", "tags", "meta"]), st.sampled_from(
    ["\ud800", "a\udfffb", "\ud83d"]
))  # fmt: skip
@settings(max_examples=examples(20), deadline=None)
def test_a_value_utf8_cannot_hold_is_refused_and_the_file_is_left_as_it_was(
    key: str, bad: str
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        path = write(root, "a.md", "---\nid: a\ntitle: T\n---\nbody\n")
        value: object = [bad] if key == "tags" else {"k": bad} if key == "meta" else bad
        with pytest.raises(codec.Unrepresentable, match="surrogate"):
            TaskRepository(root).update("a.md", {key: value})
        assert path.read_bytes() == b"---\nid: a\ntitle: T\n---\nbody\n"


def test_a_task_that_would_not_read_back_as_a_task_is_refused() -> None:
    task = codec.loads("---\nid: a\ntitle: T\n---\n", path="p.md")
    for broken in (replace(task, title="  "), replace(task, extra={"status": "x"})):
        with pytest.raises(WouldNotLoad, match="would not read back"):
            codec.dumps(broken)
    with pytest.raises(codec.Unrepresentable, match="surrogate"):
        codec.dumps(replace(task, packed_body=pack_text("\udc80")))


@given(st.sampled_from(["title", "status"]), statuses)
@settings(max_examples=examples(50), deadline=None)
def test_a_status_or_title_from_the_hostile_set_is_written_and_read_back(
    key: str, value: str
) -> None:
    updated = codec.update_text("---\nid: a\ntitle: T\nstatus: active\n---\n", {key: value})
    assert getattr(codec.loads(updated), key) == (value.strip() if key == "title" else value)
