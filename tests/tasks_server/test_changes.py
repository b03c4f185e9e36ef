"""get_changes through a real MCP client, against an independent reading of each revision:
python-frontmatter over `git show`, readiness computed the simple way, every section paged
to the end. The tree lives in a folder of a bigger repository (paths are the root's)."""

from __future__ import annotations

import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import frontmatter
import pytest
from mcp import Client

from storage.history import EMPTY_TREE
from tasks_server.edge.server import TasksServer
from tests.gitrepo import EPOCH, commit_all, git, init
from tests.tasks_server.conftest import call, fail, make_server

pytestmark = pytest.mark.anyio

DAY = 86_400
SECTIONS = (
    "added", "removed", "changed", "became_ready", "became_blocked", "completed", "reopened",
    "problems_appeared", "problems_went_away",
)  # fmt: skip
TERMINAL = {"done", "cancelled"}


def write(root: Path, relative: str, body: str = "", **meta: Any) -> None:
    """A task file as an editor writes it (no `modified` touched)."""
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(frontmatter.dumps(frontmatter.Post(body, **meta), sort_keys=False) + "\n")


def edit(root: Path, relative: str, body: str | None = None, **changes: Any) -> None:
    """Rewrite a file with some keys changed (or dropped, for None), as an editor saves."""
    post = frontmatter.load(root / relative)
    for key, value in changes.items():
        if value is None:
            post.metadata.pop(key, None)
        else:
            post[key] = value
    if body is not None:
        post.content = body
    (root / relative).write_text(frontmatter.dumps(post, sort_keys=False) + "\n")


def first_state(root: Path) -> None:
    write(root, "a.md", id="a", title="Alpha", status="active", priority=2)
    write(root, "b.md", id="b", title="Beta", status="active", depends_on=["a"])
    write(root, "p.md", id="p", title="Parent", status="active", type="epic")
    write(root, "c.md", id="c", title="Child", status="active", parent="p")
    write(root, "d.md", id="d", title="Done one", status="done", body="old notes")
    write(root, "e.md", "Body one.", id="e", title="Echo", status="active")
    write(root, "f.md", id="f", title="Fox", status="active", priority=3, tags=["x"])
    write(root, "g.md", id="g", title="Gone soon", status="done")
    write(root, "h.md", id="h", title="Hotel", status="active", depends_on=["g"])
    write(root, "k.md", id="k", title="Kilo", status="blocked")
    write(root, "m.md", id="m", title="Mike", status="active", parent="k")


def second_state(root: Path) -> None:
    edit(root, "a.md", status="done")  # b becomes ready; a completed
    edit(root, "c.md", title="Child, renamed")
    edit(root, "f.md", priority=1)
    edit(root, "e.md", body="Body two, longer.")
    edit(root, "d.md", status="active")  # reopened (and ready)
    (root / "sub").mkdir()
    (root / "f.md").rename(root / "sub" / "fox.md")  # moved: a change, never remove + add
    (root / "g.md").unlink()  # h's dependency dangles now: h became blocked
    write(root, "n.md", id="n", title="November", status="active", depends_on=["zz"])
    (root / "broken.md").write_text("---\ntitle: [unclosed\n---\n")


def uncommitted(root: Path) -> None:
    edit(root, "k.md", status="active")  # m's ancestor no longer blocked; k not ready (m open)
    edit(root, "b.md", status="done")
    write(root, "q.md", id="q", title="Quebec", status="active", depends_on=["r"])
    write(root, "r.md", id="r", title="Romeo", status="active", depends_on=["q"])
    (root / "broken.md").unlink()


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[tuple[Path, list[str]]]:
    top = init(tmp_path / "repo")
    (top / "README.md").write_text("not a task folder\n")
    root = top / "tasks"
    first_state(root)
    shas = [commit_all(top, "first plan", EPOCH)]
    second_state(root)
    shas.append(commit_all(top, "editor's edits", EPOCH + DAY))
    uncommitted(root)
    yield root, shas


@pytest.fixture
async def session(repo: tuple[Path, list[str]]) -> AsyncIterator[Client]:
    server: TasksServer = make_server(repo[0])
    async with Client(server) as client:
        yield client
    server.context.close()


# --- the independent computation ----------------------------------------------------------


def parse(text: str) -> dict[str, Any] | None:
    try:
        post = frontmatter.loads(text)
    except Exception:  # a file the reader cannot read is not a task of the state
        return None
    if "title" not in post.metadata:
        return None
    return {**post.metadata, "body": post.content}


