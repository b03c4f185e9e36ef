"""An agents' working day: one planner, workers and a person editing files, on a real tree.

    python -m bench.agent_day [--source ../shared/datasets/beads/MuhDur__rust-oracledb.jsonl]
                              [--minutes 5] [--workers 3] [--reopen 120]

The source (beads JSONL) is imported into a fresh tree; the person's morning reopens
`--reopen` done leaf tasks. Then, each agent its own `serve` process over stdio:
- the planner loops `wait_for_changes(since_token)` and, when the tree moved,
  `get_changes(since_token)` page by page, keeping its own picture of every task's title and
  status from the feed alone (started from one `list_tasks` walk);
- each worker loops `claim_next(start=true)`, works (`--work-seconds`), `complete_task`; with
  nothing to take it waits with `wait_for_changes` for new work (a task that became ready or
  a new task), not for every edit;
- the person, every `--edit-seconds`, saves a task file as an editor does (write aside,
  rename): retitles a task, reopens a done one, writes a new task, or marks a parent done
  while its children are open.

Prints the planner's bytes per look (median, p90; a look is its wait and its feed pages),
each worker's calls per completed task, the CONFLICTs callers saw (by tool), and whether the
planner's picture equals the files at the end, read independently with python-frontmatter.
Figures only (a harness, not a test).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import frontmatter

from bench.raw_client import RawClient

DATASET = Path(__file__).resolve().parents[2] / "shared/datasets/beads/MuhDur__rust-oracledb.jsonl"


NEW_WORK = ["became_ready", "added"]
"""What wakes an idle worker: a task that became ready, or a new one (not every edit)."""


@dataclass
class Tally:
    """What one agent saw."""

    calls: Counter[str] = field(default_factory=Counter)
    conflicts: Counter[str] = field(default_factory=Counter)
    completed: int = 0
    look_bytes: list[int] = field(default_factory=list)


class Agent:
    """One agent's server process and what its calls cost."""

    def __init__(self, root: Path, role: str, tally: Tally) -> None:
        self.client = RawClient(
            ["-m", "tasks_server", "serve", "--root", str(root), "--role", role]
        )
        self.tally = tally

    def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        result = self.client.call(tool, arguments)
        self.tally.calls[tool] += 1
        data: dict[str, Any] = json.loads(result["content"][0]["text"])
        if result.get("isError") and data["error"]["code"] == "CONFLICT":
            self.tally.conflicts[tool] += 1
        return data


def import_tree(source: Path, root: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "tasks_server", "import", "beads", str(source), "--root", str(root)],
        check=True,
        capture_output=True,
    )


def task_files(root: Path) -> dict[str, Path]:
    """Task id -> file, read with python-frontmatter (not our reader)."""
    found: dict[str, Path] = {}
    for path in root.rglob("*.md"):
        if any(part.startswith(".") for part in path.relative_to(root).parts):
            continue
        meta = frontmatter.load(path).metadata
        if "title" in meta:
            found[str(meta.get("id", path.stem))] = path
    return found


def picture_of_files(root: Path) -> dict[str, tuple[str, str]]:
    pictures = {}
    for task_id, path in task_files(root).items():
        meta = frontmatter.load(path).metadata
        pictures[task_id] = (str(meta["title"]), str(meta.get("status", "inbox")))
    return pictures


def save_as_editor(path: Path, text: str) -> None:
    aside = path.with_name(f".{path.name}.swp")
    aside.write_text(text, encoding="utf-8")
    os.replace(aside, path)


def set_line(text: str, key: str, value: str) -> str:
    head, sep, body = text.partition("\n---\n")
    pattern = re.compile(rf"^{key}:.*$", re.M)
    line = f"{key}: {json.dumps(value)}"
    head = pattern.sub(line, head, count=1) if pattern.search(head) else f"{head}\n{line}"
    return head + sep + body


def reopen(path: Path) -> None:
    save_as_editor(path, set_line(path.read_text(encoding="utf-8"), "status", "active"))


def morning(root: Path, count: int, rng: random.Random) -> int:
    """The person reopens `count` done tasks that no task names as parent."""
    files = task_files(root)
    parents = {str(frontmatter.load(p).metadata.get("parent")) for p in files.values()}
    done = sorted(
        path
        for task_id, path in files.items()
        if task_id not in parents and frontmatter.load(path).metadata.get("status") == "done"
    )
    chosen = rng.sample(done, min(count, len(done)))
    for path in chosen:
        reopen(path)
    return len(chosen)


def person(root: Path, stop: threading.Event, every: float, rng: random.Random) -> Counter[str]:
    edits: Counter[str] = Counter()
    n = 0
    while not stop.wait(every):
        n += 1
        files = sorted(task_files(root).items())
        _task_id, path = rng.choice(files)
        meta = frontmatter.load(path).metadata
        kind = ["retitle", "reopen", "new", "parent_done"][n % 4]
        if kind == "retitle":
            text = set_line(path.read_text(encoding="utf-8"), "title", f"{meta['title']} *")
            save_as_editor(path, text)
        elif kind == "reopen" and meta.get("status") == "done":
            reopen(path)
        elif kind == "new":
            new = root / "inbox" / f"person-{n:04d}.md"
            new.parent.mkdir(exist_ok=True)
            save_as_editor(
                new,
                f'---\nid: person-{n:04d}\ntitle: "Person task {n}"\n'
                "status: active\n---\nWritten by hand.\n",
            )
        elif kind == "parent_done" and meta.get("parent"):
            parent = task_files(root).get(str(meta["parent"]))
            if parent is not None:
                text = set_line(parent.read_text(encoding="utf-8"), "status", "done")
                save_as_editor(parent, text)
        else:
            continue
        edits[kind] += 1
    return edits


