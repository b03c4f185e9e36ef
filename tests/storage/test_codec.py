"""The codec: every YAML trap read right, and writes that change only the changed lines."""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
import yaml
import yaml_rs
from hypothesis import example, given, settings
from hypothesis import strategies as st

from storage import codec
from storage.errors import NotATask, ParseError
from storage.model import MAX_ID_LENGTH, is_valid_id, pack_text
from tests.conftest import ODD, examples

PARSEABLE_ODD = sorted(
    path
    for path in ODD.glob("*.md")
    if path.name
    not in {
        "bad-yaml.md",
        "unclosed-frontmatter.md",
        "not-utf8.md",
        "no-frontmatter.md",
        "not-mapping.md",
    }
)


def read(name: str) -> str:
    return (ODD / name).read_bytes().decode("utf-8")


def changed_lines(before: str, after: str) -> list[str]:
    diff = difflib.ndiff(before.splitlines(keepends=True), after.splitlines(keepends=True))
    return [line for line in diff if line[:1] in "+-"]


def test_status_no_is_read_as_the_word_not_a_boolean() -> None:
    task = codec.loads(read("yaml-status-no.md"), path="x.md")
    assert task.status == "no"


def test_id_with_a_leading_zero_keeps_its_zero() -> None:
    task = codec.loads(read("yaml-id-leading-zero.md"), path="x.md")
    assert task.id == "0123"


def test_date_looking_title_stays_the_text_written() -> None:
    task = codec.loads(read("yaml-date-title.md"), path="x.md")
    assert task.title == "2024-01-01"


def test_title_containing_three_dashes_does_not_close_the_frontmatter() -> None:
    task = codec.loads(read("title-with-dashes.md"), path="x.md")
    assert task.title == "Split --- here"
    assert "\n---\n" in task.body


def test_bom_file_is_read_and_written_back_with_its_bom() -> None:
    text = read("bom.md")
    assert text.startswith("\ufeff")
    updated = codec.update_text(text, {"status": "done"})
    assert updated.startswith("\ufeff---")
    assert codec.loads(updated).status == "done"


def test_crlf_file_keeps_crlf_on_every_line_after_an_update() -> None:
    text = read("crlf.md")
    updated = codec.update_text(text, {"status": "done", "brand_new": "x"})
    assert updated.count("\n") == updated.count("\r\n")
    assert "status: done\r\n" in updated
    assert codec.loads(updated).body == codec.loads(text).body


def test_emoji_title_is_read_and_written_back_intact() -> None:
    task = codec.loads(read("emoji.md"), path="emoji.md")
    assert any(ord(ch) > 0xFFFF for ch in task.title)
    assert codec.loads(codec.dumps(task)).title == task.title


def test_file_without_id_takes_its_stem_as_id() -> None:
    task = codec.loads(read("no-id.md"), path="no-id.md", stem="no-id")
    assert task.id == "no-id"


def test_unknown_keys_survive_in_extra() -> None:
    task = codec.loads(read("comments-and-unknown-keys.md"))
    assert task.extra["custom_field"] == "keep me"


@pytest.mark.parametrize("path", PARSEABLE_ODD, ids=lambda p: p.name)
def test_rewriting_nothing_gives_the_same_bytes(path: Path) -> None:
    text = path.read_bytes().decode("utf-8")
    assert codec.update_text(text, {}) == text


@pytest.mark.parametrize(
    "path", [p for p in PARSEABLE_ODD if p.name != "not-a-task.md"], ids=lambda p: p.name
)
def test_changing_status_rewrites_only_the_status_line(path: Path) -> None:
    text = path.read_bytes().decode("utf-8")
    had_status = "\nstatus:" in text.replace("\r\n", "\n")
    updated = codec.update_text(text, {"status": "review"})
    changes = changed_lines(text, updated)
    assert all("status" in line for line in changes), changes
    assert len(changes) == (2 if had_status else 1)
    assert codec.loads(updated, stem=path.stem).status == "review"


