"""Four server processes and an editor process on one tree (`tests/reliability/editor.py`,
saving in place and by rename): every write a server acknowledged and every save the
editor made is in the files at the end, and no reader ever answered from a file caught
half-written.

Each server client adds its own tag with `update_task`, passing the `file_modified` it
read and retrying on CONFLICT; the editor appends body lines. Figures are printed
(`pytest -s`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from storage import codec
from tests.conftest import REPO, write
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


@pytest.mark.deep
def test_servers_and_an_editor_on_one_tree_lose_no_write_and_no_save(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    for task_id, relative in FILES.items():
        write(root, relative, f"---\nid: {task_id}\ntitle: Shared {task_id}\ntags: []\n---\n")
    stop = tmp_path / "stop"
    command = ["-m", "tests.reliability.editor", str(root), str(stop), str(SEED)]
    editor = subprocess.Popen(
        [sys.executable, *command, *sorted(FILES.values())],
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
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
    files = {r: codec.from_bytes((root / r).read_bytes(), r) for r in FILES.values()}
    lost_writes = [
        (task_id, tag)
        for client in clients
        for task_id, tag in client.acked
        if tag not in files[FILES[task_id]].tags
    ]
    lost_saves = [
        line
        for relative, lines in report["saved"].items()
        for line in lines
        if line not in files[relative].body.splitlines()
    ]
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
