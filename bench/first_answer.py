"""The first answer of a started server, ours beside its floors and peers, in one run.

    python -m bench.first_answer --sizes 1000,10000,100000 --runs 5 [--peers] [--keep DIR]

Every figure of issue 35's acceptance, side by side, the cases alternated repetition by
repetition (so all see the same load), medians, ratios and `/proc/loadavg` at start and end:

- **first answer over stdio**: one SDK client (`mcp.Client`, the initialize handshake) spawns
  the server and asks one tool; the time runs from the spawn to that answer, initialize
  included (and the `tools/list` the SDK client sends before it validates the first result
  against its output schema, as every host lists tools at start). Cases: the SDK's no-op
  server (`bench.null_server`, tool `noop`); `tasks-server serve --root DIR` on a generated
  tree (`bench.generate`) of each size, warm (`.tasks-index/` present) and cold (deleted
  before each run), asked `list_tasks` with `limit: 1` (the cheapest call that answers
  from the loaded tree; the peers are asked the same of theirs). Sizes of 100k and over run
  `--big-runs` repetitions only. Ratios: at every size ours / no-op; and "x the read floor
  over the no-op's start", (ours - no-op) / read floor, the floor being `bench.read_floor`
  (walk and read every task file's bytes, in this process, warm page cache) measured in
  the same repetitions. Targets (issue 35): 1k warm <= 1.15x the no-op, 10k cold <= 3x and
  warm <= 1.5x, 100k warm <= 1.5x the floor.
- **resident memory of the serving process** after its first answer (VmRSS of the process
  the client spawned, the MCP edge included, plus any child it started: Backlog.md's
  launcher runs its binary as one), warm and cold; target at 100k <= 300 MB.
- **`tasks-server ready --root data`** (the bundled tree) against `python -c "import
  mcp.server"` (importing the SDK's server package), both whole processes of this venv's
  interpreter; target <= 0.5x.
- **fsyncs per one-task write** (`bench.fsync_count`, strace), per tool; target exactly 2.
- with `--peers`: Backlog.md 1.52.0 and Task Master 0.43.1 (`bench.peers`) on the same
  trees (sizes up to 10k), through the same client, and ours / peer.

`--keep DIR` keeps the generated trees in DIR and reuses them on the next run (a 100k tree
takes a while to generate). `tasks-server` is this venv's console script, run with this
checkout first on `PYTHONPATH`. Figures only, no assertions.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from bench import fsync_count, peers
from bench.generate import generate_tree
from bench.peers import Server
from bench.read_floor import iter_markdown, read_floor

__all__ = ["Case", "first_answer", "main"]

HERE = Path(__file__).resolve().parent.parent
PYTHON_ENV = {"PYTHONPATH": str(HERE)}
BIG = 100_000


@dataclass(frozen=True, slots=True)
class Case:
    """One kind of start: the server and its first call, what to do before, its tree size."""

    server: Server
    before: Callable[[], None] | None = None
    size: int = 0
    big: bool = False
    prime: bool = True  # one untimed start before the timed ones

    @property
    def label(self) -> str:
        return self.server.label


@dataclass(slots=True)
class Samples:
    seconds: list[float] = field(default_factory=list)
    rss_mb: list[float] = field(default_factory=list)

    def median_ms(self) -> float:
        return statistics.median(self.seconds) * 1000 if self.seconds else float("nan")


def ours_command() -> tuple[str, list[str]]:
    """This venv's `tasks-server` script, else `python -m tasks_server`."""
    script = Path(sys.executable).with_name("tasks-server")
    return (str(script), []) if script.exists() else (sys.executable, ["-m", "tasks_server"])


def serve_params(root: Path) -> StdioServerParameters:
    command, head = ours_command()
    args = [*head, "serve", "--root", str(root)]
    return StdioServerParameters(command=command, args=args, env=PYTHON_ENV, cwd=HERE)


def noop_case() -> Case:
    args = ["-m", "bench.null_server"]
    params = StdioServerParameters(command=sys.executable, args=args, env=PYTHON_ENV, cwd=HERE)
    return Case(Server("SDK no-op server", params, "noop", {}))


