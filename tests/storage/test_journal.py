"""The journal's apply phase and its replay: every step in or none, and never over a save."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from storage.journal_steps import Step, apply_steps, digest
from storage.repository import TaskRepository
from tests.conftest import REPO, write

TASK = "---\nid: {id}\ntitle: {title}\nstatus: active\n---\nBody of {id}.\n"
TXID = "0123456789abcdef"
RECORD = f".tasks-index/journal/{TXID}.json"


def _temp(relative: str) -> str:
    folder, _, name = relative.rpartition("/")
    return f"{folder + '/' if folder else ''}.{name}.{TXID}.tasks-journal"


def _stage(root: Path, files: dict[str, str]) -> list[Step]:
    """A committed batch of a writer that died before its apply phase: each of `files`
    (relative path: new title) staged beside its target, and the record written."""
    steps = []
    for relative, title in files.items():
        old = (root / relative).read_bytes()
        new = TASK.format(id=Path(relative).stem, title=title).encode()
        write(root, _temp(relative), new.decode())
        ino = (root / relative).stat().st_ino
        steps.append(Step("replace", relative, ino, digest(old), digest(new)))
    record = {"version": 2, "steps": [step_json(s) for s in steps]}
    write(root, RECORD, json.dumps(record))
    return steps


def step_json(step: Step) -> dict[str, object]:
    return {
        "kind": step.kind,
        "target": step.target,
        "ino": step.ino,
        "old": step.old,
        "new": step.new,
    }


def _tree(root: Path, names: str = "abc") -> None:
    for name in names:
        write(root, f"{name}.md", TASK.format(id=name, title=name.upper()))


def _titles(root: Path) -> dict[str, str]:
    return {t.id: t.title for t in TaskRepository(root).scan().tasks()}


def _located(root: Path) -> Callable[[Step], tuple[Path, Path]]:
    return lambda step: (root / step.target, root / _temp(step.target))


def test_a_replay_completes_a_batch_whose_apply_phase_was_cut_short(tmp_path: Path) -> None:
    _tree(tmp_path)
    steps = _stage(tmp_path, {"a.md": "New A", "b.md": "New B"})
    assert apply_steps(steps[:1], _located(tmp_path)) is None  # the writer died after one
    assert _titles(tmp_path) == {"a": "New A", "b": "New B", "c": "C"}
    assert [p.name for p in tmp_path.rglob(".*.tasks-journal")] == []
    assert not (tmp_path / RECORD).exists()


def test_a_replay_after_an_edit_in_place_rolls_the_batch_back_and_keeps_the_edit(
    tmp_path: Path,
) -> None:
    _tree(tmp_path)
    steps = _stage(tmp_path, {"a.md": "New A", "b.md": "New B"})
    apply_steps(steps[:1], _located(tmp_path))  # a.md is in; then the writer died
    with (tmp_path / "b.md").open("r+") as edited:  # a human saves b.md in place
        edited.write(TASK.format(id="b", title="Human"))
    repository = TaskRepository(tmp_path)
    assert {t.id: t.title for t in repository.scan().tasks()} == {
        "a": "A",
        "b": "Human",
        "c": "C",
    }
    [note] = [r.problem for r in repository.scan().files.values() if r.problem]
    assert note.kind == "write_conflict" and "b.md changed" in note.message


def test_a_replay_after_an_edit_by_rename_rolls_the_batch_back_and_keeps_the_edit(
    tmp_path: Path,
) -> None:
    _tree(tmp_path)
    _stage(tmp_path, {"a.md": "New A", "b.md": "New B", "c.md": "New C"})
    write(tmp_path, "b.md~", TASK.format(id="b", title="Human"))
    os.replace(tmp_path / "b.md~", tmp_path / "b.md")
    assert _titles(tmp_path) == {"a": "A", "b": "Human", "c": "C"}
    assert [p.name for p in tmp_path.rglob(".*.tasks-journal")] == []


def test_a_live_batch_meeting_a_changed_file_puts_back_every_step_it_made(
    tmp_path: Path,
) -> None:
    _tree(tmp_path)
    steps = _stage(tmp_path, {"a.md": "New A", "b.md": "New B", "c.md": "New C"})
    (tmp_path / "c.md").write_text(TASK.format(id="c", title="Saved"))
    assert apply_steps(steps, _located(tmp_path)) == "c.md"
    assert (tmp_path / "a.md").read_text() == TASK.format(id="a", title="A")
    assert (tmp_path / "c.md").read_text() == TASK.format(id="c", title="Saved")


def test_a_new_file_whose_path_was_taken_is_a_conflict_and_the_batch_undone(
    tmp_path: Path,
) -> None:
    _tree(tmp_path, "a")
    steps = _stage(tmp_path, {"a.md": "New A"})
    new = TASK.format(id="n", title="Ours")
    write(tmp_path, _temp("n.md"), new)
    write(tmp_path, "n.md", TASK.format(id="n", title="Theirs"))
    steps.append(Step("create", "n.md", 0, "", digest(new.encode())))
    assert apply_steps(steps, _located(tmp_path)) == "n.md"
    assert (tmp_path / "a.md").read_text() == TASK.format(id="a", title="A")
    assert "Theirs" in (tmp_path / "n.md").read_text()


HOLDER = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.flock(fd, fcntl.LOCK_EX)
print("locked", flush=True)
sys.stdin.readline()
"""


def test_a_reader_waits_for_a_batch_being_applied_and_never_serves_half(tmp_path: Path) -> None:
    _tree(tmp_path)
    repository = TaskRepository(tmp_path)
    before = repository.scan()
    steps = _stage(tmp_path, {"a.md": "New A", "b.md": "New B"})
    seen: list[dict[str, str]] = []

    def read() -> None:
        repository.settle()
        seen.append({t.id: t.title for t in repository.scan(before.files).tasks()})

    with subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(tmp_path / RECORD)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    ) as holder:
        assert holder.stdout is not None and holder.stdout.readline() == b"locked\n"
        apply_steps(steps[:1], _located(tmp_path))  # the live writer is half way
        reader = threading.Thread(target=read)
        reader.start()
        holder.kill()  # the writer dies mid-apply: the waiting reader finishes its batch
    reader.join()
    assert seen == [{"a": "New A", "b": "New B", "c": "C"}]
