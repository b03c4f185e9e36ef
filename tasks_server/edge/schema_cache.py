"""The built-in tools' published schemas, kept across starts the way Python keeps bytecode.

A tool's two published schemas (`edge.schemas`) cost its models' pydantic core schemas and
JSON Schemas: for the 32 tools a default session lists, more than a third of what a start
spends past the SDK's own import (docs/performance.md, "Start"). They
follow from the code alone (our three packages, pydantic, Python), so they are written once,
with the shared arguments' schemas the session's instructions give, to
`tasks_server/__pycache__/tool-schemas.<fingerprint>.json`, and read back at the next
start. The fingerprint hashes those versions and every source file's path, size and mtime
(what Python checks before it trusts a `.pyc`): any change to the code names another file,
so a schema made by other code is never read, and saving removes the files of other
fingerprints. Only tools declared in code (`registry.is_declared`) are kept: a bot's tools
are made from its config file, so theirs are made at every start. Best effort both ways: a
file that cannot be read or parsed is made again, a folder that cannot be written holds
no cache, and the start goes on."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
import tempfile
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any, TypeVar, cast

import pydantic
import pydantic_core

import graph
import storage
import tasks_server
from tasks_server.registry import FACT_KEYS, deferred, discover, facts_of, is_declared
from tasks_server.spec import ToolSpec

__all__ = ["SchemaCache", "Schemas", "declared_tools", "fingerprint", "schema_cache"]

T = TypeVar("T")

log = logging.getLogger(__name__)

Schemas = tuple[dict[str, Any], dict[str, Any]]
"""A tool's published input schema and output schema."""

PACKAGES = (storage, graph, tasks_server)
PREFIX = "tool-schemas."


def _sources(folder: Path) -> Iterable[str]:
    """`path:size:mtime` of every Python source under `folder`, in a fixed order."""
    for parent, folders, files in os.walk(folder):
        folders[:] = sorted(name for name in folders if name != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                stat = os.stat(os.path.join(parent, name))
                yield f"{parent}/{name}:{stat.st_size}:{stat.st_mtime_ns}"


def fingerprint() -> str:
    """A name for this code: Python's and pydantic's versions and every source file of
    storage, graph and tasks_server by path, size and mtime (about 1 ms)."""
    digest = hashlib.sha256()
    versions = (sys.version, pydantic.VERSION, pydantic_core.__version__)
    digest.update(repr(versions).encode())
    for package in PACKAGES:
        for line in _sources(Path(str(package.__file__)).parent):
            digest.update(line.encode(errors="surrogateescape"))
    return digest.hexdigest()[:32]


def _folder() -> Path:
    return Path(tasks_server.__file__).parent / "__pycache__"


class SchemaCache:
    """What this code made before (by key: a declared tool's schemas, the shared
    arguments'), and what it made since."""

    def __init__(self, path: Path | None, known: dict[str, Any]) -> None:
        self.path = path
        self._known = known
        self._made = False

    @classmethod
    def open(cls, folder: Path | None = None) -> SchemaCache:
        """The cache of this code in `folder` (default: `tasks_server/__pycache__`)."""
        path = (folder or _folder()) / f"{PREFIX}{fingerprint()}.json"
        return cls(path, _read(path))

    def kept(self, key: str, make: Callable[[], T], shape: Callable[[Any], bool]) -> T:
        """The value kept under `key` when it has the `shape` asked, else `make()`'s, kept."""
        found = self._known.get(key)
        if not shape(found):
            found = self._known[key] = make()
            self._made = True
        return cast("T", found)

    def schemas(self, spec: ToolSpec, make: Callable[[ToolSpec], Schemas]) -> Schemas:
        """`spec`'s schemas: kept ones for a declared tool, else `make(spec)`."""
        if not is_declared(spec):
            return make(spec)
        pair = self.kept(f"tool {spec.name}", lambda: list(make(spec)), _is_pair)
        return pair[0], pair[1]

    def save(self) -> None:
        """Write what was made since the start (nothing when nothing was)."""
        if not self._made or self.path is None:
            return
        try:
            _write(self.path, self._known)
        except OSError as exc:
            log.debug("tool schemas not cached: %s", exc)
        self._made = False


@cache
def schema_cache() -> SchemaCache:
    """This process's cache (one fingerprint per process: the code does not change under it)."""
    return SchemaCache.open()


def declared_tools(cache: SchemaCache | None = None) -> list[ToolSpec]:
    """The tools declared in code, as `registry.discover` gives them, from what their
    declarations said at the last start of this code (`registry.deferred`: a tool's module
    is imported at its first call); the first start imports them all and keeps that."""
    known = cache or schema_cache()
    facts = known.kept("declared tools", lambda: [facts_of(s) for s in discover()], _are_facts)
    return deferred(facts)


def _are_facts(found: Any) -> bool:
    return isinstance(found, list) and all(
        isinstance(fact, dict) and fact.keys() == FACT_KEYS for fact in found
    )


def _is_pair(found: Any) -> bool:
    return isinstance(found, list) and len(found) == 2 and all(isinstance(s, dict) for s in found)


def _read(path: Path) -> dict[str, Any]:
    try:
        known = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    return known if isinstance(known, dict) else {}


def _write(path: Path, known: dict[str, Any]) -> None:
    """Write `known` whole (a reader sees the old file or the new one, never half), then
    remove the files of other fingerprints. No fsync: a torn file is only made again."""
    path.parent.mkdir(exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(dict(sorted(known.items())), out)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    for other in path.parent.glob(f"{PREFIX}*.json"):
        if other != path:
            other.unlink(missing_ok=True)