def ours_cases(root: Path, size: int) -> list[Case]:
    """Warm and cold starts of `serve` over the tree at `root`."""
    index = root / ".tasks-index"
    big = size >= BIG

    def drop_cache() -> None:
        shutil.rmtree(index, ignore_errors=True)

    def server(kind: str) -> Server:
        return Server(f"ours {_k(size)} {kind}", serve_params(root), "list_tasks", {"limit": 1})

    def warm_cache() -> None:
        if not index.exists():
            anyio.run(first_answer, Case(server("priming")))

    return [
        Case(server("warm"), warm_cache, size, big),
        Case(server("cold"), drop_cache, size, big, prime=False),
    ]


def _k(size: int) -> str:
    return f"{size // 1000}k" if size % 1000 == 0 else str(size)


def _parents() -> dict[int, int]:
    """Every process id -> its parent's (Linux /proc)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            found[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    return found


def _children() -> set[int]:
    """Ids of this process's child processes."""
    me = os.getpid()
    return {pid for pid, parent in _parents().items() if parent == me}


def tree_rss_mb(pid: int) -> float:
    """Resident MB of process `pid` and its descendants (a launcher's child counts)."""
    parents, family, total = _parents(), {pid}, 0.0
    while grown := {p for p, parent in parents.items() if parent in family} - family:
        family |= grown
    for member in family:
        total += rss_mb(member)
    return total


