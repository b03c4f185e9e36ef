"""What a delta between two commits costs, against `git diff A B` as a whole process.

    python -m bench.history_bench --sizes 10000,40000 --changed 100 --runs 15

For each size, a seeded tree (`bench.generate`) is committed (A), `--changed` files get a
priority edit and are committed again (B); the tree on disk is B. Printed, medians in ms:

- `git diff A B`: the whole `git` process, as a shell would run it (timed in turn with the
  next, so the shared machine's load weighs on both);
- `get_changes A..B`: the whole answer in-process through `Toolset.run` on a watching server
  (arguments checked, revisions resolved, changed paths listed, old versions read and
  parsed, both states' readiness and problems, the page built), and its ratio to `git diff`;
- its first call (the files on disk compared with B whole, once: `git diff` stats every
  tracked file), and the same call on a server without a watcher (every call of every tool
  then stats the tree to find edits);
- `get_changes A` (A against the files on disk);
- `get_task_history` of one edited task (its commits, both versions of each read);
- reading the `--changed` old blobs three ways, each by path and by blob id: `git cat-file
  --batch` (one process), dulwich and pygit2 (when installed; neither is a dependency).

Last, get_changes A..B of every size timed in turn, for the ratio between sizes (the
machine's load drifts over the minutes between sizes). Figures only, no assertions.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from functools import partial
from pathlib import Path

from bench.generate import generate_tree
from bench.gitrun import git
from bench.timing import median_ms
from storage.history import GitTree
from tasks_server.toolset import open_toolset

__all__ = ["main"]


def build(root: Path, size: int, changed: int) -> tuple[str, str, list[str]]:
    generate_tree(root, size)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "A")
    first = git(root, "rev-parse", "HEAD")
    edited = []
    for path in sorted(root.rglob("*.md"))[:: max(1, size // changed)][:changed]:
        text = path.read_text()
        swapped = text.replace("\npriority: 1\n", "\npriority: 3\n", 1)
        if swapped == text:
            swapped = text.replace("\npriority: ", "\npriority: 1\n_was: ", 1)
        path.write_text(swapped)
        edited.append(path.relative_to(root).as_posix())
    git(root, "commit", "-qam", "B")
    return first, git(root, "rev-parse", "HEAD"), edited


def blob_readers(root: Path, commit: str, paths: list[str]) -> dict[str, Callable[[], object]]:
    """Ways to read `paths` as `commit` holds them: by path (a lookup through the commit's
    trees) and by blob id (as a raw diff gives them)."""
    ids = [i for i in GitTree.open(root).differences(commit, "HEAD").values() if i]
    readers: dict[str, Callable[[], object]] = {
        "git cat-file, by path": lambda: GitTree.open(root).read([(commit, p) for p in paths]),
        "git cat-file, by id": lambda: GitTree.open(root).read_objects(ids),
    }
    try:
        from dulwich.object_store import tree_lookup_path  # noqa: PLC0415
        from dulwich.repo import Repo  # noqa: PLC0415

        def dulwich_read() -> object:
            repo = Repo(str(root))
            tree = repo[commit.encode()].tree
            return [
                repo[tree_lookup_path(repo.__getitem__, tree, p.encode())[1]].data for p in paths
            ]

        def dulwich_by_id() -> object:
            repo = Repo(str(root))
            return [repo[i.encode()].data for i in ids]

        readers["dulwich, by path"] = dulwich_read
        readers["dulwich, by id"] = dulwich_by_id
    except ImportError:
        pass
    try:
        import pygit2  # noqa: PLC0415

        def pygit2_read() -> object:
            repo = pygit2.Repository(str(root))
            tree = repo.revparse_single(commit).peel(pygit2.Tree)
            return [repo[tree[p].id].data for p in paths]

        def pygit2_by_id() -> object:
            repo = pygit2.Repository(str(root))
            return [repo[i].data for i in ids]

        readers["pygit2, by path"] = pygit2_read
        readers["pygit2, by id"] = pygit2_by_id
    except ImportError:
        pass
    return readers


def in_turn_ms(runs: int, *calls: Callable[[], object]) -> list[float]:
    """Medians of several things timed in turn, so the shared machine's load weighs on all."""
    for call in calls:
        call()  # warm
    samples: list[list[float]] = [[] for _ in calls]
    for _ in range(runs):
        for call, found in zip(calls, samples, strict=True):
            started = time.perf_counter()
            call()
            found.append(time.perf_counter() - started)
    return [statistics.median(found) * 1000 for found in samples]