def test_comment_at_the_end_of_a_rewritten_line_is_kept() -> None:
    text = read("comments-and-unknown-keys.md")
    updated = codec.update_text(text, {"status": "done"})
    assert "status: done  # trailing comment on a known key\n" in updated
    assert "title: 'Single-quoted title, it''s kept'\n" in updated
    assert 'reviewer: "Double-quoted: with a colon"\n' in updated


def test_block_list_stays_block_style_when_it_grows() -> None:
    text = "---\nid: a\ntitle: T\ndepends_on:\n  - b\n  - c\n\nstatus: active\n---\nbody\n"
    updated = codec.update_text(text, {"depends_on": ["b", "c", "d"]})
    assert updated == (
        "---\nid: a\ntitle: T\ndepends_on:\n  - b\n  - c\n  - d\n\nstatus: active\n---\nbody\n"
    )


def test_deleting_a_key_removes_only_its_lines() -> None:
    text = "---\nid: a\ntitle: T\ntags:\n- x\n- y\nstatus: active\n---\n"
    assert codec.update_text(text, {"tags": codec.DELETE}) == (
        "---\nid: a\ntitle: T\nstatus: active\n---\n"
    )


@pytest.mark.parametrize(
    "value", ["no", "yes", "on", "0123", "1e3", "2024-01-01", "null", "~", "a: b", "# x", " x", ""]
)
def test_strings_yaml_would_retype_are_written_quoted(value: str) -> None:
    text = codec.update_text("---\ntitle: T\n---\n", {"title": value})
    assert text.split("\n")[1] != f"title: {value}"
    assert yaml_rs.loads(text.split("---")[1], parse_datetime=False)["title"] == value  # type: ignore[call-overload]


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        (
            "2026-02-04T16:37:39.524657-08:00",
            datetime(2026, 2, 4, 16, 37, 39, 524657, timezone(timedelta(hours=-8))),
        ),
        ("2026-01-01", datetime(2026, 1, 1, tzinfo=UTC)),
        ("2026-01-01T10:00:00", datetime(2026, 1, 1, 10, tzinfo=UTC)),
        ("2026-01-01T10:00:00.123Z", datetime(2026, 1, 1, 10, 0, 0, 123000, tzinfo=UTC)),
        ("2026-01-01T10:00:00.123456789Z", datetime(2026, 1, 1, 10, 0, 0, 123456, tzinfo=UTC)),
        ("'2026-06-30 11:38'", datetime(2026, 6, 30, 11, 38, tzinfo=UTC)),
    ],
)
def test_timestamps_of_every_shape_become_timezone_aware(written: str, expected: datetime) -> None:
    task = codec.loads(f"---\ntitle: T\nid: a\ncreated: {written}\n---\n")
    assert task.created == expected
    assert task.created is not None and task.created.tzinfo is not None


@pytest.mark.parametrize(
    ("raw", "status"),
    [("in-progress", "in_progress"), ("todo", "active"), ("open", "active"), ("closed", "done"),
     ("completed", "done"), ("queued", "queued"), ("Done", "done")],
)  # fmt: skip
def test_status_aliases_are_normalised_and_unknown_ones_kept(raw: str, status: str) -> None:
    assert codec.loads(f"---\nid: a\ntitle: T\nstatus: {raw}\n---\n").status == status


def test_dumps_then_loads_gives_the_same_task() -> None:
    original = codec.loads(read("comments-and-unknown-keys.md"), path="p.md")
    again = codec.loads(codec.dumps(original), path="p.md")
    assert again == original


