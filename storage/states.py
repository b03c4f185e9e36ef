"""States of the tree: the tree on disk with the files that differ from another state put
back as that state holds them, so nothing outside the change is read or parsed.

`TreeState` is one state seen as a base (the live file table, or another state) with some
files replaced. Between two commits the files that differ come from `git diff-tree`
(`tree_at`). The tree at commit X seen from the disk (`disk_tree_at`) is the file table
(the tree on disk as the reader holds it) with the files that differ put back as X holds
them. Telling which files differ means comparing the whole tree with X once (`git
ls-tree` lists X's blob ids, `storage.diskblobs` hashes the files on disk, remembered by
stat: git never reads a work-tree file, so no filter the tree's `.gitattributes` names can
run); after that the table's journal says which paths were put or dropped since, and only
those are compared again: the table plays the part git's fsmonitor plays for `git status`.
One comparison is kept per (table, commit), the last few commits asked.

A path differs when the table and X hold different contents for it (parsed: the task and
the problem), except a file on disk that X lacks and git ignores (untracked and matching a
`.gitignore`): ignored files belong to no revision, so they count the same in both states.
Whether a path is ignored can change without the table knowing (a `.gitignore` edit, a
`git add`), so the paths whose answer rests on it (files on disk the commit lacks) are asked
again whenever a file git's ignore rules read for them changed: git's index, `info/exclude`,
the global ignore file at its default place, a `.gitignore` on their way down from the top.
"""

from __future__ import annotations

import os
import posixpath
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from storage.diskblobs import disk_blobs, index_hints
from storage.history import GitTree, results_at, results_of
from storage.model import Task
from storage.table import FileResult, FileTable

__all__ = [
    "DiskDiff",
    "TreeState",
    "TreeView",
    "disk_tree_at",
    "ignore_stamp",
    "same_content",
    "tree_at",
]

_KEPT_PER_TABLE = 8
_Key = tuple[str, str, int, Callable[[str], bool]]
_Stamp = tuple[tuple[str, tuple[int, int, int] | None], ...]
_KNOWN: weakref.WeakKeyDictionary[FileTable, dict[_Key, DiskDiff]] = weakref.WeakKeyDictionary()


class TreeView(Protocol):
    """What a state of the tree answers: the file at a path, the paths claiming an id."""

    def result(self, path: str) -> FileResult | None: ...

    def paths_of(self, task_id: str) -> tuple[str, ...]: ...

    def winner(self, task_id: str) -> Task | None: ...