def revision_tasks(root: Path, rev: str | None) -> dict[str, dict[str, Any]]:
    """id → metadata (and `path`, `body`) of every task file of the root at `rev` (None:
    on disk), read with python-frontmatter."""
    if rev is None:
        files = {p.relative_to(root).as_posix(): p.read_text() for p in root.rglob("*.md")}
    else:
        listed = git(root, "ls-tree", "-r", "--name-only", rev, "--", ".").split("\n")
        files = {p: git(root, "show", f"{rev}:./{p}") + "\n" for p in listed if p}
    found = {}
    for path, text in files.items():
        meta = parse(text)
        if meta is not None:
            found[meta["id"]] = {**meta, "path": path}
    return found


def in_cycle(tasks: dict[str, dict[str, Any]], start: str) -> bool:
    seen, frontier = set(), list(tasks[start].get("depends_on", []))
    while frontier:
        node = frontier.pop()
        if node == start:
            return True
        if node in tasks and node not in seen:
            seen.add(node)
            frontier.extend(tasks[node].get("depends_on", []))
    return False


def own_blocked(tasks: dict[str, dict[str, Any]], task_id: str) -> bool:
    task = tasks[task_id]
    if task["status"] in TERMINAL:
        return False
    deps = task.get("depends_on", [])
    unmet = any(d not in tasks or tasks[d]["status"] not in TERMINAL for d in deps)
    return task["status"] == "blocked" or unmet or in_cycle(tasks, task_id)


def standing(tasks: dict[str, dict[str, Any]], task_id: str) -> str:
    task = tasks[task_id]
    if task["status"] in TERMINAL:
        return "neither"
    chain, parent = [], task.get("parent")
    while parent in tasks and parent not in chain:
        chain.append(parent)
        parent = tasks[parent].get("parent")
    if own_blocked(tasks, task_id) or any(own_blocked(tasks, a) for a in chain):
        return "blocked"
    open_child = any(
        t.get("parent") == task_id and t["status"] not in TERMINAL for t in tasks.values()
    )
    return "ready" if task["status"] == "active" and not open_child else "neither"