@pytest.mark.parametrize(
    ("name", "error", "fragment"),
    [
        ("bad-yaml.md", ParseError, "invalid YAML"),
        ("unclosed-frontmatter.md", ParseError, "not closed"),
        ("not-mapping.md", ParseError, "not a mapping"),
        ("no-frontmatter.md", NotATask, "no frontmatter"),
        ("not-a-task.md", NotATask, "no title"),
    ],
)
def test_unreadable_files_raise_a_parse_error_naming_the_cause(
    name: str, error: type[Exception], fragment: str
) -> None:
    with pytest.raises(error) as info:
        codec.loads(read(name), path=name)
    assert fragment in str(info.value)
    assert name in str(info.value)


def test_yaml_alias_bomb_is_refused_not_expanded() -> None:
    bomb = "---\ntitle: T\na: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{b}: &{b} [*{a}, *{a}, *{a}, *{a}, *{a}, *{a}, *{a}, *{a}, *{a}]\n"
        for a, b in zip("abcdefgh", "bcdefghi", strict=True)
    )
    with pytest.raises(ParseError):
        codec.loads(bomb + "---\n")


def test_an_id_that_could_name_a_path_is_refused() -> None:
    with pytest.raises(ParseError, match="invalid id"):
        codec.loads("---\nid: ../../etc/passwd\ntitle: T\n---\n")


def test_dumps_keeps_the_body_exactly_and_quotes_odd_extra_keys() -> None:
    task = codec.loads("---\nid: a\ntitle: T\n---\nno blank line first\n")
    odd = codec.loads(codec.dumps(replace(task, extra={"has space: x": 1})))
    assert codec.loads(codec.dumps(task)).body == "no blank line first\n"
    assert odd.extra == {"has space: x": 1}


def test_update_text_replaces_the_body_when_given_and_keeps_the_frontmatter() -> None:
    text = "---\nid: a # mine\ntitle: T\n---\nold body\n"
    assert (
        codec.update_text(text, {}, body="new body\n")
        == "---\nid: a # mine\ntitle: T\n---\nnew body\n"
    )


_CLOSING_BY_SEARCH = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.MULTILINE)


def split_by_regex_search(text: str) -> tuple[str, str] | None:
    """The frontmatter and body as the plain regex search cuts them (the reference)."""
    first_end = text.find("\n") + 1 or len(text)
    closing = _CLOSING_BY_SEARCH.search(text, first_end)
    if closing is None:
        return None
    end = closing.end() + 1 if text[closing.end() : closing.end() + 1] == "\n" else closing.end()
    return text[first_end : closing.start()], text[end:]


@given(st.lists(st.sampled_from(["---", "...", "-", ".", " ", "\t", "\r", "\n", "a", ":"])))
@example(["a\n", "...", "\n", "b\n", "---", "\n"])
@example(["a\n", "---", "x\n", "...", " \r\n", "---"])
@settings(max_examples=examples(500))
def test_the_frontmatter_ends_at_the_first_closing_line_whatever_surrounds_it(
    pieces: list[str],
) -> None:
    text = "---\n" + "".join(pieces)
    try:
        parts = codec.split(text)
    except ParseError:
        assert split_by_regex_search(text) is None
    else:
        assert (parts.front, parts.body) == split_by_regex_search(text)


# --- characters a line splitter or a YAML 1.1 reader would treat differently -------------

LINE_BREAKERS = ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\r"]
"""Every character `str.splitlines()` splits on besides `\\n`."""

YAML_11_TRAPS = [
    "0b101", "0o17", "0x1F", "017", "1_000", "+1", "-1", "1e3", "1.5", ".5", ".inf", "-.inf",
    ".nan", "~", "null", "NULL", "y", "n", "Y", "yes", "No", "ON", "off", "true", "False",
    "2024-01-01", "2024-1-1 10:00:00", "12:30", "1:20:30", "190:20:30.15", "=", "<<",
]  # fmt: skip

NOT_PRINTABLE = ["\x00", "\x07", "\x1b", "\x7f", "\x80", "\x9f", "\ufeff", "\ufffe", "\uffff"]
"""Characters YAML forbids raw in a stream (or a BOM, which only belongs at its start)."""


