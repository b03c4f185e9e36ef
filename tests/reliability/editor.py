"""An editor process saving task files under running servers, in place and by rename.

Run as `python -m tests.reliability.editor ROOT STOP_FILE SEED FILE...`: until STOP_FILE
exists (or `MAX_SAVES`), it appends a line `editor-<n>` to the body of a random FILE and
saves, each time in one of two ways, as editors do. A FILE given as `@LIST` names a file
holding the paths, one per line, read again before every save: a test moves the editor
onto the files its servers are writing now.

- in place: open the file, truncate it, write the new bytes (vim with `backupcopy=yes`);
- by rename: write a new file beside it and rename it over the old one.

Like an editor that checks for "file changed on disk", it saves only over the bytes it
read: in place, it compares them just before truncating, and afterwards makes sure its line
is in the file (a server that renamed in between has the last word: it saves again). By
rename, it swaps atomically (`renameat2` exchange) and looks at what it displaced: when
that is not what it read (a server wrote in between), it makes its own change again on the
displaced file (a 3-way merge: each frontmatter key it changed, for a list the items it
added and removed, the lines it added) and on whatever a server wrote over its swapped-in
file meanwhile, and saves that, so no server write is lost by the editor. What the
servers must do is the rest: never overwrite a save made after their read.

Prints one JSON line: the markers saved and how."""

from __future__ import annotations

import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

from storage import codec
from storage.files import exchange

MAX_SAVES = 20_000  # a bound; the test stops the editor when its servers are done
PAUSE = float(os.environ.get("EDITOR_PAUSE", "0.003"))  # at most, between two saves
_MISSING = object()


def _read(path: Path) -> tuple[bytes, int]:
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.read(fd, 1 << 20), os.fstat(fd).st_ino
    finally:
        os.close(fd)


def _with_line(data: bytes, line: str) -> bytes:
    return data + line.encode() + b"\n"


def _pieces(data: bytes) -> tuple[dict[str, Any], str]:
    parts = codec.split(data.decode())
    return codec.parse_front(parts), parts.body


def merged(base: bytes, ours: bytes, theirs: bytes) -> bytes:
    """`theirs` with the change from `base` to `ours` made on it: every frontmatter key
    `ours` changed (a list: the items it added and removed) or removed, and the text `ours`
    added at the end of the body (the whole body of `ours`, when it is not `base`'s with
    lines added)."""
    base_front, base_body = _pieces(base)
    our_front, our_body = _pieces(ours)
    their_front, their_body = _pieces(theirs)
    changes: dict[str, object] = {
        key: _merged_value(base_front.get(key, _MISSING), value, their_front.get(key, _MISSING))
        for key, value in our_front.items()
        if base_front.get(key, _MISSING) != value
    }
    changes |= {key: codec.DELETE for key in base_front if key not in our_front}
    body = their_body
    if our_body != base_body:
        added = our_body[len(base_body) :]
        if not our_body.startswith(base_body):
            body = our_body
        elif added not in their_body:
            body = their_body + added
    return codec.update_text(theirs.decode(), changes, "x.md", body=body).encode()


def _merged_value(base: object, ours: object, theirs: object) -> object:
    """A key both sides may have changed: for lists (tags), `theirs` without the items
    `ours` removed from `base`, then the items `ours` added; else `ours`. A key-level merge
    would drop a server's tag that the editor's swap had displaced, when a second server
    added its own tag on the file the editor had swapped in."""
    if not (isinstance(base, list) and isinstance(ours, list) and isinstance(theirs, list)):
        return ours
    kept = [item for item in theirs if item in ours or item not in base]
    return kept + [item for item in ours if item not in base and item not in kept]


def save_in_place(path: Path, line: str) -> int:
    """Saves of `line` tried until one is in the file; returns how many were tried."""
    for tries in range(1, 1000):
        data, ino = _read(path)
        fd = os.open(path, os.O_RDWR)
        try:
            if os.fstat(fd).st_ino != ino or os.pread(fd, len(data) + 1, 0) != data:
                continue  # changed since our read: read again
            os.ftruncate(fd, 0)
            os.pwrite(fd, _with_line(data, line), 0)
        finally:
            os.close(fd)
        if line.encode() in _read(path)[0]:
            return tries
    raise AssertionError(f"in-place save of {line} never held")


def save_by_rename(path: Path, line: str) -> int:
    """Saves of `line` tried until one displaced exactly what it was based on."""
    temp = path.with_name(f".{path.name}.editor")
    base, ino = _read(path)
    new = _with_line(base, line)
    for tries in range(1, 1000):
        temp.write_bytes(new)
        if not exchange(temp, path):
            raise AssertionError("renameat2 exchange is needed for this test")
        displaced, displaced_ino = _read(temp)
        temp.unlink()
        if displaced_ino == ino and displaced == base:
            return tries
        # A server wrote between our read and our save: our change goes onto its write,
        # and onto what a server may have written since over the file we swapped in.
        wanted = merged(base, new, displaced)
        now, ino = _read(path)
        new, base = merged(new, now, wanted), now
    raise AssertionError(f"save by rename of {line} never held")


def _files(root: Path, names: list[str]) -> list[Path]:
    """The files to edit now: the names given, or those listed in an `@LIST` file."""
    if len(names) == 1 and names[0].startswith("@"):
        names = Path(names[0][1:]).read_text().split()
    return [root / name for name in names]


def main() -> None:
    root, stop, seed = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    saved: dict[str, list[str]] = {}
    counts = {"in place": 0, "by rename": 0, "tries": 0}
    for n in range(MAX_SAVES):
        if stop.exists():
            break
        path, line = rng.choice(_files(root, sys.argv[4:])), f"editor-{n:05d}"
        how = rng.choice(["in place", "by rename"])
        save = save_in_place if how == "in place" else save_by_rename
        counts["tries"] += save(path, line)
        counts[how] += 1
        saved.setdefault(str(path.relative_to(root)), []).append(line)
        time.sleep(rng.uniform(0, PAUSE))  # a pause between saves: the editing
    print(json.dumps({"saved": saved, "counts": counts}))


if __name__ == "__main__":
    main()
