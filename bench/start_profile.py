"""Where a start's time goes: imports by package, then each step of `serve` up to its first answer.

    python -m bench.start_profile --root DIR [--cold] [--cprofile 30]
    python -m bench.start_profile --sizes 10000

1. **Imports** of a real `tasks-server serve` process, started with `python -X importtime`
   and spoken to by a raw JSON-RPC client (`initialize`, `tools/list`, `list_tasks` with
   `limit: 1`), so imports made lazily by the first call count too, beside the SDK's no-op
   server asked the same way; and of `tasks-server ready --root data` beside `python -c
   "import mcp.server"` (the floors of issue 35). Self time summed by group: the top-level
   package (`mcp`, `pydantic`, `networkx`, ...), ours by layer (`storage`, `graph`,
   `tasks_server.<subpackage>`), with the number of modules each brought. `-X importtime`
   slows imports a little: read the shares, not the absolute sum.
2. **Steps**, in a fresh interpreter, the server built as `serve` builds it
   (`create_server`'s two steps), each timed: importing the CLI, importing the MCP edge
   (the SDK and our tools), opening the tree (of it: the inotify watch or watcher thread,
   cache load, walk, parse, index build, cache save, bots; when a forked child walked
   while the cache was decoded, "walk forked: True" and the walk is the wait for what was
   left of the child's walk plus the compare of its marks), discovering the tool specs,
   building the SDK server (tool and schema objects), then, through an in-process SDK client
   (no pipe), `tools/list` (output schemas) and the first `list_tasks`. `--cold` deletes
   the tree's `.tasks-index/` first. `--cprofile N` runs the steps once more under
   cProfile (slower: its step times are not the ones to quote) and prints the N functions
   with the most cumulative time.
Figures only.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import pstats
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.generate import generate_tree
from bench.raw_client import RawClient

__all__ = ["import_groups", "main"]

HERE = Path(__file__).resolve().parent.parent
OURS = ("storage", "graph", "tasks_server")
STATS = ("cache_load", "walk", "parse", "index", "cache_save")  # the tree's own StartStats


def group_of(module: str) -> str:
    """The group a module's import time is summed under: ours by layer, others by package."""
    parts = module.strip().split(".")
    if parts[0] == "tasks_server":
        return ".".join(parts[:2])
    return parts[0]


def import_groups(log: str) -> dict[str, tuple[float, int]]:
    """`-X importtime` output -> group -> (self milliseconds, modules)."""
    found: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    for line in log.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, _, name = line.removeprefix("import time:").split("|")
        entry = found[group_of(name)]
        entry[0] += int(self_us) / 1000
        entry[1] += 1
    return {name: (ms, int(count)) for name, (ms, count) in found.items()}


def server_imports(args: list[str], tool: str, arguments: dict[str, Any]) -> str:
    """The `-X importtime` log of a server process (`python -X importtime ARGS`) up to its
    answer to `tools/list` and to one call of `tool`."""
    with tempfile.TemporaryFile("w+") as log:
        client = RawClient(["-X", "importtime", *args], cwd=HERE, stderr=log)
        client.request("tools/list", {})
        client.call(tool, arguments)
        client.close()
        log.seek(0)
        return log.read()


def command_imports(args: list[str]) -> str:
    """The `-X importtime` log of `python -X importtime ARGS`, run to its end."""
    command = [sys.executable, "-X", "importtime", *args]
    return subprocess.run(command, cwd=HERE, capture_output=True, text=True, check=False).stderr


def render_imports(title: str, log: str, floor: str, top: int = 18) -> list[str]:
    """The groups with the most import time, beside the same groups in `floor`'s log."""
    groups, base = import_groups(log), import_groups(floor)
    total = sum(ms for ms, _ in groups.values())
    count = sum(n for _, n in groups.values())
    floor_total = sum(ms for ms, _ in base.values())
    lines = [
        f"{title}: {total:.0f} ms self time over {count} modules"
        f" (the floor: {floor_total:.0f} ms over {sum(n for _, n in base.values())})",
        f"  {'group':<28}{'ms':>8}{'share':>7}{'modules':>9}{'floor ms':>10}{'modules':>9}",
    ]
    for name, (ms, n) in sorted(groups.items(), key=lambda item: -item[1][0])[:top]:
        low, low_n = base.get(name, (0.0, 0))
        lines.append(f"  {name:<28}{ms:>8.1f}{ms / total:>7.0%}{n:>9}{low:>10.1f}{low_n:>9}")
    ours = sum(ms for name, (ms, _) in groups.items() if name.split(".")[0] in OURS)
    lines.append(f"  (ours: storage, graph, tasks_server.*: {ours:.0f} ms, {ours / total:.0%})")
    return lines