def rss_mb(pid: int) -> float:
    """Resident memory of process `pid` in MB (VmRSS), 0 when it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


async def first_answer(case: Case) -> tuple[float, float]:
    """Seconds from spawning the server to its first answer, and its resident MB then."""
    before = _children()
    started = time.perf_counter()
    server = case.server
    async with Client(server.params, mode="legacy") as client:
        result = await client.call_tool(server.tool, server.arguments)
        seconds = time.perf_counter() - started
        spawned = _children() - before
        memory = sum(tree_rss_mb(pid) for pid in spawned)
    if result.is_error:
        raise RuntimeError(f"{case.label}: {server.tool} answered an error: {result.content}")
    return seconds, memory


def whole_process(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, capture_output=True, env={**os.environ, **PYTHON_ENV}, check=True)
    return time.perf_counter() - started


def cli_commands() -> dict[str, list[str]]:
    command, head = ours_command()
    return {
        "tasks-server ready --root data": [command, *head, "ready", "--root", str(HERE / "data")],
        "python -c 'import mcp.server'": [sys.executable, "-c", "import mcp.server"],
    }


@dataclass(slots=True)
class Run:
    """Everything one bench run measures."""

    cases: list[Case]
    trees: dict[int, Path]
    starts: dict[str, Samples] = field(default_factory=dict)
    floors: dict[int, list[float]] = field(default_factory=dict)
    cli: dict[str, list[float]] = field(default_factory=dict)


def prime(run: Run) -> None:
    """One untimed start of each case that wants one: caches, page cache, .pyc files."""
    for case in run.cases:
        if case.prime:
            if case.before:
                case.before()
            anyio.run(first_answer, case)


def one_repetition(run: Run, rep: int, big_runs: int) -> None:
    """Every case once (the big ones only in the first `big_runs`), then the floors and
    the commands."""
    for case in run.cases:
        if case.big and rep >= big_runs:
            continue
        if case.before:
            case.before()
        seconds, memory = anyio.run(first_answer, case)
        samples = run.starts.setdefault(case.label, Samples())
        samples.seconds.append(seconds)
        samples.rss_mb.append(memory)
    for size, root in run.trees.items():
        if size < BIG or rep < big_runs:
            run.floors.setdefault(size, []).append(read_floor(root, 1).seconds)
    for name, command in cli_commands().items():
        run.cli.setdefault(name, []).append(whole_process(command))


def repeat(run: Run, runs: int, big_runs: int) -> None:
    """`runs` repetitions of every case, floor and command, alternated."""
    prime(run)
    for rep in range(runs):
        one_repetition(run, rep, big_runs)
        print(f"  repetition {rep + 1}/{runs} done", file=sys.stderr)


def render(run: Run, peer_labels: dict[int, list[str]]) -> list[str]:
    noop = run.starts[noop_case().label].median_ms()
    lines = [
        "first answer over stdio (SDK client, spawn to the first tools/call answer)",
        f"{'case':<24}{'median ms':>10}{'min ms':>9}{'runs':>5}{'RSS MB':>8}"
        f"{'/ no-op':>9}{'floor ms':>9}{'x floor':>9}",
    ]
    for case in run.cases:
        samples = run.starts[case.label]
        ms = samples.median_ms()
        cells = f"{case.label:<24}{ms:>10.0f}{min(samples.seconds) * 1000:>9.0f}"
        cells += f"{len(samples.seconds):>5}{statistics.median(samples.rss_mb):>8.0f}"
        cells += f"{ms / noop:>8.2f}x"
        if case.size and case.label.startswith("ours"):
            floor = statistics.median(run.floors[case.size]) * 1000
            cells += f"{floor:>9.0f}{(ms - noop) / floor:>8.2f}x"
        lines.append(cells)
    lines += _peer_ratios(run, peer_labels)
    lines.append("\nwhole commands, this venv's interpreter")
    cli = {name: statistics.median(times) * 1000 for name, times in run.cli.items()}
    for name, ms in cli.items():
        lines.append(f"  {name:<34}{ms:>7.0f} ms (min {min(run.cli[name]) * 1000:.0f})")
    ready, sdk = cli.values()
    lines.append(f"  ready / SDK server import: {ready / sdk:.2f}x (target <= 0.5x)")
    return lines


def _peer_ratios(run: Run, peer_labels: dict[int, list[str]]) -> list[str]:
    lines = []
    for size, labels in peer_labels.items():
        warm = run.starts[f"ours {_k(size)} warm"].median_ms()
        cold = run.starts[f"ours {_k(size)} cold"].median_ms()
        for label in labels:
            peer = run.starts[label].median_ms()
            lines.append(
                f"ours {_k(size)} / {label}: warm {warm / peer:.2f}x, cold {cold / peer:.2f}x"
            )
    return ["", *lines] if lines else []


def trees(sizes: Sequence[int], keep: Path) -> dict[int, Path]:
    """A generated tree of each size under `keep`, reused when already there."""
    found = {}
    for size in sizes:
        root = keep / f"t{size}"
        if sum(1 for _ in iter_markdown(root)) != size if root.exists() else True:
            shutil.rmtree(root, ignore_errors=True)
            generate_tree(root, size, seed=1)
        found[size] = root
    return found


def loadavg() -> str:
    return Path("/proc/loadavg").read_text().strip()


def bench(args: argparse.Namespace, keep: Path) -> list[str]:
    sizes = [int(part) for part in args.sizes.split(",") if part.strip()]
    run = Run([noop_case()], trees(sizes, keep))
    for size, root in run.trees.items():
        run.cases += ours_cases(root, size)
    peer_labels, notes = _add_peers(run, keep) if args.peers else ({}, [])
    repeat(run, args.runs, args.big_runs)
    lines = render(run, peer_labels) + notes
    if args.fsync_writes:
        lines += ["", *fsync_count.report(keep / "fsync", args.fsync_writes, serve_params)]
    return lines


def _add_peers(run: Run, keep: Path) -> tuple[dict[int, list[str]], list[str]]:
    """Peer cases over the trees of at most 10k tasks."""
    if (why := peers.install()) is not None:
        return {}, [f"peers skipped: {why}"]
    labels, notes = {}, []
    for size, root in run.trees.items():
        if size > 10_000:
            continue
        ready, problems = peers.prepare(root, keep / f"peers{size}", _k(size))
        notes += problems
        run.cases += [Case(server, size=size) for server in ready]
        labels[size] = [p.label for p in ready]
    return labels, notes


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.first_answer", description=__doc__)
    parser.add_argument("--sizes", default="1000,10000", help="tree sizes, comma-separated")
    parser.add_argument("--runs", type=int, default=5, help="repetitions to take medians of")
    parser.add_argument("--big-runs", type=int, default=2, help="repetitions at 100k and over")
    parser.add_argument("--peers", action="store_true", help="Backlog.md and Task Master too")
    parser.add_argument("--fsync-writes", type=int, default=10, help="writes per tool (0: none)")
    parser.add_argument("--keep", type=Path, default=None, help="keep and reuse trees here")
    args = parser.parse_args(argv)
    print(f"load at start: {loadavg()}")
    started = time.perf_counter()
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        lines = bench(args, args.keep)
    else:
        with tempfile.TemporaryDirectory() as folder:
            lines = bench(args, Path(folder))
    print("\n".join(lines))
    print(f"load at end: {loadavg()} ({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
