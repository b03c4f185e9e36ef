"""Server processes and an editor process on one tree (`tests/reliability/editor.py`,
saving in place and by rename): every write a server acknowledged and every save the
editor made is in the files at the end, and no reader ever answered from a file caught
half-written.

In the first test each of four server clients adds its own tag with `update_task`,
passing the `file_modified` it read and retrying on CONFLICT. In the second, one client
runs the batch tools (`complete_task`, `complete_tasks`, `reorder_children`), round after
round on fresh tasks, with the editor saving those very files: a save that lands while a
batch is applied must be kept and the batch answer CONFLICT (then it is tried again). The
editor appends body lines. Figures are printed (`pytest -s`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from storage import codec
from storage.model import Task
from tests.conftest import REPO, write
from tests.reliability.editor import merged
from tests.reliability.stdio import ServerProcess
from tests.reliability.test_kill import leftovers

SEED = int(os.environ.get("RELIABILITY_SEED", "20261122"))
SERVERS = 4
WRITES = 15  # acknowledged writes per server
TRIES = 400  # per write, at most
FILES = {"t1": "p/tasks/t1.md", "t2": "p/tasks/t2.md"}


class Client(threading.Thread):
    """One server process and the writes it acknowledged."""

    def __init__(self, root: Path, number: int) -> None:
        super().__init__(name=f"server-{number}")
        self.root, self.number = root, number
        self.acked: list[tuple[str, str]] = []
        self.answers: Counter[str] = Counter()
        self.messages: list[str] = []  # of errors other than CONFLICT
        self.failure: BaseException | None = None

    def run(self) -> None:
        try:
            with ServerProcess(self.root) as server:
                for n in range(WRITES):
                    self._write(server, sorted(FILES)[n % len(FILES)], f"s{self.number}-{n:03d}")
                server.close()
        except BaseException as exc:  # reported by the test thread
            self.failure = exc

    def _write(self, server: ServerProcess, task_id: str, tag: str) -> None:
        for _ in range(TRIES):
            read = server.call("get_task", task_id=task_id)
            self.answers["get_task " + read.get("error", "ok")] += 1
            if "error" in read:
                continue
            task: dict[str, Any] = read["task"]
            done = server.call(
                "update_task",
                task_id=task_id,
                tags=[*task["tags"], tag],
                expected_modified=task["file_modified"],
            )
            self.answers["update_task " + done.get("error", "ok")] += 1
            if done.get("error") not in (None, "CONFLICT"):
                self.messages.append(done["message"])
            if "error" not in done:
                self.acked.append((task_id, tag))
                return
        raise AssertionError(f"{tag} not written in {TRIES} tries")


def _editor(
    root: Path, stop: Path, files: list[str], pause: float = 0.003
) -> subprocess.Popen[bytes]:
    """The editor process, saving `files` with a random pause of up to `pause` seconds."""
    command = ["-m", "tests.reliability.editor", str(root), str(stop), str(SEED)]
    return subprocess.Popen(
        [sys.executable, *command, *files],
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO), "EDITOR_PAUSE": str(pause)},
    )


def _tasks(root: Path, relatives: Iterable[str]) -> dict[str, Task]:
    return {r: codec.from_bytes((root / r).read_bytes(), r) for r in relatives}


def _lost_saves(report: dict[str, Any], files: dict[str, Task]) -> list[str]:
    """The editor's lines that are not in the bodies of the files it saved them in."""
    return [
        line
        for relative, lines in report["saved"].items()
        for line in lines
        if line not in files[relative].body.splitlines()
    ]


