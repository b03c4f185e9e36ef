"""The warm-start cache: unchanged files come from it, and a bad cache loses nothing."""

from __future__ import annotations

import base64
import json
import os
import shutil
import zlib
from pathlib import Path
from types import MappingProxyType

import pytest

from storage import cache
from storage.model import Task
from storage.repository import TaskRepository
from storage.table import FileResult, mark_of
from tests.conftest import write

TASK = "---\nid: {id}\ntitle: {title}\nstatus: active\ncreated: 2026-01-02T03:04:05+01:00\n---\nB\n"


def tree(root: Path, count: int = 5) -> Path:
    for n in range(count):
        write(root, f"p/tasks/t{n}.md", TASK.format(id=f"t{n}", title=f"Task {n}"))
    write(root, "broken.md", "---\ntitle: [\n---\n")
    return root


def test_a_saved_cache_gives_back_every_task_and_problem_unchanged(tmp_path: Path) -> None:
    root = tree(tmp_path / "r")
    cold = TaskRepository(root).scan()
    cache.save(root.resolve(), cold.files.values())
    warm = TaskRepository(root).scan(cache.load(root.resolve()))
    assert warm.files == cold.files
    assert warm.problems() == cold.problems()


def test_only_files_whose_stamp_changed_are_read_again(tmp_path: Path) -> None:
    root = tree(tmp_path / "r").resolve()
    cache.save(root, TaskRepository(root).scan().files.values())
    edited = root / "p/tasks/t1.md"
    edited.write_text(TASK.format(id="t1", title="Edited by hand"))
    later = edited.stat().st_mtime_ns + 1_000_000_000
    os.utime(edited, ns=(later, later))
    cached = cache.load(root)
    warm = TaskRepository(root).scan(cached)
    reused = [path for path, result in warm.files.items() if cached.get(path) is result]
    assert sorted(reused) == sorted(set(cached) - {"p/tasks/t1.md"})
    assert warm.winner("t1").title == "Edited by hand"  # type: ignore[union-attr]


def cache_text(files: str, version: str = "VERSION") -> str:
    return f'{{"version": {version}, "root": "ROOT"}}\n[{files}]\n'


MARK = base64.b64encode(mark_of((1, 2), (0, 0))).decode()


def row(task: str = "null", problem: str = "null") -> str:
    return f'{{"path": "p/tasks/t0.md", "mark": "{MARK}", "task": {task}, "problem": {problem}}}'


def task(**fields: str) -> str:
    base = {"id": '"t0"', "title": '"T"', "path": '"p/tasks/t0.md"'} | fields
    return "{" + ", ".join(f'"{key}": {value}' for key, value in base.items()) + "}"


# A zstd frame header claiming 2**40 bytes of content, then a raw block of one byte.
HUGE = base64.b64encode(
    b"\x28\xb5\x2f\xfd\xe0" + (1 << 40).to_bytes(8, "little") + b"\x09\x00\x00x"
).decode()

DAMAGED = {
    "empty": "",
    "not-json": "not json",
    "not-a-mapping": "[1, 2]",
    "no-root": '{"version": VERSION}\n',
    "header-only-half": '{"version": VERSION, "ro',
    "version-4-whole-file": '{"version": 4, "root": "ROOT", "files": []}',
    "other-version": cache_text("", version="999"),
    "the-last-version": cache_text('["p/tasks/t0.md", [1, 2], null, null]', version="2"),
    "rows-as-lists": cache_text('["p/tasks/t0.md", [1, 2], null, null]'),
    "mark-not-base64": cache_text(row().replace(MARK, "not base64!")),
    "mark-cut-short": cache_text(row().replace(MARK, base64.b64encode(b"1234").decode())),
    "cut-short": cache_text(row(task()))[:-1],
    "cut-at-a-line's-end": cache_text(row(task())) + '[{"path": "p/tasks/t1.md"',
    "a-blank-line": cache_text(row(task())) + "\n",
    "task-not-a-task": cache_text(row("[1, 2]")),
    "title-not-text": cache_text(row(task(title="7"))),
    "bad-timestamp": cache_text(row(task(due='"yesterday"'))),
    "unknown-problem-kind": cache_text(
        row(problem='{"path": "p/tasks/t0.md", "kind": "gone", "message": ""}')
    ),
    "task-of-another-path": cache_text(row(task(path='"elsewhere.md"'))),
    "problem-of-another-path": cache_text(
        row(problem='{"path": "elsewhere.md", "kind": "parse_error", "message": ""}')
    ),
    "a-bad-row-after-good-ones": cache_text(
        row(task()) + ", " + row(task()) + ", " + row(task(path='"elsewhere.md"'))
    ),
    "body-not-packed": cache_text(row(task(packed_body='"bm90IHpzdGQ="'))),
    "body-claiming-a-huge-size": cache_text(row(task(packed_body=f'"{HUGE}"'))),
    "nested-too-deep": cache_text(row(task(extra='{"x": ' + "[" * 100_000 + "]" * 100_000 + "}"))),
}


