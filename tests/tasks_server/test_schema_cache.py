"""The built-in tools' schemas kept across starts (`edge.schema_cache`): what is read back is
what the models make, a cache of other code is never read, and a broken or unwritable cache
never stops a start."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

from tasks_server.edge.schema_cache import PREFIX, SchemaCache, _sources, fingerprint
from tasks_server.edge.server import published
from tasks_server.registry import discover
from tasks_server.spec import ToolSpec


def _specs() -> list[ToolSpec]:
    return discover()


def _made_by(cache: SchemaCache) -> list[str]:
    """Which specs `cache` had to make (the rest it read)."""
    made: list[str] = []

    def make(spec: ToolSpec) -> tuple[dict[str, object], dict[str, object]]:
        made.append(spec.name)
        return published(spec)

    for spec in _specs():
        cache.schemas(spec, make)
    return made


def test_schemas_read_back_at_the_next_start_are_the_ones_the_models_make(
    tmp_path: Path,
) -> None:
    first = SchemaCache.open(tmp_path)
    assert _made_by(first) == [spec.name for spec in _specs()]
    first.save()
    again = SchemaCache.open(tmp_path)
    assert _made_by(again) == []
    assert all(again.schemas(spec, published) == published(spec) for spec in _specs())


def test_a_cache_written_by_other_code_is_never_read_and_is_removed(tmp_path: Path) -> None:
    spec = _specs()[0]
    other = tmp_path / f"{PREFIX}{'0' * 32}.json"
    other.write_text(json.dumps({f"tool {spec.name}": [{"wrong": 1}, {"wrong": 2}]}))
    cache = SchemaCache.open(tmp_path)
    assert cache.schemas(spec, published) == published(spec)
    cache.save()
    assert not other.exists()
    assert [path.name for path in tmp_path.iterdir()] == [f"{PREFIX}{fingerprint()}.json"]


def test_a_torn_or_misshapen_cache_is_made_again(tmp_path: Path) -> None:
    spec = _specs()[0]
    path = tmp_path / f"{PREFIX}{fingerprint()}.json"
    for text in ('{"tool ', "[1, 2]", json.dumps({f"tool {spec.name}": [{}]})):
        path.write_text(text)
        cache = SchemaCache.open(tmp_path)
        assert cache.schemas(spec, published) == published(spec)
        cache.save()
        assert json.loads(path.read_text())[f"tool {spec.name}"] == list(published(spec))


def test_a_tool_not_declared_in_code_is_made_at_every_start_and_never_kept(
    tmp_path: Path,
) -> None:
    generated = replace(_specs()[0], name="story_bot_tool")  # as a bot's config makes one
    cache = SchemaCache.open(tmp_path)
    assert cache.schemas(generated, published) == published(generated)
    cache.save()
    assert not list(tmp_path.iterdir())


def test_a_folder_that_cannot_be_written_leaves_no_cache_and_the_start_goes_on(
    tmp_path: Path,
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    cache = SchemaCache.open(blocked)
    assert cache.schemas(_specs()[0], published) == published(_specs()[0])
    cache.save()  # no folder can be made where a file is: nothing written, nothing raised
    assert blocked.read_text() == ""


def test_editing_a_source_file_changes_what_the_code_is_named_by(tmp_path: Path) -> None:
    source = tmp_path / "module.py"
    source.write_text("A = 1\n")
    (tmp_path / "notes.md").write_text("not code")
    before = list(_sources(tmp_path))
    os.utime(source, ns=(1, 1))
    touched = list(_sources(tmp_path))
    source.write_text("A = 22\n")
    os.utime(source, ns=(1, 1))
    assert len({tuple(before), tuple(touched), tuple(_sources(tmp_path))}) == 3
    assert len(before) == 1 and fingerprint() == fingerprint()
