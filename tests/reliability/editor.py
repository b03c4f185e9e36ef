"""An editor process saving task files under running servers, in place and by rename.

Run as `python -m tests.reliability.editor ROOT STOP_FILE SEED FILE...`: until STOP_FILE
exists (or `MAX_SAVES`), it appends a line `editor-<n>` to the body of a random FILE and
saves, each time in one of two ways, as editors do:

- in place: open the file, truncate it, write the new bytes (vim with `backupcopy=yes`);
- by rename: write a new file beside it and rename it over the old one.

Like an editor that checks for "file changed on disk", it saves only over the bytes it
read: in place, it compares them just before truncating, and afterwards makes sure its line
is in the file (a server that renamed in between has the last word: it saves again). By
rename, it swaps atomically (`renameat2` exchange) and looks at what it displaced: when
that is not what it read (a server wrote in between), it merges the displaced file's tags
into its own and saves again, so no server write is lost by the editor. What the servers
must do is the rest: never overwrite a save made after their read.

Prints one JSON line: the markers saved and how."""

from __future__ import annotations

import json
import os
import random
import sys
import time
from pathlib import Path

from storage import codec
from storage.files import exchange

MAX_SAVES = 3000
PAUSE = 0.003  # at most, between two saves


def _read(path: Path) -> tuple[bytes, int]:
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.read(fd, 1 << 20), os.fstat(fd).st_ino
    finally:
        os.close(fd)


def _with_line(data: bytes, line: str) -> bytes:
    return data + line.encode() + b"\n"


def _tags(data: bytes) -> list[str]:
    return list(codec.from_bytes(data, "x.md").tags)


def _with_tags(data: bytes, tags: list[str]) -> bytes:
    return codec.update_text(data.decode(), {"tags": tags}, "x.md").encode()


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
    data, ino = _read(path)
    new = _with_line(data, line)
    for tries in range(1, 1000):
        temp.write_bytes(new)
        if not exchange(temp, path):
            raise AssertionError("renameat2 exchange is needed for this test")
        displaced, displaced_ino = _read(temp)
        temp.unlink()
        if displaced_ino == ino and displaced == data:
            return tries
        data, ino = _read(path)  # ours, or newer: keep the displaced server write's tags too
        merged = sorted(set(_tags(displaced)) | set(_tags(data)))
        new = _with_tags(data if line.encode() in data else _with_line(data, line), merged)
    raise AssertionError(f"save by rename of {line} never held")


def main() -> None:
    root, stop, seed = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    files = [root / name for name in sys.argv[4:]]
    rng = random.Random(seed)
    saved: dict[str, list[str]] = {str(f.relative_to(root)): [] for f in files}
    counts = {"in place": 0, "by rename": 0, "tries": 0}
    for n in range(MAX_SAVES):
        if stop.exists():
            break
        path, line = rng.choice(files), f"editor-{n:05d}"
        how = rng.choice(["in place", "by rename"])
        save = save_in_place if how == "in place" else save_by_rename
        counts["tries"] += save(path, line)
        counts[how] += 1
        saved[str(path.relative_to(root))].append(line)
        time.sleep(rng.uniform(0, PAUSE))  # a pause between saves: the editing
    print(json.dumps({"saved": saved, "counts": counts}))


if __name__ == "__main__":
    main()
