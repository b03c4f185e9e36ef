"""A clone kept in step with its branch's upstream, by git plumbing alone (`serve --sync`).

Nothing here touches the person's work: a commit is built in a temporary index from the
bytes of the paths a write touched (`hash-object --no-filters`, `update-index --index-info`,
`write-tree`, `commit-tree`) and the branch is moved with a compare-and-swap `update-ref`;
the person's index gets only those paths' new entries, and files they changed and did not
commit are never committed, overwritten or stashed. Bringing the clone up to the upstream
replays its own commits path by path onto the fetched tip (no `rebase`, no merge, no work
tree of git's): a change whose path the remote changed too is dropped, the remote's version
kept, so no file ever holds a conflict marker. The work tree then follows, file by file,
only where a file still holds the old commit's content.

A process killed mid-way leaves a clone the next one finishes: every operation first writes
`tasks-sync-busy` in the git folder (removed when it ends), and moving the branch writes
`tasks-sync-move` (the old and new commit) before the first file changes. An operation that
finds either left behind removes the lock files a killed git left, then finishes the move.
Every git process is built by `storage.gitcmd` (the repository's configuration names no
program that runs); fetch and push name the remote's URL and the pack programs themselves.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from storage.diskblobs import blob_id
from storage.errors import HistoryError
from storage.files import atomic_write, inside_root
from storage.gitcmd import remote_overrides, run_git, user_settings

__all__ = ["Dropped", "Entry", "Integrated", "SyncRepo", "Upstream"]

Entry = tuple[str, str]
"""A tree entry: (mode, blob id)."""

_NULL = "0" * 40
_AUTHOR = re.compile(rb"^author (.*) <(.*)> (\d+ [+-]\d{4})$", re.M)
_BUSY, _MOVE, _PATHS = "tasks-sync-busy", "tasks-sync-move", "tasks-sync-paths"
_SERVER = ("tasks-server", "tasks-server@localhost")


@dataclass(frozen=True, slots=True)
class Upstream:
    """Where the branch syncs: the remote's URL, its branch and our tracking ref."""

    remote: str
    url: str
    merge: str  # refs/heads/<branch> on the remote
    tracking: str  # refs/remotes/<remote>/<branch> here
    local: str  # refs/heads/<branch> here

    @property
    def name(self) -> str:
        return f"{self.remote}/{self.merge.removeprefix('refs/heads/')}"


@dataclass(frozen=True, slots=True)
class Dropped:
    """A path a replayed commit changed that the remote changed too: the remote's kept."""

    path: str
    commit: str  # the dropped commit's subject


@dataclass(slots=True)
class Integrated:
    """What bringing the clone up to the upstream did."""

    moved: bool = False
    dropped: list[Dropped] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # uncommitted files left as they were


def _entries(listing: bytes) -> dict[str, Entry]:
    found: dict[str, Entry] = {}
    for item in listing.split(b"\0"):
        if item:
            head, _, path = item.partition(b"\t")
            mode, _, sha = head.decode().split(" ")
            found[path.decode("utf-8", "surrogateescape")] = (mode, sha)
    return found


def _raw_changes(raw: bytes) -> list[tuple[str, Entry | None, Entry | None]]:
    """`diff-tree -z --raw` parsed: (path, old entry, new entry); None where absent."""
    parts = raw.split(b"\0")
    changes = []
    for meta, path in zip(parts[0::2], parts[1::2], strict=False):
        if not meta.startswith(b":"):
            continue
        old_mode, new_mode, old_sha, new_sha, _ = meta[1:].decode().split(" ")
        old = None if old_sha == _NULL else (old_mode, old_sha)
        new = None if new_sha == _NULL else (new_mode, new_sha)
        changes.append((path.decode("utf-8", "surrogateescape"), old, new))
    return changes


def _index_info(entries: dict[str, Entry | None]) -> bytes:
    lines = [
        f"{entry[0]} {entry[1]}\t{path}" if entry else f"0 {_NULL}\t{path}"
        for path, entry in entries.items()
    ]
    return "".join(f"{line}\0" for line in lines).encode("utf-8", "surrogateescape")


def _identity(name: str, email: str, date: str | None = None) -> dict[str, str]:
    env = {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email}
    env |= {"GIT_COMMITTER_NAME": _SERVER[0], "GIT_COMMITTER_EMAIL": _SERVER[1]}
    return env | ({"GIT_AUTHOR_DATE": date} if date else {})


