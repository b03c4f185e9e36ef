"""Which task tree a command serves: one rule, and never the working directory.

The root is `--root DIR`, else `$TASKS_ROOT` (empty counts as unset), else the example tree
bundled with the package. The working directory is never a default: a desktop client often
starts servers with `/` or the home folder as their working directory, and nothing unbounded
may be scanned by accident.

The example tree lives at the repository's top-level `data/`; a wheel installs it as
`tasks_server/example` (pyproject's package-dir), and `bundled_root` finds either.

A root that is missing, not a folder or unreadable is a `BadRoot` whose message is the one
line the command prints before it exits with status 2.

>>> choose(Path("a"), {"TASKS_ROOT": "b"})
(PosixPath('a'), '--root')
>>> choose(None, {"TASKS_ROOT": "b"})
(PosixPath('b'), 'TASKS_ROOT')
>>> choose(None, {"TASKS_ROOT": ""}) == (bundled_root(), BUNDLED)
True
"""

from __future__ import annotations

import argparse
import os
import shutil
from collections.abc import Mapping
from pathlib import Path

__all__ = [
    "BUNDLED",
    "ENV",
    "FLAG",
    "PSEUDO_TYPES",
    "BadRoot",
    "bundled_root",
    "check",
    "choose",
    "copy_example",
    "flag_path",
    "for_command",
    "is_installed_example",
    "mount_type",
    "refusal",
    "resolve",
]

FLAG = "--root"
ENV = "TASKS_ROOT"
BUNDLED = "the bundled example"

_FIXES = {
    FLAG: f"pass {FLAG} a folder of task files",
    ENV: f"set {ENV} to a folder of task files, or unset it to serve the bundled example",
    BUNDLED: f"reinstall tasks-server, or pass {FLAG} a folder of task files",
}


class BadRoot(Exception):
    """A root that cannot be served; the message is one line naming the path and the fix."""


def bundled_root() -> Path:
    """The example tree: `tasks_server/example` in a wheel, else the checkout's `data/`
    (a source tree or an editable install)."""
    package = Path(__file__).resolve().parent
    installed = package / "example"
    return installed if installed.is_dir() else package.parent / "data"


def is_installed_example(root: Path) -> bool:
    """True for the example inside an installed package: served read-only, since anything
    written there lands in site-packages and outlives `pip uninstall`. A clone's `data/`
    is not it, and stays writable for development."""
    return root.resolve() == Path(__file__).resolve().parent / "example"


_NOT_COPIED = shutil.ignore_patterns(".tasks-index", ".trash", ".workflow", "odd")
"""What `copy_example` leaves behind: the server's own folders (caches, trash, bot state)
and the clone's malformed test fixtures."""


def copy_example(target: Path) -> Path:
    """A writable copy of the bundled example at `target` (a new or empty folder); BadRoot
    when `target` holds anything already (nothing of it is overwritten)."""
    try:
        if target.exists() and (not target.is_dir() or any(target.iterdir())):
            raise BadRoot(f"tasks-server init: {target} exists and is not an empty folder")
        try:
            shutil.copytree(bundled_root(), target, ignore=_NOT_COPIED, dirs_exist_ok=True)
        except BaseException:  # Ctrl-C or a failed copy: leave the folder as it was, empty
            for copied in target.iterdir() if target.is_dir() else ():
                shutil.rmtree(copied) if copied.is_dir() else copied.unlink()
            raise
    except OSError as exc:
        raise BadRoot(f"tasks-server init: cannot copy into {target}: {exc.strerror}") from None
    return target


def flag_path(text: str) -> Path:
    """`--root`'s type: a path, never empty (an unset shell variable must not mean `.`)."""
    if not text:
        raise argparse.ArgumentTypeError("the root must not be empty")
    return Path(text)


def choose(flag: Path | None, environ: Mapping[str, str]) -> tuple[Path, str]:
    """The root by the rule, and where it came from (no I/O beyond finding the example)."""
    if flag is not None:
        return flag, FLAG
    if environ.get(ENV):
        return Path(environ[ENV]), ENV
    return bundled_root(), BUNDLED