@pytest.mark.parametrize("damage", DAMAGED.values(), ids=DAMAGED.keys())
def test_a_damaged_cache_means_a_full_read_and_loses_nothing(tmp_path: Path, damage: str) -> None:
    root = tree(tmp_path / "r").resolve()
    path = root / cache.CACHE_FILE
    path.parent.mkdir(parents=True)
    text = damage.replace("VERSION", str(cache.VERSION)).replace("ROOT", str(root))
    path.write_text(text)
    assert cache.load(root) == {}
    assert len(TaskRepository(root).scan(cache.load(root)).tasks()) == 5


def test_a_cache_of_bodies_deflated_by_the_last_version_is_read_again_from_the_files(
    tmp_path: Path,
) -> None:
    """Version 5 held each body raw-deflated; bodies are zstd frames now, so such a cache
    is set aside whole (a cold start, once) rather than its bodies read as zstd."""
    root = tree(tmp_path / "r").resolve()
    packer = zlib.compressobj(6, zlib.DEFLATED, -15)
    deflated = base64.b64encode(packer.compress(b"Old body\n") + packer.flush()).decode()
    text = cache_text(row(task(packed_body=f'"{deflated}"')), version="5")
    (root / cache.CACHE_FILE).parent.mkdir(parents=True)
    (root / cache.CACHE_FILE).write_text(text.replace("ROOT", str(root)))
    assert cache.load(root) == {}
    assert TaskRepository(root).scan(cache.load(root)).winner("t0").body == "B\n"  # type: ignore[union-attr]


def test_a_well_formed_cache_row_is_used(tmp_path: Path) -> None:
    """Each damaged cache above differs from this one in one place."""
    root = tmp_path.resolve()
    text = cache_text(row(task())).replace("VERSION", str(cache.VERSION)).replace("ROOT", str(root))
    assert cache.loads(text.encode(), root)["p/tasks/t0.md"].task.title == "T"  # type: ignore[union-attr]


def test_a_cache_copied_with_its_tree_to_another_place_is_not_trusted(tmp_path: Path) -> None:
    first = tree(tmp_path / "first").resolve()
    cache.save(first, TaskRepository(first).scan().files.values())
    second = tmp_path / "second"
    shutil.copytree(first, second)
    assert cache.load(second.resolve()) == {}


def test_the_cache_is_not_read_as_a_task_file(tmp_path: Path) -> None:
    root = tree(tmp_path / "r").resolve()
    cache.save(root, TaskRepository(root).scan().files.values())
    header = (root / cache.CACHE_FILE).read_text().splitlines()[0]
    assert json.loads(header)["version"] == cache.VERSION
    assert all(not p.startswith(".tasks-index") for p in TaskRepository(root).iter_paths())


INEXACT = {
    "number-key": "x: {1: a}",
    "list-key": "x: {[1, 2]: a}",
    "nested-number-key": "x: [{true: a}]",
    "not-a-number": "x: .nan",
    "infinite": "x: -.inf",
    "seconds-in-offset": "due: 2026-01-02T03:04:05+05:30:15",
}


@pytest.mark.parametrize("line", INEXACT.values(), ids=INEXACT.keys())
def test_a_task_json_would_alter_is_left_out_of_the_cache_and_read_again(
    tmp_path: Path, line: str
) -> None:
    root = tree(tmp_path / "r").resolve()
    write(root, "odd.md", f"---\nid: odd\ntitle: Odd\n{line}\n---\n")
    cold = TaskRepository(root).scan()
    cache.save(root, cold.files.values())
    cached = cache.load(root)
    assert "odd.md" not in cached
    assert set(cached) == set(cold.files) - {"odd.md"}
    warm = TaskRepository(root).scan(cached)
    assert repr(warm.files["odd.md"]) == repr(cold.files["odd.md"])


def test_a_cached_task_is_read_only_like_a_parsed_one(tmp_path: Path) -> None:
    root = tree(tmp_path / "r").resolve()
    write(root, "x.md", "---\nid: x\ntitle: X\nowner: {name: Ann, tags: [a, 1, 2.5, null]}\n---\n")
    cold = TaskRepository(root).scan()
    cache.save(root, cold.files.values())
    warm = cache.load(root)["x.md"].task
    assert warm == cold.files["x.md"].task
    assert warm is not None and isinstance(warm.extra, MappingProxyType)
    with pytest.raises(TypeError):
        warm.extra["owner"] = "Bob"  # type: ignore[index]


def test_a_cached_task_without_extra_keys_has_a_read_only_empty_extra(tmp_path: Path) -> None:
    root = tree(tmp_path / "r").resolve()
    cache.save(root, TaskRepository(root).scan().files.values())
    for result in cache.load(root).values():
        if result.task is not None:
            assert isinstance(result.task.extra, MappingProxyType) and not result.task.extra