def front_of(text: str) -> str:
    return codec.split(text).front


def both_readers(text: str) -> tuple[dict[str, object], dict[str, object]]:
    """The frontmatter as our reader (YAML 1.2) and as PyYAML (YAML 1.1) read it."""
    ours = codec.parse_front(codec.split(text))
    theirs = yaml.safe_load(front_of(text))
    return ours, theirs


@pytest.mark.parametrize("breaker", LINE_BREAKERS, ids=ascii)
def test_a_title_holding_a_line_breaking_character_survives_an_update_of_another_key(
    breaker: str,
) -> None:
    title = f"a{breaker}status: done"
    text = codec.update_text("---\nid: a\ntitle: T\nstatus: active\n---\nbody\n", {"title": title})
    updated = codec.update_text(text, {"status": "blocked"})
    task = codec.loads(updated)
    assert (task.title, task.status, task.body) == (title, "blocked", "body\n")
    assert changed_lines(text, updated) == ["- status: active\n", "+ status: blocked\n"]


@pytest.mark.parametrize("breaker", ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c"], ids=ascii)
def test_a_raw_line_separator_in_a_hand_written_value_does_not_split_its_line(
    breaker: str,
) -> None:
    text = f'---\nid: a\ntitle: "x{breaker}status: done"\nstatus: active\n---\n'
    updated = codec.update_text(text, {"status": "blocked"})
    assert updated == text.replace("status: active", "status: blocked")
    assert codec.loads(updated).title == f"x{breaker}status: done"


def test_a_lone_carriage_return_is_a_line_break_for_the_rewriter_as_for_yaml() -> None:
    text = "---\nid: a\ntitle: T\rstatus: active\n---\n"
    assert codec.loads(text).status == "active"
    updated = codec.update_text(text, {"status": "blocked"})
    assert codec.loads(updated).status == "blocked"
    assert updated == "---\nid: a\ntitle: T\rstatus: blocked\n---\n"


@pytest.mark.parametrize("value", YAML_11_TRAPS)
def test_strings_yaml_1_1_would_retype_read_the_same_through_pyyaml_and_ours(value: str) -> None:
    text = codec.update_text("---\ntitle: T\n---\n", {"tag": value, "tags": [value]})
    ours, theirs = both_readers(text)
    assert ours["tag"] == theirs["tag"] == value
    assert ours["tags"] == theirs["tags"] == [value]


@pytest.mark.parametrize("char", NOT_PRINTABLE + LINE_BREAKERS, ids=ascii)
def test_characters_yaml_cannot_hold_raw_are_written_escaped_and_read_back(char: str) -> None:
    value = f"a{char}b"
    text = codec.update_text("---\ntitle: T\n---\n", {"title": value, f"k{char}": [value]})
    assert char not in front_of(text)
    ours, theirs = both_readers(text)
    assert ours == theirs == {"title": value, f"k{char}": [value]}


@pytest.mark.parametrize("number", [1e20, -2.5e-7, 0.1, float("inf"), float("-inf"), 10**30])
def test_numbers_are_written_so_both_readers_read_the_same_number(number: float) -> None:
    text = codec.update_text("---\ntitle: T\n---\n", {"estimate": number})
    ours, theirs = both_readers(text)
    assert ours["estimate"] == theirs["estimate"] == number


def test_not_a_number_is_written_so_both_readers_read_not_a_number() -> None:
    text = codec.update_text("---\ntitle: T\n---\n", {"estimate": float("nan")})
    ours, theirs = both_readers(text)
    assert math.isnan(ours["estimate"]) and math.isnan(theirs["estimate"])  # type: ignore[arg-type]


def test_nested_values_in_unknown_keys_are_escaped_like_top_level_ones() -> None:
    nested = {"a\u2028b": ["x\u2029y", {"k": "0b101", "n": 1e20}], "c": None, "d": True}
    text = codec.update_text("---\ntitle: T\n---\n", {"meta": nested})
    assert "\u2028" not in front_of(text) and "\u2029" not in front_of(text)
    ours, theirs = both_readers(text)
    assert ours["meta"] == theirs["meta"] == nested


@pytest.mark.parametrize("value", ["a\ud800b", ["ok", "\udfff"], {"k": "\ud83d"}], ids=ascii)
def test_a_value_utf8_cannot_hold_is_refused_with_a_clear_error(value: object) -> None:
    with pytest.raises(codec.Unrepresentable, match="surrogate"):
        codec.update_text("---\ntitle: T\n---\n", {"title": value})


def test_a_task_utf8_cannot_hold_is_refused_before_any_text_is_made() -> None:
    task = codec.loads("---\nid: a\ntitle: T\n---\n")
    with pytest.raises(codec.Unrepresentable):
        codec.dumps(replace(task, packed_body=pack_text("lone \udc80 surrogate")))


# --- ids ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "task_id", ["abc\n", "abc\r\n", "\nabc", "a\nb", "abc\u2028", "a b"], ids=ascii
)
def test_an_id_with_a_line_break_or_space_anywhere_is_invalid(task_id: str) -> None:
    assert not is_valid_id(task_id)