@pytest.mark.deep
def test_servers_and_an_editor_on_one_tree_lose_no_write_and_no_save(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    for task_id, relative in FILES.items():
        write(root, relative, f"---\nid: {task_id}\ntitle: Shared {task_id}\ntags: []\n---\n")
    stop = tmp_path / "stop"
    editor = _editor(root, stop, sorted(FILES.values()))
    clients = [Client(root, number) for number in range(SERVERS)]
    for client in clients:
        client.start()
    for client in clients:
        client.join(timeout=300)
    stop.touch()
    out, _ = editor.communicate(timeout=60)
    assert editor.returncode == 0
    assert [c.failure for c in clients] == [None] * SERVERS
    report = json.loads(out)
    files = _tasks(root, FILES.values())
    lost_writes = [
        (task_id, tag)
        for client in clients
        for task_id, tag in client.acked
        if tag not in files[FILES[task_id]].tags
    ]
    lost_saves = _lost_saves(report, files)
    answers = sum((c.answers for c in clients), Counter[str]())
    acked = sum(len(c.acked) for c in clients)
    saves = sum(len(lines) for lines in report["saved"].values())
    print(
        f"\nwrites acknowledged {acked}, lost {len(lost_writes)}; editor saves {saves} "
        f"({report['counts']}), lost {len(lost_saves)}; answers {dict(sorted(answers.items()))}"
    )
    assert (lost_writes, lost_saves) == ([], [])
    assert [m for c in clients for m in c.messages] == []
    assert acked == SERVERS * WRITES
    assert {k for k in answers if k.startswith("get_task")} == {"get_task ok"}
    assert leftovers(root) == []


ROUNDS = 25  # per batch tool, each on fresh tasks
BATCH_PAUSE = 0.02  # an editor saving a batch's few files faster leaves it no turn at all
TASK = "---\nid: {id}\ntitle: {id}\nstatus: active\n{extra}---\n"


def _batch_tree(root: Path) -> list[tuple[str, dict[str, Any], list[str]]]:
    """Per round and tool: (tool, arguments, the files it writes)."""
    calls: list[tuple[str, dict[str, Any], list[str]]] = []
    for r in range(ROUNDS):
        write(root, f"a/a{r}.md", TASK.format(id=f"a{r}", extra=""))
        calls.append(("complete_task", {"task_id": f"a{r}"}, [f"a/a{r}.md"]))
        ids = [f"b{r}-{n}" for n in range(3)]
        for i in ids:
            write(root, f"b/{i}.md", TASK.format(id=i, extra=""))
        calls.append(("complete_tasks", {"task_ids": ids}, [f"b/{i}.md" for i in ids]))
        write(root, f"o/o{r}.md", TASK.format(id=f"o{r}", extra=""))
        children = [f"o{r}-{n}" for n in range(3)]
        for n, i in enumerate(children):
            write(root, f"o/{i}.md", TASK.format(id=i, extra=f"parent: o{r}\norder: {n}\n"))
        order = {"parent_id": f"o{r}", "order": children[::-1]}
        calls.append(("reorder_children", order, [f"o/{i}.md" for i in children]))
    return calls


def _unwritten(tool: str, args: dict[str, Any], tasks: dict[str, Task]) -> list[str]:
    """The ids whose file does not hold what an acknowledged call wrote."""
    if tool == "reorder_children":
        return [i for n, i in enumerate(args["order"]) if tasks[i].order != n]
    ids = args["task_ids"] if tool == "complete_tasks" else [args["task_id"]]
    return [i for i in ids if tasks[i].status != "done"]


def _run_batches(
    server: ServerProcess, calls: list[tuple[str, dict[str, Any], list[str]]], hot: Path
) -> Counter[str]:
    """Each call tried until acknowledged, the editor moved onto its files first."""
    answers: Counter[str] = Counter()
    for tool, args, files in calls:
        (hot.parent / "hot.new").write_text("\n".join(files))
        os.replace(hot.parent / "hot.new", hot)
        for _ in range(TRIES):
            answer = server.call(tool, **args)
            answers[f"{tool} {answer.get('error', 'ok')}"] += 1
            if "error" not in answer:
                break
            assert answer["error"] == "CONFLICT", answer["message"]
        else:
            raise AssertionError(f"{tool} {args} not written in {TRIES} tries")
    return answers


@pytest.mark.deep
def test_batch_tools_racing_an_editor_lose_no_write_and_no_save(tmp_path: Path) -> None:
    root, stop, hot = tmp_path / "tree", tmp_path / "stop", tmp_path / "hot"
    calls = _batch_tree(root)
    hot.write_text(calls[0][2][0])
    editor = _editor(root, stop, [f"@{hot}"], BATCH_PAUSE)
    try:
        with ServerProcess(root) as server:
            answers = _run_batches(server, calls, hot)
            server.close()
    finally:
        stop.touch()
        out, _ = editor.communicate(timeout=60)
    assert editor.returncode == 0
    report = json.loads(out)
    files = _tasks(root, [str(p.relative_to(root)) for p in root.glob("?/*.md")])
    tasks = {t.id: t for t in files.values()}
    lost_writes = [i for tool, args, _ in calls for i in _unwritten(tool, args, tasks)]
    lost_saves = _lost_saves(report, files)
    saves = sum(len(lines) for lines in report["saved"].values())
    print(
        f"\nbatches acknowledged {len(calls)}, writes lost {len(lost_writes)}; editor saves "
        f"{saves} ({report['counts']}), lost {len(lost_saves)}; answers {dict(answers)}"
    )
    assert (lost_writes, lost_saves) == ([], [])
    assert leftovers(root) == []


def test_the_editors_merge_makes_only_its_own_change_on_a_servers_write() -> None:
    front = "---\nid: t\ntitle: T\nstatus: {}\norder: {}\ntags: [{}]\n---\nline 1\n"
    base = front.format("active", 0, "a").encode()
    ours = front.format("active", 0, "a, mine").encode() + b"editor-1\n"
    theirs = front.format("done", 2, "a").encode()
    result = codec.from_bytes(merged(base, ours, theirs), "t.md")
    assert (result.status, result.order, result.tags) == ("done", 2, ("a", "mine"))
    assert result.body == "line 1\neditor-1\n"
    assert merged(base, base, theirs) == theirs


def test_the_editors_merge_keeps_a_servers_tag_its_swap_displaced_under_another_servers() -> None:
    # The editor swapped its save (v0 + a line) in over server 2's write, and server 3,
    # which had read v0, wrote its tag on the swapped-in file before the editor's repair.
    front = "---\nid: t2\ntitle: T\ntags: [{}]\n---\n"
    v0, line = front.format("s1-000").encode(), b"editor-1\n"
    swapped_in = v0 + line
    displaced = front.format("s1-000, s2-005").encode()
    wanted = merged(v0, swapped_in, displaced)
    now = front.format("s1-000, s3-001").encode() + line
    repaired = codec.from_bytes(merged(swapped_in, now, wanted), "t2.md")
    assert repaired.tags == ("s1-000", "s2-005", "s3-001")
    assert repaired.body == "editor-1\n"
    removed = codec.from_bytes(merged(v0, front.format("").encode(), displaced), "t2.md")
    assert removed.tags == ("s2-005",)