def expected(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    both = sorted(before.keys() & after.keys())
    became = {
        s: [i for i in both if standing(after, i) == s and standing(before, i) != s]
        for s in ("ready", "blocked")
    }
    changed = {}
    for i in both:
        old, new = before[i], after[i]
        keys = (old.keys() | new.keys()) - {"id", "path", "body"}
        fields = {k: (old.get(k), new.get(k)) for k in keys if old.get(k) != new.get(k)}
        moved = (old["path"], new["path"]) if old["path"] != new["path"] else None
        if fields or moved or old["body"] != new["body"]:
            changed[i] = (fields, old["body"] != new["body"], moved)
    return {
        "added": sorted(after.keys() - before.keys()),
        "removed": sorted(before.keys() - after.keys()),
        "changed": changed,
        "became_ready": became["ready"],
        "became_blocked": became["blocked"],
        "completed": [i for i in both if before[i]["status"] != "done" == after[i]["status"]],
        "reopened": [
            i
            for i in both
            if before[i]["status"] in TERMINAL and after[i]["status"] not in TERMINAL
        ],
    }


# --- reading every page ---------------------------------------------------------------------


async def every_page(client: Client, **arguments: Any) -> dict[str, Any]:
    """Every section whole, read page by page; and the first page's other fields."""
    pages = [await call(client, "get_changes", **arguments)]
    while pages[-1]["next_cursor"] is not None:
        cursor = pages[-1]["next_cursor"]
        pages.append(await call(client, "get_changes", **arguments, cursor=cursor))
    limit = arguments["limit"]
    assert all(sum(len(p[s]) for s in SECTIONS) == limit for p in pages[:-1])
    whole = {s: [row for page in pages for row in page[s]] for s in SECTIONS}
    return {**pages[0], **whole}


def ids(rows: list[dict[str, Any]]) -> list[str]:
    return [row["id"] for row in rows]


def as_found(result: dict[str, Any]) -> dict[str, Any]:
    changed = {}
    for row in result["changed"]:
        fields = {k: (v["from"], v["to"]) for k, v in row["fields"].items()}
        moved = (row["path"]["from"], row["path"]["to"]) if row["path"] else None
        changed[row["task_id"]] = (fields, row["body_changed"], moved)
    found = {s: ids(result[s]) for s in SECTIONS if s not in ("changed",) and "problem" not in s}
    return {**found, "changed": changed}


@pytest.mark.parametrize("span", ["first..second", "second..disk", "first..disk"])
async def test_every_section_matches_an_independent_reading_of_both_states(
    repo: tuple[Path, list[str]], session: Client, span: str
) -> None:
    root, (first, second) = repo
    since, until = (
        (first if span.startswith("first") else second),
        (None if span.endswith("disk") else second),
    )
    arguments: dict[str, Any] = {"since_ref": since, "limit": 2}
    if until is not None:
        arguments["until_ref"] = until
    result = await every_page(session, **arguments)
    want = expected(revision_tasks(root, since), revision_tasks(root, until))
    assert as_found(result) == want
    assert result["summary"] == {s: len(result[s]) for s in SECTIONS}
    assert (result["since"], result["until"]) == (since, until)
    assert sum(result["summary"].values()) > 6  # each span has something in most sections


async def test_the_editors_commit_shows_every_kind_of_edit(
    repo: tuple[Path, list[str]], session: Client
) -> None:
    _, (first, second) = repo
    result = await every_page(session, since_ref=first, until_ref=second, limit=50)
    rows = {row["task_id"]: row for row in result["changed"]}
    assert rows["a"]["fields"] == {"status": {"from": "active", "to": "done"}}
    assert rows["c"]["fields"] == {"title": {"from": "Child", "to": "Child, renamed"}}
    assert rows["e"] == {"task_id": "e", "fields": {}, "body_changed": True, "path": None}
    assert rows["f"]["path"] == {"from": "f.md", "to": "sub/fox.md"}
    assert rows["f"]["fields"] == {"priority": {"from": 3, "to": 1}}
    assert (ids(result["added"]), ids(result["removed"])) == (["n"], ["g"])
    assert result["removed"][0]["title"] == "Gone soon"  # as it was
    assert ids(result["became_ready"]) == ["b", "d"] and ids(result["became_blocked"]) == ["h"]
    appeared = {(p["kind"], tuple(p["task_ids"]), p["detail"]) for p in result["problems_appeared"]}
    assert ("dangling_depends_on", ("n",), "zz") in appeared
    assert ("dangling_depends_on", ("h",), "g") in appeared
    assert any(p["kind"] == "unparseable_file" and p["path"] == "broken.md"
               for p in result["problems_appeared"])  # fmt: skip


async def test_uncommitted_edits_are_the_later_state_by_default(
    repo: tuple[Path, list[str]], session: Client
) -> None:
    _, (_, second) = repo
    result = await every_page(session, since_ref="HEAD", limit=50)
    assert result["since"] == second and result["until"] is None
    assert ids(result["added"]) == ["q", "r"]
    assert ids(result["completed"]) == ["b"]
    assert {(p["kind"], tuple(p["task_ids"])) for p in result["problems_appeared"]} == {
        ("dependency_cycle", ("q", "r"))
    }
    assert [p["path"] for p in result["problems_went_away"]] == ["broken.md"]


async def test_the_index_is_the_same_after_a_delta_as_before(
    repo: tuple[Path, list[str]], session: Client
) -> None:
    _, (first, _) = repo
    before = await call(session, "get_graph_metrics")
    ready = await call(session, "get_ready_tasks", limit=1000)
    await every_page(session, since_ref=first, limit=3)
    assert await call(session, "get_graph_metrics") == before
    assert await call(session, "get_ready_tasks", limit=1000) == ready


async def test_since_days_reads_the_last_commit_at_or_before_that_moment(
    repo: tuple[Path, list[str]], session: Client
) -> None:
    _, (first, second) = repo
    # the fixed clock is 2026-11-22; the commits are about 62 and 61 days before it
    now = 1_795_348_800
    days_after_first = (now - EPOCH) / DAY - 0.5
    result = await call(session, "get_changes", since_days=days_after_first)
    assert result["since"] == first
    assert (await call(session, "get_changes", since_days=1))["since"] == second


async def test_a_cutoff_before_the_history_is_measured_from_the_empty_tree_as_the_review_does(
    repo: tuple[Path, list[str]], session: Client
) -> None:
    root, _ = repo
    result = await every_page(session, since_days=10_000, limit=4)
    review = await call(session, "get_review_snapshot", since_days=10_000, limit=1000)
    on_disk = sorted(revision_tasks(root, None))
    assert result["since"] == EMPTY_TREE and result["until"] is None
    assert sorted(ids(result["added"])) == on_disk
    assert result["removed"] == result["changed"] == []
    assert sorted(t["id"] for t in review["changes_since"]["tasks_created"]) == on_disk
    assert result["guidance"]["warnings"] == [
        "since_days reaches before the first commit: compared with the empty tree"
    ]


async def test_a_cutoff_before_the_history_up_to_a_revision_adds_that_revisions_tasks(
    repo: tuple[Path, list[str]], session: Client
) -> None:
    root, (first, _) = repo
    result = await every_page(session, since_days=10_000, until_ref=first, limit=4)
    assert result["since"] == EMPTY_TREE and result["until"] == first
    assert sorted(ids(result["added"])) == sorted(revision_tasks(root, first))


async def test_a_cutoff_within_the_history_carries_no_warning(session: Client) -> None:
    assert "warnings" not in (await call(session, "get_changes", since_days=1))["guidance"]


async def test_a_cursor_of_other_revisions_is_refused(
    repo: tuple[Path, list[str]], session: Client
) -> None:
    _, (first, second) = repo
    page = await call(session, "get_changes", since_ref=first, limit=1)
    refused = await fail(
        session, "get_changes", since_ref=second, limit=1, cursor=page["next_cursor"]
    )
    assert refused["error"]["code"] == "INVALID_CURSOR"


# --- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "arguments",
    [
        {"since_ref": "no-such-branch"},
        {"since_ref": "0123456789abcdef0123456789abcdef01234567"},
        {"since_ref": "--output=/tmp/x"},
        {"since_ref": "HEAD", "until_ref": "HEAD~99"},
        {"since_ref": "HEAD", "since_days": 1},
        {},
    ],
    ids=["unknown", "foreign-sha", "option-like", "bad-until", "both", "none"],
)
async def test_a_bad_revision_is_invalid_argument_with_one_line(
    session: Client, arguments: dict[str, Any]
) -> None:
    error = (await fail(session, "get_changes", **arguments))["error"]
    assert error["code"] == "INVALID_ARGUMENT"
    assert "\n" not in error["message"] and "Traceback" not in error["message"]