def _problem(error: OSError) -> str:
    if isinstance(error, NotADirectoryError):
        return "is not a folder"
    return f"cannot be read ({error.strerror or error})"


PSEUDO_TYPES = frozenset(
    {"proc", "sysfs", "devtmpfs", "devpts", "cgroup", "cgroup2", "debugfs", "tracefs",
     "securityfs", "pstore", "bpf", "configfs", "fusectl", "mqueue", "hugetlbfs", "autofs",
     "binfmt_misc", "efivarfs", "selinuxfs", "rpc_pipefs", "nsfs"}
)  # fmt: skip
"""Kernel file systems: files made up on reading, never task trees (and endless to walk)."""

_KERNEL_FOLDERS = ("/proc", "/sys")
"""Refused with all below them, even where mountinfo is not there to read."""


def mount_type(path: str, mountinfo: str = "/proc/self/mountinfo") -> str | None:
    """The file-system type of the mount holding the absolute `path` (the longest mount
    point above it), from `mountinfo`; None when that cannot be read (not Linux)."""
    try:
        with open(mountinfo, encoding="utf-8", errors="replace") as lines:
            mounts = [_mount_of(line) for line in lines]
    except OSError:
        return None
    above = [(point, kind) for point, kind in mounts if _is_under(path, point)]
    return max(above, key=lambda mount: len(mount[0]))[1] if above else None


def _mount_of(line: str) -> tuple[str, str]:
    """(mount point, file-system type) of one mountinfo line (spaces come as `\\040`)."""
    fields, _, rest = line.partition(" - ")
    point = fields.split(" ")[4].replace("\\040", " ").replace("\\011", "\t")
    return point, rest.split(" ", 1)[0]


def _is_under(path: str, folder: str) -> bool:
    return folder in ("/", path) or path.startswith(folder.rstrip("/") + "/")


def refusal(path: Path) -> str | None:
    """Why `path` is never served, or None: the file-system root, or a kernel
    (pseudo) file system such as /proc, /sys or /dev. Checked before any walk."""
    real = os.path.realpath(path)
    if real == "/":
        return "is the file-system root: refusing to walk the whole disk"
    kind = mount_type(real)
    if kind in PSEUDO_TYPES:
        return f"is on a kernel file system ({kind}), not a task tree: refusing to walk it"
    if real == "/dev" or any(_is_under(real, folder) for folder in _KERNEL_FOLDERS):
        return "is a kernel folder, not a task tree: refusing to walk it"
    return None


def check(path: Path, source: str, *, may_be_missing: bool = False) -> Path:
    """`path` when it is a readable folder (or absent, with `may_be_missing`) that may be
    walked (`refusal`); else BadRoot."""
    try:
        with os.scandir(path):
            pass
    except FileNotFoundError:
        if not may_be_missing:
            raise BadRoot(_line(path, source, "does not exist")) from None
    except OSError as error:
        raise BadRoot(_line(path, source, _problem(error))) from None
    refused = refusal(path)
    if refused is not None:
        raise BadRoot(_line(path, source, refused))
    return path


def _line(path: Path, source: str, problem: str) -> str:
    origin = f"from {source}" if source in (FLAG, ENV) else source
    return f"tasks-server: task root {os.path.abspath(path)} ({origin}) {problem}; {_FIXES[source]}"


def resolve(flag: Path | None, environ: Mapping[str, str] | None = None) -> Path:
    """The root a command serves, checked: see the module's rule."""
    path, source = choose(flag, os.environ if environ is None else environ)
    return check(path, source)


def for_command(command: str, flag: Path | None) -> Path:
    """The checked root of a CLI command: `import` writes into its `--root` (created when
    missing); every other command serves the root the rule picks."""
    if command == "import" and flag is not None:
        return check(flag, FLAG, may_be_missing=True)
    return resolve(flag)