@pytest.mark.parametrize("warm", [False, True], ids=["parsed", "from the cache"])
def test_a_loaded_task_shares_its_repeated_strings_with_the_tasks_it_names(
    tmp_path: Path, warm: bool
) -> None:
    root = tree(tmp_path / "r").resolve()
    write(root, "a.md", "---\nid: a\ntitle: A\nstatus: active\nproject: p\ntags: [x]\n---\n")
    text = "---\nid: b\ntitle: B\nstatus: active\nproject: p\nparent: a\ntags: [x]\n"
    write(root, "b.md", text + "depends_on: [a]\nsoft_depends_on: [a]\n---\n")
    files = TaskRepository(root).scan().files
    if warm:
        cache.save(root, files.values())
        files = cache.load(root)
    a, b = files["a.md"].task, files["b.md"].task
    assert a is not None and b is not None
    assert b.parent is a.id and b.depends_on[0] is a.id and b.soft_depends_on[0] is a.id
    assert (b.status, b.project, b.tags[0]) == (a.status, a.project, a.tags[0])
    assert b.status is a.status and b.project is a.project and b.tags[0] is a.tags[0]
    assert files["b.md"].path is b.path


def test_a_same_size_edit_with_its_modification_time_put_back_is_read_again(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, "a.md", "---\nid: a\ntitle: Old title\n---\n")
    repository = TaskRepository(tmp_path)
    cache.save(tmp_path, repository.scan().files.values())
    before = path.stat()
    path.write_text("---\nid: a\ntitle: New title\n---\n")  # same size, while stopped
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_mtime_ns == before.st_mtime_ns
    table = TaskRepository(tmp_path).scan(cache.load(tmp_path))
    assert [t.title for t in table.tasks()] == ["New title"]


def test_a_cache_of_many_files_is_written_a_line_of_rows_at_a_time(tmp_path: Path) -> None:
    results = [FileResult.of(f"t{n}.md", (n, 10), Task(id=f"t{n}", title="T", path=f"t{n}.md"))
               for n in range(2 * cache.FRAME_ROWS + 1)]  # fmt: skip
    cache.save(tmp_path, results)
    lines = (tmp_path / cache.CACHE_FILE).read_bytes().splitlines()
    assert [len(json.loads(line)) for line in lines[1:]] == [cache.FRAME_ROWS] * 2 + [1]
    assert cache.load(tmp_path) == {result.path: result for result in results}


def test_a_line_holds_fewer_rows_when_their_files_are_large(tmp_path: Path) -> None:
    big = cache.FRAME_FILE_BYTES // 2
    results = [FileResult.of(f"t{n}.md", (n, big), Task(id=f"t{n}", title="T", path=f"t{n}.md"))
               for n in range(5)]  # fmt: skip
    lines = cache.dumps(tmp_path, results).splitlines()
    assert [len(json.loads(line)) for line in lines[1:]] == [2, 2, 1]


def test_a_line_longer_than_the_cap_means_a_full_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tree(tmp_path / "r").resolve()
    cache.save(root, TaskRepository(root).scan().files.values())
    assert cache.load(root) != {}
    longest = max(map(len, (root / cache.CACHE_FILE).read_bytes().splitlines(keepends=True)))
    monkeypatch.setattr(cache, "MAX_FRAME_BYTES", longest - 1)
    assert cache.load(root) == {}


def test_a_packed_body_comes_back_from_the_cache_as_the_same_bytes(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    write(root, "a.md", "---\nid: a\ntitle: A\n---\n" + "Body \u00e9\r\n" * 50)
    cold = TaskRepository(root).scan()
    cache.save(root, cold.files.values())
    warm = cache.load(root)["a.md"].task
    assert warm is not None and warm.body == "Body \u00e9\r\n" * 50
    assert warm.packed_body == cold.files["a.md"].task.packed_body  # type: ignore[union-attr]


def test_a_save_removes_the_cache_file_of_an_older_version(tmp_path: Path) -> None:
    root = tree(tmp_path / "r").resolve()
    old = root / ".tasks-index" / "files.json"
    old.parent.mkdir()
    old.write_text('{"version": 4, "root": "", "files": []}')
    cache.save(root, TaskRepository(root).scan().files.values())
    assert not old.exists() and (root / cache.CACHE_FILE).exists()


def test_facts_are_given_only_to_the_cache_they_were_saved_with(tmp_path: Path) -> None:
    cache.save(tmp_path, [], "token-1")
    assert cache.load_tagged(tmp_path) == ({}, "token-1")
    cache.save_facts(tmp_path, "token-1", b"\x00facts\nwith a newline")
    assert cache.load_facts(tmp_path, "token-1") == b"\x00facts\nwith a newline"
    assert cache.load_facts(tmp_path, "token-2") is None
    assert cache.load_facts(tmp_path, "") is None  # a cache that names no token
    cache.save(tmp_path, [])  # an older server's save: no token, so no facts fit it
    assert cache.load_tagged(tmp_path)[1] == ""


def test_facts_behind_a_link_are_not_read(tmp_path: Path) -> None:
    cache.save(tmp_path, [], "t")
    outside = tmp_path / "elsewhere"
    outside.write_bytes(b"t\nfacts")
    (tmp_path / cache.FACTS_FILE).symlink_to(outside)
    assert cache.load_facts(tmp_path, "t") is None
    assert cache.new_token() != cache.new_token()