async def test_a_commit_of_another_repository_is_refused(
    tmp_path: Path, repo: tuple[Path, list[str]], session: Client
) -> None:
    other = init(tmp_path / "other")
    (other / "x.md").write_text("---\ntitle: X\n---\n")
    foreign = commit_all(other, "elsewhere", EPOCH + 5)
    error = (await fail(session, "get_changes", since_ref=foreign))["error"]
    assert error["code"] == "INVALID_ARGUMENT" and foreign in error["message"]


async def test_a_tree_outside_git_refuses_since_ref(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    first_state(root)
    server = make_server(root)
    async with Client(server) as client:
        error = (await fail(client, "get_changes", since_ref="HEAD"))["error"]
    server.context.close()
    assert error["code"] == "INVALID_ARGUMENT" and "not inside a git work tree" in error["message"]


async def test_a_shallow_clone_missing_the_revision_says_so(
    tmp_path: Path, repo: tuple[Path, list[str]]
) -> None:
    root, (first, _) = repo
    clone = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{root.parent}", str(clone)], check=True
    )
    server = make_server(clone / "tasks")
    async with Client(server) as client:
        error = (await fail(client, "get_changes", since_ref=first))["error"]
    server.context.close()
    assert error["code"] == "INVALID_ARGUMENT" and "shallow" in error["message"]


# --- get_task_history -------------------------------------------------------------------------


def independent_history(root: Path, task_id: str) -> list[tuple[str, bool, dict[str, Any]]]:
    """(commit, created, changed fields) for every commit whose tree changed the task, read
    by id from each revision and its parent."""
    found = []
    for sha in git(root, "log", "--format=%H", "HEAD", "--", ".").split("\n"):
        parents = git(root, "log", "-1", "--format=%P", sha).split()
        after = revision_tasks(root, sha).get(task_id)
        before = revision_tasks(root, parents[0]).get(task_id) if parents else None
        if after is None or after == before:
            continue
        old = before or {}
        keys = (old.keys() | after.keys()) - {"id", "path", "body"}
        fields = {k: (old.get(k), after.get(k)) for k in keys if old.get(k) != after.get(k)}
        found.append((sha, before is None, fields if before is not None else {}))
    return found


@pytest.mark.parametrize("task_id", ["a", "f", "e", "b"])
async def test_task_history_matches_an_independent_reading_of_every_commit(
    repo: tuple[Path, list[str]], session: Client, task_id: str
) -> None:
    root, _ = repo
    (root / "sub" / "fox.md").rename(root / "fox.md")  # a move not yet committed
    git(root.parent, "add", "-A")
    git(root.parent, "commit", "-q", "-m", "fox back to the top", seconds=EPOCH + 2 * DAY)
    pages = [await call(session, "get_task_history", task_id=task_id, limit=1)]
    while pages[-1]["next_cursor"]:
        cursor = pages[-1]["next_cursor"]
        pages.append(
            await call(session, "get_task_history", task_id=task_id, limit=1, cursor=cursor)
        )
    rows = [row for page in pages for row in page["commits"]]
    found = [
        (r["commit"], r["created"], {k: (v["from"], v["to"]) for k, v in r["fields"].items()})
        for r in rows
    ]
    assert found == independent_history(root, task_id)
    assert all(r["author"] == "Ada Editor" for r in rows)
    if task_id == "f":
        moves = [(r["path"] or {}).get("to") for r in rows]
        assert moves == ["fox.md", "sub/fox.md", None]


async def test_task_history_of_an_unknown_task_is_task_not_found(session: Client) -> None:
    assert (await fail(session, "get_task_history", task_id="nope"))["error"]["code"] == (
        "TASK_NOT_FOUND"
    )
