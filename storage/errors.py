"""Exceptions of the storage layer.

    StorageError
    ├── ParseError(path, detail)      a file that is not a readable task
    │   ├── NotATask(path)            readable markdown, but no `title`: not a task
    │   ├── NotUtf8(path, detail)     bytes that are not UTF-8 text
    │   └── ConflictedFile(path, id)  the file holding the id has merge-conflict markers
    ├── TaskNotFound(task_id)
    ├── InvalidId(task_id)            an id that could name a path outside the root
    ├── PathOutsideRoot(path)
    │   └── UnsafeFolder(path, detail) a folder to write in is a link (or not a folder)
    ├── Conflict(path, expected, actual)   the file changed since the caller read it
    ├── AlreadyExists(path)
    ├── TooLarge(path, size, limit)   a write over the file size cap, refused before writing
    ├── WouldNotLoad(path, detail)    a write whose file would not read back as the task
    ├── ImportFailed(source, detail)  an importer could not write its tree
    └── HistoryError(detail)          the tree's git history cannot answer
        ├── NotInGit(root)            the root is not inside a git work tree
        ├── GitMissing()              no `git` command on PATH
        └── UnknownRevision(rev, why) no such commit here (another repo's, or cut off by a
                                      shallow clone)

Bulk loading never raises these for one bad file: it returns the problems beside the tasks.
"""

from __future__ import annotations

__all__ = [
    "AlreadyExists",
    "Conflict",
    "ConflictedFile",
    "GitMissing",
    "HistoryError",
    "ImportFailed",
    "InvalidId",
    "NotATask",
    "NotInGit",
    "NotUtf8",
    "ParseError",
    "PathOutsideRoot",
    "StorageError",
    "TaskNotFound",
    "TooLarge",
    "UnknownRevision",
    "UnsafeFolder",
    "WouldNotLoad",
]


class StorageError(Exception):
    """Base of every storage failure."""


class ParseError(StorageError):
    def __init__(self, path: str, detail: str) -> None:
        super().__init__(f"{path}: {detail}")
        self.path = path
        self.detail = detail


class ConflictedFile(ParseError):
    def __init__(self, path: str, task_id: str) -> None:
        super().__init__(
            path,
            f"task {task_id!r} is in a file with unresolved merge-conflict markers "
            "(<<<<<<< ======= >>>>>>>): resolve the conflict, then call again",
        )
        self.task_id = task_id


class NotATask(ParseError):
    def __init__(self, path: str, detail: str = "frontmatter has no title") -> None:
        super().__init__(path, detail)


class NotUtf8(ParseError):
    """A file whose bytes are not UTF-8 text (a load problem of its own kind)."""


class TaskNotFound(StorageError):
    def __init__(self, task_id: str) -> None:
        super().__init__(f"no task with id {task_id!r}")
        self.task_id = task_id


class InvalidId(StorageError):
    def __init__(self, task_id: str, reason: str | None = None) -> None:
        shown = task_id if len(task_id) <= 80 else task_id[:79] + "…"
        super().__init__(
            f"invalid task id {shown!r}: "
            + (reason or "use letters, digits, '.', '_' and '-', starting with a letter or digit")
        )
        self.task_id = task_id


class PathOutsideRoot(StorageError):
    def __init__(self, path: str) -> None:
        super().__init__(f"path {path!r} is outside the task root")
        self.path = path


class Conflict(StorageError):
    def __init__(self, path: str, expected: str, actual: str) -> None:
        super().__init__(
            f"{path} changed since it was read (expected modified {expected}, file has {actual})"
        )
        self.path = path
        self.expected = expected
        self.actual = actual


class UncommittedFile(StorageError):
    """A write to a file the person changed and did not commit, refused while syncing."""

    def __init__(self, path: str) -> None:
        super().__init__(
            f"{path} has changes that are not committed: commit or discard them, then call again"
        )
        self.path = path


class AlreadyExists(StorageError):
    def __init__(self, path: str) -> None:
        super().__init__(f"{path} already exists")
        self.path = path


class ImportFailed(StorageError):
    def __init__(self, source: str, detail: str) -> None:
        super().__init__(f"import of {source} failed: {detail}")
        self.source = source
        self.detail = detail


class UnsafeFolder(PathOutsideRoot):
    """A folder the server writes in (`.trash`, `.tasks-index`, `.workflow`, or one on the
    way to a task file) is a symlink or not a folder: writing there could leave the root."""

    def __init__(self, path: str, detail: str) -> None:
        super().__init__(path)
        self.args = (
            f"{path} {detail}; the server writes only inside the task root: "
            "replace it with a real folder (or remove it)",
        )
        self.detail = detail


class TooLarge(StorageError):
    """A write whose file would be over the size cap the loader applies (`too_large`)."""

    def __init__(self, path: str, size: int, limit: int) -> None:
        super().__init__(
            f"{path} would be {size} bytes, over the {limit}-byte limit; nothing was written"
        )
        self.path = path
        self.size = size
        self.limit = limit


class WouldNotLoad(StorageError):
    """A write refused before its first byte: the file would not read back as a task (a
    blank title, say), so the task would vanish from the index once written."""

    def __init__(self, path: str, detail: str) -> None:
        super().__init__(f"{path} was not written: it would not read back as a task ({detail})")
        self.path = path
        self.detail = detail


class HistoryError(StorageError):
    """Git could not answer a question about the tree's history (one line, never a trace)."""


class NotInGit(HistoryError):
    def __init__(self, root: str) -> None:
        super().__init__(f"the task root {root} is not inside a git work tree; revisions need git")
        self.root = root


class GitMissing(HistoryError):
    def __init__(self) -> None:
        super().__init__("git is not installed (no `git` command on PATH); history needs git")


class UnknownRevision(HistoryError):
    def __init__(self, revision: str, why: str) -> None:
        shown = revision if len(revision) <= 80 else revision[:79] + "…"
        super().__init__(f"revision {shown!r}: {why}")
        self.revision = revision