def once_ms(run: Callable[[], object]) -> float:
    started = time.perf_counter()
    run()
    return (time.perf_counter() - started) * 1000


def timed_answers(root: Path, first: str, second: str, runs: int, edited: str) -> dict[str, float]:
    """get_changes A..B and `git diff A B` timed in turn; the other figures."""
    between = {"since_ref": first, "until_ref": second, "limit": 1000}
    found: dict[str, float] = {}
    toolset = open_toolset(root)
    try:
        found["first call"] = once_ms(lambda: toolset.run("get_changes", between))
        found["A..B"], found["git diff"] = in_turn_ms(
            runs,
            lambda: toolset.run("get_changes", between),
            lambda: git(root, "diff", first, second),
        )
        found["A..disk"] = median_ms(
            lambda: toolset.run("get_changes", {"since_ref": first}), runs, warm=True
        )
        result = toolset.context.live.table.files[edited]
        asked = {"task_id": result.task.id if result.task else ""}
        found["history"] = median_ms(
            lambda: toolset.run("get_task_history", asked), runs, warm=True
        )
    finally:
        toolset.context.close()
    unwatched = open_toolset(root, watch=False)
    try:
        found["no watcher"] = median_ms(
            lambda: unwatched.run("get_changes", between), runs, warm=True
        )
    finally:
        unwatched.context.close()
    return found


def bench_size(root: Path, size: int, changed: int, runs: int) -> tuple[str, str]:
    """Build a tree of `size` tasks at `root` and print its figures; its two commits."""
    first, second, edited = build(root, size, changed)
    took = timed_answers(root, first, second, runs, edited[0])
    answer, diff = took["A..B"], took["git diff"]
    print(f"{size:>7,} tasks, {changed} files changed")
    print(f"  git diff A B (process)        {diff:8.1f} ms")
    print(f"  get_changes A..B              {answer:8.1f} ms  ({answer / diff:.1f}x git diff)")
    print(f"  get_changes A..B, first call  {took['first call']:8.1f} ms")
    print(f"  get_changes A..B, no watcher  {took['no watcher']:8.1f} ms")
    print(f"  get_changes A..disk           {took['A..disk']:8.1f} ms")
    print(f"  get_task_history              {took['history']:8.1f} ms")
    for name, read in blob_readers(root, first, edited).items():
        print(f"  read {changed} blobs: {name:<22} {median_ms(read, runs, warm=True):6.1f} ms")
    return first, second


def across_sizes(trees: list[tuple[Path, str, str]], runs: int) -> list[float]:
    """get_changes A..B of every tree, timed in turn (load drift between sizes cancels)."""
    with ExitStack() as stack:
        calls = []
        for root, first, second in trees:
            toolset = open_toolset(root)
            stack.callback(toolset.context.close)
            between = {"since_ref": first, "until_ref": second, "limit": 1000}
            calls.append(partial(toolset.run, "get_changes", between))
        return in_turn_ms(runs, *calls)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,40000")
    parser.add_argument("--changed", type=int, default=100)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    with ExitStack() as stack:
        trees = []
        for size in sizes:
            root = Path(stack.enter_context(tempfile.TemporaryDirectory()))
            trees.append((root, *bench_size(root, size, args.changed, args.runs)))
        answers = across_sizes(trees, args.runs)
    print("get_changes A..B, the sizes timed in turn:")
    for size, answer in zip(sizes, answers, strict=True):
        print(f"  {size:>7,} tasks  {answer:8.1f} ms  ({answer / answers[0]:.1f}x)")


if __name__ == "__main__":
    main()