def worker(agent: Agent, name: str, stop: threading.Event, work: float) -> None:
    token = agent.call("get_index_stats")["token"]
    while not stop.is_set():
        claimed = agent.call("claim_next", agent=name, lease_seconds=600, start=True)["claimed"]
        if claimed is None:
            waited = agent.call(
                "wait_for_changes", since_token=token, timeout_seconds=10, sections=NEW_WORK
            )
            token = waited.get("token", token)
            continue
        stop.wait(work)
        done = agent.call("complete_task", task_id=claimed["id"], agent=name, force=True)
        agent.tally.completed += bool(done.get("success"))


def first_picture(agent: Agent) -> tuple[str, dict[str, tuple[str, str]]]:
    token = agent.call("get_index_stats")["token"]
    picture: dict[str, tuple[str, str]] = {}
    cursor = None
    while True:
        page = agent.call("list_tasks", limit=1000, **({"cursor": cursor} if cursor else {}))
        for row in page["tasks"]:
            picture[row["id"]] = (row["title"], row["status"])
        cursor = page["next_cursor"]
        if cursor is None:
            return token, picture


def apply(picture: dict[str, tuple[str, str]], page: dict[str, Any]) -> None:
    for row in page["added"]:
        picture[row["id"]] = (row["title"], row["status"])
    for row in page["removed"]:
        picture.pop(row["id"], None)
    for change in page["changed"]:
        title, status = picture.get(change["task_id"], ("", ""))
        fields = change["fields"]
        title = fields.get("title", {}).get("to", title)
        status = fields.get("status", {}).get("to", status)
        picture[change["task_id"]] = (title, status)


def look(agent: Agent, token: str, picture: dict[str, tuple[str, str]]) -> str:
    """One look: a wait, then every page of the feed since `token`; the next token."""
    waited = agent.call("wait_for_changes", since_token=token, timeout_seconds=10)
    spent = agent.client.last_bytes
    if waited.get("changed"):
        cursor = None
        while True:
            extra = {"cursor": cursor} if cursor else {}
            page = agent.call("get_changes", since_token=token, limit=200, **extra)
            spent += agent.client.last_bytes
            apply(picture, page)
            cursor = page["next_cursor"]
            if cursor is None:
                token = page["token"]
                break
    agent.tally.look_bytes.append(spent)
    return token


def planner(agent: Agent, stop: threading.Event, result: dict[str, Any]) -> None:
    token, picture = first_picture(agent)
    while not stop.is_set():
        token = look(agent, token, picture)
    result["token"], result["picture"] = token, picture


def catch_up(agent: Agent, result: dict[str, Any]) -> None:
    """After the day: the planner's last look, once every writer has stopped."""
    token, picture = result["token"], result["picture"]
    stats = agent.call("get_index_stats")  # the tree as the server sees it now
    while stats["token"] != token:
        token = look(agent, token, picture)
        stats = agent.call("get_index_stats")


def report(tallies: dict[str, Tally], missed: int, edits: Counter[str], minutes: float) -> None:
    looks = tallies["planner"].look_bytes
    changed = sorted(b for b in looks if b > 400) or [0]
    print(f"day: {minutes:g} min; the person's edits: {dict(edits)}")
    print(
        f"planner: {len(looks)} looks; bytes per look median {statistics.median(looks):,.0f},"
        f" p90 {statistics.quantiles(looks, n=10)[-1]:,.0f} (looks that saw a change:"
        f" {len(changed)}, median {statistics.median(changed):,.0f})"
    )
    for name, tally in tallies.items():
        if name == "planner":
            continue
        calls = sum(tally.calls.values())
        per = calls / tally.completed if tally.completed else float("nan")
        print(f"{name}: {tally.completed} completed, {calls} calls, {per:.2f} calls per task")
    conflicts = sum((t.conflicts for t in tallies.values()), Counter())
    print(f"CONFLICTs seen: {dict(conflicts) or 0}")
    print(f"changes the planner's feed missed (against the files): {missed}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=DATASET)
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--reopen", type=int, default=120)
    parser.add_argument("--work-seconds", type=float, default=2.0)
    parser.add_argument("--edit-seconds", type=float, default=2.0)
    args = parser.parse_args()
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "tree"
        import_tree(args.source, root)
        print(f"imported {len(task_files(root))} tasks; reopened {morning(root, args.reopen, rng)}")
        run_day(root, args, rng)


def run_day(root: Path, args: argparse.Namespace, rng: random.Random) -> None:
    tallies = {"planner": Tally(), **{f"worker-{n}": Tally() for n in range(args.workers)}}
    agents = {
        name: Agent(root, "planner" if name == "planner" else "editor", tally)
        for name, tally in tallies.items()
    }
    stop = threading.Event()
    result: dict[str, Any] = {}
    threads = [threading.Thread(target=planner, args=(agents["planner"], stop, result))]
    threads += [
        threading.Thread(target=worker, args=(agents[n], n, stop, args.work_seconds))
        for n in agents
        if n != "planner"
    ]
    edits: Counter[str] = Counter()
    editor = threading.Thread(
        target=lambda: edits.update(person(root, stop, args.edit_seconds, rng))
    )
    for thread in [*threads, editor]:
        thread.start()
    time.sleep(args.minutes * 60)
    stop.set()
    for thread in [*threads, editor]:
        thread.join()
    catch_up(agents["planner"], result)
    truth = picture_of_files(root)
    missed = sum(
        1
        for k in truth.keys() | result["picture"].keys()
        if truth.get(k) != result["picture"].get(k)
    )
    for agent in agents.values():
        agent.client.close()
    report(tallies, missed, edits, args.minutes)


if __name__ == "__main__":
    main()