@dataclass
class TreeState:
    """`base` with the files of `replaced` as given (None: the file is absent here)."""

    base: TreeView
    replaced: Mapping[str, FileResult | None]
    _claims: dict[str, list[str]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        for path, result in sorted(self.replaced.items()):
            if result is not None and result.task is not None:
                self._claims.setdefault(result.task.id, []).append(path)

    def result(self, path: str) -> FileResult | None:
        if path in self.replaced:
            return self.replaced[path]
        return self.base.result(path)

    def paths_of(self, task_id: str) -> tuple[str, ...]:
        kept = [p for p in self.base.paths_of(task_id) if p not in self.replaced]
        return tuple(sorted(kept + self._claims.get(task_id, [])))

    def winner(self, task_id: str) -> Task | None:
        """The task that holds `task_id` here (the first path wins, as in a load)."""
        paths = self.paths_of(task_id)
        found = self.result(paths[0]) if paths else None
        return found.task if found is not None else None

    def touched_ids(self) -> set[str]:
        """Ids of the tasks in the replaced files, here or in the base: the only ids whose
        task, or whose set of claiming files, can differ between the two."""
        ids = set(self._claims)
        for path in self.replaced:
            before = self.base.result(path)
            if before is not None and before.task is not None:
                ids.add(before.task.id)
        return ids

    def duplicates_among(self, ids: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """Those of `ids` claimed by more than one file here, with every path, by id."""
        found = {i: self.paths_of(i) for i in sorted(ids)}
        return {i: paths for i, paths in found.items() if len(paths) > 1}

    def problems_among(self, paths: Iterable[str]) -> dict[str, str]:
        """Those of `paths` whose file here could not be read as a task: path → message."""
        results = ((p, self.result(p)) for p in sorted(paths))
        return {p: r.problem.message for p, r in results if r is not None and r.problem}


def tree_at(
    git: GitTree,
    base: TreeView,
    base_commit: str,
    commit: str,
    *,
    is_task_path: Callable[[str], bool],
    max_bytes: int,
) -> TreeState:
    """The tree at `commit`: `base` (the tree at `base_commit`) with every file that
    differs put back as `commit` holds it (read by blob id: no path is looked up)."""
    blobs = git.differences(commit, base_commit)
    return TreeState(base, results_of(git, blobs, is_task_path, max_bytes))


def same_content(one: FileResult | None, other: FileResult | None) -> bool:
    """True when two reads of a path hold the same task and problem (no file, and a file
    that is not a task, hold neither)."""
    return _held(one) == _held(other)


def _held(result: FileResult | None) -> tuple[object, object]:
    return (None, None) if result is None else (result.task, result.problem)


@dataclass
class DiskDiff:
    """What the table differs in from one commit, as of the table's `version`: the commit's
    version of each differing path (None: absent there), and the paths on disk that the
    commit lacks and git ignores (the same in both, while git ignores them)."""

    version: int
    differing: dict[str, FileResult | None]
    ignored: set[str]
    stamp: _Stamp = ()  # of the files git's ignore rules read for the paths that rest on them

    def stale_ignores(self, table: FileTable) -> set[str]:
        """The paths whose sameness rests on git's ignore rules, which may have changed:
        the ignored ones, and those on disk that the commit lacks."""
        absent = {p for p, r in self.differing.items() if r is None and p in table.files}
        return absent | self.ignored

    def settle(self, table: FileTable, at_commit: dict[str, FileResult | None]) -> None:
        """Compare each path of `at_commit` (the commit's version) with the table again."""
        for path, result in at_commit.items():
            self.ignored.discard(path)
            if same_content(table.result(path), result):
                self.differing.pop(path, None)
            else:
                self.differing[path] = result

    def reignore(self, candidates: Iterable[str], ignored: set[str]) -> None:
        """Move each candidate to the ignored paths or back to the differing ones."""
        for path in candidates:
            if path in ignored:
                self.differing.pop(path, None)
                self.ignored.add(path)
            else:
                self.ignored.discard(path)
                self.differing[path] = None


def _stat(path: Path) -> tuple[int, int, int] | None:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_mtime_ns, found.st_size, found.st_ino


def ignore_stamp(git: GitTree, paths: Iterable[str]) -> _Stamp:
    """The stamps of the files git's ignore rules read for `paths`: the index (a tracked
    file is never ignored), `info/exclude`, the global ignore file at its default place
    and each `.gitignore` from the paths' folders up to the top level."""
    config = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    files = {git.git_dir / "index", git.git_dir / "info" / "exclude", config / "git" / "ignore"}
    for folder in {posixpath.dirname(p) for p in paths}:
        at = git.root / folder
        for above in (at, *at.parents):
            files.add(above / ".gitignore")
            if above == git.top:
                break
    return tuple(sorted((str(f), _stat(f)) for f in files))


def disk_differences(
    git: GitTree, table: FileTable, commit: str
) -> tuple[dict[str, str | None], set[str]]:
    """The `*.md` paths whose content differs between `commit` and the disk (the table's
    files, hashed here: git never reads them), each with its blob id at `commit` (None: no
    such file there); and the table's files that `commit` lacks and git ignores (the same
    in both states, not differing)."""
    at_commit = git.blobs(commit)
    algorithm = "sha256" if len(commit) == 64 else "sha1"
    hints = index_hints(*git.index_listing())
    on_disk = disk_blobs(table, git.root, algorithm).ids(table.files.values(), hints)
    ignored = (git.untracked_ignored() & on_disk.keys()) - at_commit.keys()
    found: dict[str, str | None] = {
        path: blob for path, blob in at_commit.items() if on_disk.get(path) != blob
    }
    for path in on_disk.keys() - at_commit.keys() - ignored:
        found[path] = None
    return found, ignored


def _compare_whole(
    git: GitTree, table: FileTable, commit: str, check: Callable[[str], bool], most: int
) -> DiskDiff:
    found = DiskDiff(table.version, {}, set())
    blobs, found.ignored = disk_differences(git, table, commit)
    found.settle(table, results_of(git, blobs, check, most))
    found.stamp = ignore_stamp(git, found.stale_ignores(table))
    return found


def _bring_up_to_date(
    git: GitTree,
    table: FileTable,
    commit: str,
    known: DiskDiff,
    *,
    check: Callable[[str], bool],
    most: int,
) -> bool:
    """Redo the paths the table changed since `known` was made; False when the journal no
    longer reaches back that far."""
    changed = table.changed_since(known.version)
    if changed is None:
        return False
    known.version = table.version
    known.settle(table, results_at(git, commit, changed, check, most))
    candidates = known.stale_ignores(table)
    stamp = ignore_stamp(git, candidates)
    again = candidates if stamp != known.stamp else candidates & changed
    known.stamp = stamp
    if again:
        known.reignore(again, git.ignored(again))
    return True


def disk_tree_at(
    git: GitTree,
    table: FileTable,
    commit: str,
    *,
    is_task_path: Callable[[str], bool],
    max_bytes: int,
) -> TreeState:
    """The tree at `commit`: the table with every file that differs put back as `commit`
    holds it (a whole comparison the first time, then only what the table changed)."""
    kept = _KNOWN.setdefault(table, {})
    key: _Key = (str(git.top), commit, max_bytes, is_task_path)
    known = kept.pop(key, None)
    if known is None or not _bring_up_to_date(
        git, table, commit, known, check=is_task_path, most=max_bytes
    ):
        known = _compare_whole(git, table, commit, is_task_path, max_bytes)
    kept[key] = known  # last asked, last out
    while len(kept) > _KEPT_PER_TABLE:
        del kept[next(iter(kept))]
    return TreeState(table, dict(known.differing))