class Steps:
    """Named wall times, in the order first seen; a step timed twice adds up."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def timed(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - started

    def wrap(self, owner: Any, attribute: str, name: str) -> None:
        """Time every call of `owner.attribute` under `name` (skipped when it is gone)."""
        original = getattr(owner, attribute, None)
        if original is None:
            return

        @functools.wraps(original)
        def timed_call(*args: Any, **kwargs: Any) -> Any:
            with self.timed(name):
                return original(*args, **kwargs)

        setattr(owner, attribute, timed_call)


def profile_steps(root: Path, steps: Steps) -> None:
    """Build and first-call a server over `root` as `serve` does, step by step."""
    with steps.timed("import tasks_server.cli"):
        import tasks_server.cli  # noqa: F401, PLC0415
    with steps.timed("import the edge (SDK, tools)"):
        from tasks_server import toolset as toolset_module  # noqa: PLC0415
        from tasks_server.context import ServerContext  # noqa: PLC0415
        from tasks_server.edge import server as edge  # noqa: PLC0415
        from tasks_server.live import LiveTree  # noqa: PLC0415
    parts = ["inotify watch", "watcher thread", *STATS, "bots", "discover tool specs"]
    for name in ["open the toolset (total)", *parts]:  # the order printed
        steps.seconds[name if name.startswith("open") else f"  {name}"] = 0.0
    steps.wrap(LiveTree, "_open_kernel_watch", "  inotify watch")
    steps.wrap(LiveTree, "_start_watcher", "  watcher thread")
    steps.wrap(ServerContext, "load_bots", "  bots")
    steps.wrap(toolset_module, "discover", "  discover tool specs")
    with steps.timed("open the toolset (total)"):
        toolset = toolset_module.open_toolset(root)
    stats = toolset.context.live.start_stats
    for name in STATS:
        steps.seconds[f"  {name}"] = getattr(stats, name, 0.0)
    files = (getattr(stats, "files_read", "?"), getattr(stats, "files_cached", "?"))
    forked: object = getattr(stats, "walk_forked", "?")  # "?": code from before the field
    print(f"files parsed {files[0]}, taken from the cache {files[1]}, walk forked: {forked}")
    with steps.timed("build the SDK server (tools, schemas)"):
        server = edge.TasksServer("tasks-server", toolset)
    import anyio  # noqa: PLC0415

    anyio.run(_first_calls, server, steps)
    server.close()


async def _first_calls(server: Any, steps: Steps) -> None:
    from mcp import Client  # noqa: PLC0415

    with steps.timed("client connect (in-process)"):
        client = await Client(server).__aenter__()
    with steps.timed("tools/list"):
        await client.list_tools()
    with steps.timed("first list_tasks limit 1"):
        await client.call_tool("list_tasks", {"limit": 1})
    await client.__aexit__(None, None, None)


def run_one(root: Path, cprofile: int) -> None:
    """The steps report, in this (fresh) interpreter."""
    steps = Steps()
    profiler = cProfile.Profile() if cprofile else None
    started = time.perf_counter()
    if profiler is not None:
        profiler.enable()
    profile_steps(root, steps)
    if profiler is not None:
        profiler.disable()
    total = time.perf_counter() - started
    under = " under cProfile" if cprofile else ""
    print(f"steps of a start, in-process{under} ({total * 1000:.0f} ms in all)")
    for name, seconds in steps.seconds.items():
        print(f"  {name:<40}{seconds * 1000:>9.1f} ms")
    if profiler is not None:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(cprofile)


def profile_tree(root: Path, cold: bool, cprofile: int) -> None:
    """Both reports for the tree at `root`."""
    index = root / ".tasks-index"
    if cold:
        shutil.rmtree(index, ignore_errors=True)
    serve = ["-m", "tasks_server", "serve", "--root", str(root)]
    noop = server_imports(["-m", "bench.null_server"], "noop", {})
    ours = server_imports(serve, "list_tasks", {"limit": 1})
    title = f"imports of `serve --root {root.name}` (floor: the SDK's no-op server)"
    print("\n".join(render_imports(title, ours, noop)))
    ready = command_imports(["-m", "tasks_server", "ready", "--root", str(HERE / "data")])
    sdk = command_imports(["-c", "import mcp.server"])
    title = "imports of `ready --root data` (floor: import mcp.server)"
    print("\n".join(render_imports(title, ready, sdk)))
    command = [sys.executable, "-m", "bench.start_profile", "--one", str(root)]
    for extra in [[], ["--cprofile", str(cprofile)]] if cprofile else [[]]:
        if cold:
            shutil.rmtree(index, ignore_errors=True)
        subprocess.run([*command, *extra], cwd=HERE, check=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.start_profile", description=__doc__)
    parser.add_argument("--root", type=Path, action="append", default=[], help="a tree")
    parser.add_argument("--sizes", default="", help="generate trees of these sizes instead")
    parser.add_argument("--cold", action="store_true", help="delete .tasks-index/ first")
    parser.add_argument("--cprofile", type=int, default=0, help="top N functions by cumulative")
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)  # the child's own run
    args = parser.parse_args(argv)
    if args.one is not None:
        run_one(args.one, args.cprofile)
        return 0
    for root in args.root:
        profile_tree(root.resolve(), args.cold, args.cprofile)
    for size in (int(part) for part in args.sizes.split(",") if part.strip()):
        with tempfile.TemporaryDirectory() as folder:
            generate_tree(Path(folder) / "tree", size, seed=1)
            profile_tree(Path(folder) / "tree", args.cold, args.cprofile)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