class SyncRepo:
    """The clone at `root`: commits of paths, fetch, push, replay, the work tree's move."""

    def __init__(self, folder: Path) -> None:
        """The clone holding `folder` (its work tree's top, or a folder inside it: paths
        given to and answered by this class are then relative to the top)."""
        args = ["rev-parse", "--absolute-git-dir", "--show-object-format", "--show-toplevel"]
        git_dir, algorithm, top = run_git(folder, args).decode().strip().split("\n")
        self.root = Path(top)
        self.prefix = run_git(folder, ["rev-parse", "--show-prefix"]).decode().strip()
        """Where `folder` is under the top, with a trailing slash ('' at the top)."""
        self.git_dir, self.algorithm = Path(git_dir), algorithm
        self._remote = remote_overrides(user_settings())

    def git(
        self, args: Sequence[str], stdin: bytes | None = None, ok: Sequence[int] = (0,)
    ) -> bytes:
        return run_git(self.root, args, stdin, ok, env={"GIT_LITERAL_PATHSPECS": "1"})

    def _config(self, key: str) -> str | None:
        value = run_git(self.root, ["config", "--get", key], ok=(0, 1)).decode().strip()
        return value or None

    def upstream(self) -> Upstream | None:
        """The branch's upstream (`branch.<b>.remote` and `.merge`, read as data), or None."""
        local = run_git(self.root, ["symbolic-ref", "-q", "HEAD"], ok=(0, 1)).decode().strip()
        branch = local.removeprefix("refs/heads/")
        remote = self._config(f"branch.{branch}.remote")
        merge = self._config(f"branch.{branch}.merge")
        url = self._config(f"remote.{remote}.url") if remote else None
        if not local or remote is None or merge is None or url is None:
            return None
        if "://" not in url and not url.startswith("/") and ":" not in url:
            url = str((self.root / url).resolve())  # a relative path, made absolute
        tracking = f"refs/remotes/{remote}/{merge.removeprefix('refs/heads/')}"
        return Upstream(remote, url, merge, tracking, local)

    def ref(self, name: str) -> str | None:
        out = run_git(self.root, ["rev-parse", "-q", "--verify", f"{name}^{{commit}}"], ok=(0, 1))
        return out.decode().strip() or None

    def entries(self, commit: str, paths: Iterable[str]) -> dict[str, Entry]:
        """The entries `commit` has at `paths` (path -> (mode, blob id); a path it does not
        have is left out): one `ls-tree` of those paths, however big the tree."""
        wanted = sorted(set(paths))
        if not wanted:
            return {}
        return _entries(self.git(["ls-tree", "-z", "--full-tree", commit, "--", *wanted]))

    def counts(self, upstream: Upstream) -> tuple[int, int]:
        """(ahead, behind) of HEAD against the tracking ref."""
        if self.ref(upstream.tracking) is None:
            return (0, 0)
        spec = f"HEAD...{upstream.tracking}"
        ahead, behind = self.git(["rev-list", "--left-right", "--count", spec]).split()
        return int(ahead), int(behind)

    def disk_id(self, relative: str) -> str | None:
        """The blob id of the file at `relative` as it is on disk (None: no regular file)."""
        try:
            data = inside_root(self.root, relative).read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None
        return blob_id(data, self.algorithm)

    # --- commits ---------------------------------------------------------------------

    @contextlib.contextmanager
    def _scratch_index(self, parent: str) -> Iterator[dict[str, str]]:
        path = self.git_dir / f"tasks-sync-{os.getpid()}-{threading.get_ident()}.index"
        env = {"GIT_INDEX_FILE": str(path)}
        try:
            run_git(self.root, ["read-tree", parent], env=env)
            yield env
        finally:
            path.unlink(missing_ok=True)

    def _commit_over(
        self, parent: str, changes: dict[str, Entry | None], message: str, who: dict[str, str]
    ) -> str | None:
        """A commit on `parent` with `changes`, made in a scratch index; None: no change
        (every entry already as `parent` has it)."""
        have = self.entries(parent, changes)
        if all(have.get(path) == entry for path, entry in changes.items()):
            return None
        with self._scratch_index(parent) as env:
            run_git(
                self.root, ["update-index", "-z", "--index-info"], _index_info(changes), env=env
            )
            tree = run_git(self.root, ["write-tree"], env=env).decode().strip()
        args = ["commit-tree", "--no-gpg-sign", tree, "-p", parent, "-F", "-"]
        out = run_git(self.root, args, message.encode(), env=who)
        return out.decode().strip()

    def commit_paths(self, paths: Iterable[str], message: str, author: str | None) -> str | None:
        """Commit the files at `paths` as they are on disk, on top of HEAD, and move the
        branch there; the new commit (None: nothing changed). Only these paths change in
        the commit and in the person's index."""
        head = self.ref("HEAD")
        if head is None:
            raise HistoryError("the branch has no commit yet")
        wanted = sorted(set(paths))
        modes = {path: entry[0] for path, entry in self.entries(head, wanted).items()}
        changes = {path: self._stored(path, modes.get(path, "100644")) for path in wanted}
        who = _identity(author, f"{author}@tasks-server") if author else _identity(*_SERVER)
        commit = self._commit_over(head, changes, message, who)
        if commit is not None:
            self.git(["update-ref", "HEAD", commit, head])
        self._set_index(changes)  # also when a killed commit had moved the branch already
        (self.git_dir / _PATHS).unlink(missing_ok=True)
        return commit

    def intend(self, relative: str) -> None:
        """Note, durably, that the file at `relative` is about to be written: a process
        killed before its commit leaves the note, and the next commit takes the file in."""
        fd = os.open(self.git_dir / _PATHS, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            os.write(fd, relative.encode("utf-8", "surrogateescape") + b"\0")
            os.fsync(fd)
        finally:
            os.close(fd)

    def intended(self) -> list[str]:
        """The paths noted by `intend` and not committed since."""
        try:
            noted = (self.git_dir / _PATHS).read_bytes()
        except FileNotFoundError:
            return []
        return [p.decode("utf-8", "surrogateescape") for p in noted.split(b"\0") if p]

    def _stored(self, relative: str, mode: str) -> Entry | None:
        try:
            data = inside_root(self.root, relative).read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None
        sha = self.git(["hash-object", "-w", "--no-filters", "--stdin"], data)
        return (mode if mode == "100755" else "100644", sha.decode().strip())

    def _set_index(self, changes: dict[str, Entry | None]) -> None:
        """The person's index gets these entries (no other changes); a busy index (their
        own git holds its lock) is left as it is."""
        with contextlib.suppress(HistoryError):
            self.git(["update-index", "-z", "--index-info"], _index_info(changes))

    # --- the remote --------------------------------------------------------------------

    def fetch(self, upstream: Upstream) -> str | None:
        """Fetch the upstream branch into its tracking ref; the fetched tip."""
        args = ["fetch", "--quiet", "--no-tags", "--no-recurse-submodules", "--no-auto-gc"]
        args += ["--no-write-fetch-head", "--upload-pack=git-upload-pack"]
        run_git(
            self.root,
            [*args, upstream.url, f"+{upstream.merge}:{upstream.tracking}"],
            overrides=self._remote,
        )
        return self.ref(upstream.tracking)

    def push(self, upstream: Upstream, commit: str) -> bool:
        """Push `commit` to the upstream branch: True when it landed, False when the remote
        moved (refused: fetch and replay first)."""
        args = ["push", "--porcelain", "--no-verify", "--receive-pack=git-receive-pack"]
        refspec = f"{commit}:{upstream.merge}"
        out = run_git(self.root, [*args, upstream.url, refspec], ok=(0, 1), overrides=self._remote)
        flags = [line[:1] for line in out.decode().splitlines() if "\t" in line]
        if not flags or "!" in flags:
            if not flags:
                raise HistoryError("git push: no answer from the remote")
            return False
        self.git(["update-ref", upstream.tracking, commit])
        return True

    # --- replay and the work tree ------------------------------------------------------

    def integrate(self, upstream: Upstream) -> Integrated:
        """Bring HEAD up to the tracking ref: a fast-forward, or our commits replayed on
        it; the work tree follows."""
        head, theirs = self.ref("HEAD"), self.ref(upstream.tracking)
        if head is None or theirs is None or head == theirs or self._contains(head, theirs):
            return Integrated()
        done = Integrated(moved=True)
        new = theirs if self._contains(theirs, head) else self._replay(theirs, head, done)
        done.kept = self.move(head, new)
        return done

    def _contains(self, tip: str, commit: str) -> bool:
        """Whether `commit` is `tip` or one of its ancestors."""
        base = self.git(["merge-base", commit, tip], ok=(0, 1)).decode().strip()
        return base == commit

    def _replay(self, onto: str, head: str, done: Integrated) -> str:
        if self.git(["rev-list", "--merges", f"{onto}..{head}"]).strip():
            raise HistoryError("a merge commit is not on the upstream yet: push it yourself")
        commits = self.git(["rev-list", "--reverse", f"{onto}..{head}"]).split()
        tip = onto
        for commit in (c.decode() for c in commits):
            tip = self._replay_one(tip, commit, done)
        return tip

    def _replay_one(self, tip: str, commit: str, done: Integrated) -> str:
        raw = self.git(["diff-tree", "-r", "-z", "--raw", "--no-renames", f"{commit}^", commit])
        body = self.git(["cat-file", "commit", commit])
        message = body.partition(b"\n\n")[2].decode("utf-8", "replace")
        changes = _raw_changes(raw)
        have, applied = self.entries(tip, (path for path, _, _ in changes)), {}
        for path, old, new in changes:
            if have.get(path) == old:
                applied[path] = new
            elif have.get(path) != new:
                done.dropped.append(Dropped(path, message.splitlines()[0] if message else ""))
        found = _AUTHOR.search(body)
        who = _identity(*(g.decode("utf-8", "replace") for g in found.groups())) if found else {}
        made = self._commit_over(tip, applied, message, who) if applied else None
        return made or tip

    def move(self, old: str, new: str) -> list[str]:
        """Move HEAD from `old` to `new` and the work tree with it (a file that no longer
        holds `old`'s content is the person's: left as it is, and named); journalled in
        `tasks-sync-move` so a killed move is finished by the next operation."""
        journal = self.git_dir / _MOVE
        atomic_write(journal, f"{old} {new}\n".encode())
        kept = self._follow(old, new)
        self.git(["update-ref", "HEAD", new, old])
        journal.unlink(missing_ok=True)
        return kept

    def _follow(self, old: str, new: str) -> list[str]:
        raw = self.git(["diff-tree", "-r", "-z", "--raw", "--no-renames", old, new])
        kept: list[str] = []
        index: dict[str, Entry | None] = {}
        for path, before, after in _raw_changes(raw):
            disk = self.disk_id(path)
            if disk != (after[1] if after else None):
                if disk != (before[1] if before else None):
                    kept.append(path)
                    continue
                self._write(path, after)
            index[path] = after
        self._set_index(index)
        return kept

    def _write(self, relative: str, entry: Entry | None) -> None:
        target = inside_root(self.root, relative)
        if entry is None:
            target.unlink(missing_ok=True)
            return
        if entry[0] not in ("100644", "100755"):
            return  # links and submodules: not task files, never written
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(target, self.git(["cat-file", "blob", entry[1]]))

    # --- one operation at a time, finished after a kill ---------------------------------

    @contextlib.contextmanager
    def operation(self) -> Iterator[None]:
        """Run one sync operation (the caller holds the tree's write lock): what a killed
        one left (git's lock files, a half-done move) is cleared or finished first."""
        busy = self.git_dir / _BUSY
        if busy.exists() or (self.git_dir / _MOVE).exists():
            self._recover()
        atomic_write(busy, str(os.getpid()).encode())
        try:
            yield
        finally:
            busy.unlink(missing_ok=True)

    def _recover(self) -> None:
        for name in ("index.lock", "HEAD.lock", "packed-refs.lock"):
            (self.git_dir / name).unlink(missing_ok=True)
        for folder in ("refs/heads", "refs/remotes"):
            for lock in (self.git_dir / folder).rglob("*.lock"):
                lock.unlink(missing_ok=True)
        for scratch in self.git_dir.glob("tasks-sync-*.index"):
            scratch.unlink(missing_ok=True)
        journal = self.git_dir / _MOVE
        if journal.exists():
            old, new = journal.read_text().split()
            head = self.ref("HEAD")
            if head == old:
                self.move(old, new)
            elif head == new:
                self._follow(old, new)
            journal.unlink(missing_ok=True)