def test_an_id_is_valid_up_to_its_length_cap_and_invalid_past_it() -> None:
    assert is_valid_id("a" * MAX_ID_LENGTH)
    assert not is_valid_id("a" * (MAX_ID_LENGTH + 1))
    assert MAX_ID_LENGTH == 255


def test_a_file_whose_id_ends_in_a_newline_is_a_parse_error_not_a_task() -> None:
    with pytest.raises(ParseError, match="invalid id"):
        codec.loads('---\nid: "abc\\n"\ntitle: T\n---\n', path="x.md")


@pytest.mark.parametrize(
    "front", ["title: T\x00x\nid: a\n", "\x00\ntitle: T\n", "title: T\nid: a\x00\n"], ids=ascii
)
def test_a_nul_in_the_frontmatter_is_a_parse_error_not_a_silent_end_of_the_file(
    front: str,
) -> None:
    with pytest.raises(ParseError, match="NUL"):
        codec.loads(f"---\n{front}---\n", path="x.md")


@pytest.mark.parametrize(
    ("line", "key"),
    [('"k\\u2028": 1', "k\u2028"), ('"a: b": 1', "a: b"), ("'it''s': 1", "it's"),
     ('"say \\"hi\\"": 1', 'say "hi"')],
)  # fmt: skip
def test_a_quoted_key_is_rewritten_in_place_not_added_twice(line: str, key: str) -> None:
    text = f"---\nid: a\ntitle: T\n{line}\nstatus: active\n---\n"
    updated = codec.update_text(text, {key: 2})
    assert codec.parse_front(codec.split(updated)) == {
        "id": "a", "title": "T", key: 2, "status": "active",
    }  # fmt: skip
    assert changed_lines(text, updated)[0] == f"- {line}\n"


def test_a_mapping_used_as_a_key_is_a_parse_error_not_a_crash() -> None:
    """Found by the codec fuzz: `? ` with an empty key and value makes a mapping key."""
    with pytest.raises(ParseError, match="not a scalar"):
        codec.loads("---\n? : title: \n---\n", path="k.md")


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
def test_a_line_opening_over_a_thousand_levels_is_refused_after_any_line_ending(
    ending: str,
) -> None:
    deep = "- " * 1001 + "x"
    with pytest.raises(ParseError, match="opens over 1000 levels"):
        codec.loads(f"---\ntitle: T{ending}k:{ending}{deep}\n---\n", path="d.md")
    long = "a " * 400  # past what is read whole without a look at each line
    loaded = codec.loads(f"---\ntitle: T\nk: {long}\n---\n", path="s.md", stem="s")
    assert loaded.extra["k"] == long.strip()
