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
  (walk and read every task file's bytes, in this process) measured in the same
  repetitions. Before each timed start and each floor, every file of its tree is read
  once, untimed (`page_in`): all are measured with the tree in the page cache. Targets
  (issue 35): 1k warm <= 1.15x the no-op, 10k cold <= 3x and warm <= 1.5x, 100k warm
  <= 1.5x the floor.
- **CPU time** of each of those: the server's user + system CPU up to its first answer (its
  threads and any child, `bench.procs`, in 10 ms ticks), and of the read floor in this
  process, with the same ratios: other jobs on a shared machine move it far less than
  wall time (the issue's targets are wall time on a quiet machine; under load, read these).
- **resident memory of the serving process** after its first answer (VmRSS of the process
  the client spawned, the MCP edge included, plus any child it started: Backlog.md's
  launcher runs its binary as one), warm and cold; target at 100k <= 300 MB.
- **`tasks-server ready --root data`** (the bundled tree) against `python -c "import
  mcp.server"` (importing the SDK's server package), both whole processes of this venv's
  interpreter run as `bench.cli_bench` runs them (`python -m tasks_server` from this
  checkout, its code compiled once), wall and CPU; target <= 0.5x.
- **fsyncs per one-task write** (`bench.fsync_count`, strace), per tool; target exactly 2.
- with `--peers`: Backlog.md 1.52.0 and Task Master 0.43.1 (`bench.peers`) on the same
  trees (sizes up to 10k), through the same client, and ours / peer.

The read-floor ratio is printed from 10k tasks up (below, the floor is a few milliseconds
and the ratio says nothing); `--sizes 1,1000` shows how much of a 1k start a one-task tree
already takes. `--keep DIR` keeps the generated trees in DIR and reuses them on the next
run (a 100k tree takes a while to generate). `tasks-server` is this venv's console script,
run with this checkout first on `PYTHONPATH`. Figures only, no assertions.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from bench import fsync_count, peers
from bench.cli_bench import FLOOR, once
from bench.generate import generate_tree
from bench.peers import Server
from bench.procs import Usage, children, usage
from bench.read_floor import iter_markdown, read_floor

__all__ = ["Case", "first_answer", "main"]

HERE = Path(__file__).resolve().parent.parent
PYTHON_ENV = {"PYTHONPATH": str(HERE)}
BIG = 100_000
FLOORED = 10_000  # the smallest size whose start the issue measures against the read floor


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
    """Wall seconds to the first answer; the server's resident MB and CPU seconds then."""

    seconds: list[float] = field(default_factory=list)
    rss_mb: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    def add(self, seconds: float, used: Usage) -> None:
        self.seconds.append(seconds)
        self.rss_mb.append(used.rss_mb)
        self.cpu.append(used.cpu_seconds)

    def median_ms(self) -> float:
        return statistics.median(self.seconds) * 1000

    def cpu_ms(self) -> float:
        return statistics.median(self.cpu) * 1000


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
        page_in(root)

    def server(kind: str) -> Server:
        return Server(f"ours {_k(size)} {kind}", serve_params(root), "list_tasks", {"limit": 1})

    def warm_cache() -> None:
        if not index.exists():
            anyio.run(first_answer, Case(server("priming")))
        page_in(root)

    return [
        Case(server("warm"), warm_cache, size, big),
        Case(server("cold"), drop_cache, size, big, prime=False),
    ]


def page_in(root: Path) -> None:
    """Read every file under `root` (its `.tasks-index/` too), untimed, so that a start and
    the floor both find the tree in the page cache. This machine's kernel pages out memory
    not touched for a while (DAMON's `pageout`), page cache included: without this, a cold
    start that came a while after the tree was last read read it from disk (10k: 6.5-8.8 s
    where the next took 1.3-1.6 s; 100k: 16-31 s where others took 5-7 s)."""
    for folder, _, names in os.walk(root):
        for name in names:
            with contextlib.suppress(OSError), open(os.path.join(folder, name), "rb") as stream:
                while stream.read(1 << 20):
                    pass


def _k(size: int) -> str:
    return f"{size // 1000}k" if size % 1000 == 0 else str(size)


async def first_answer(case: Case) -> tuple[float, Usage]:
    """Seconds from spawning the server to its first answer, and its usage then."""
    before = children()
    started = time.perf_counter()
    server = case.server
    async with Client(server.params, mode="legacy") as client:
        result = await client.call_tool(server.tool, server.arguments)
        seconds = time.perf_counter() - started
        spawned = [usage(pid) for pid in children() - before]  # one, unless a stray exits
        used = Usage(sum(u.rss_mb for u in spawned), sum(u.cpu_seconds for u in spawned))
    if result.is_error:
        raise RuntimeError(f"{case.label}: {server.tool} answered an error: {result.content}")
    return seconds, used


def cli_commands() -> dict[str, list[str]]:
    """`ready` and the floor, as `bench.cli_bench` runs them (its `once`: one timing of a
    whole command for both benches)."""
    return {
        "tasks-server ready --root data": ["ready", "--root", str(HERE / "data")],
        "python -c 'import mcp.server'": ["-c", FLOOR],
    }


@dataclass(slots=True)
class Run:
    """Everything one bench run measures."""

    cases: list[Case]
    trees: dict[int, Path]
    starts: dict[str, Samples] = field(default_factory=dict)
    floors: dict[int, list[tuple[float, float]]] = field(default_factory=dict)  # wall, CPU
    cli: dict[str, list[tuple[float, float]]] = field(default_factory=dict)  # wall, CPU


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
        run.starts.setdefault(case.label, Samples()).add(*anyio.run(first_answer, case))
    for size, root in run.trees.items():
        if size < BIG or rep < big_runs:
            page_in(root)
            run.floors.setdefault(size, []).append(cpu_floor(root))
    for name, command in cli_commands().items():
        run.cli.setdefault(name, []).append(once(HERE, command))


def cpu_floor(root: Path) -> tuple[float, float]:
    """The read floor of the tree at `root` once: wall and CPU seconds."""
    started = time.process_time()
    wall = read_floor(root, 1).seconds
    return wall, time.process_time() - started


def repeat(run: Run, runs: int, big_runs: int) -> None:
    """`runs` repetitions of every case, floor and command, alternated."""
    prime(run)
    for rep in range(runs):
        one_repetition(run, rep, big_runs)
        print(f"  repetition {rep + 1}/{runs} done", file=sys.stderr)


def _median_ms(pairs: list[tuple[float, float]]) -> tuple[float, float]:
    """Median wall and CPU milliseconds of (wall, CPU) seconds."""
    walls, cpus = zip(*pairs, strict=True)
    return statistics.median(walls) * 1000, statistics.median(cpus) * 1000


def render(run: Run, peer_labels: dict[int, list[str]]) -> list[str]:
    """The tables: each start's wall and CPU time beside the no-op's and the read floor's."""
    noop = run.starts[noop_case().label]
    lines = [
        "first answer over stdio (SDK client, spawn to the first tools/call answer);",
        "wall ms, then the server's CPU ms (user + system, its threads and children);",
        "x floor = (ours - no-op) / read floor",
        f"{'case':<20}{'wall':>7}{'min':>7}{'runs':>5}{'RSS MB':>7}{'/no-op':>8}{'floor':>7}"
        f"{'x floor':>8}{'CPU':>7}{'/no-op':>8}{'floor':>7}{'x floor':>8}",
    ]
    for case in run.cases:
        lines.append(_row(case, run.starts[case.label], noop, run.floors.get(case.size)))
    lines += _peer_ratios(run, peer_labels)
    lines.append("\nwhole commands, this venv's interpreter: wall ms, CPU ms (medians)")
    cli = {name: _median_ms(pairs) for name, pairs in run.cli.items()}
    for name, (wall, cpu) in cli.items():
        lines.append(f"  {name:<34}{wall:>7.0f}{cpu:>7.0f}")
    (ready, ready_cpu), (sdk, sdk_cpu) = cli.values()
    lines.append(
        f"  ready / SDK server import: {ready / sdk:.2f}x wall, {ready_cpu / sdk_cpu:.2f}x CPU"
        " (target <= 0.5x)"
    )
    return lines


def _row(
    case: Case, samples: Samples, noop: Samples, floors: list[tuple[float, float]] | None
) -> str:
    wall, cpu = samples.median_ms(), samples.cpu_ms()
    cells = f"{case.label:<20}{wall:>7.0f}{min(samples.seconds) * 1000:>7.0f}"
    cells += f"{len(samples.seconds):>5}{statistics.median(samples.rss_mb):>7.0f}"
    cells += f"{wall / noop.median_ms():>7.2f}x"
    floored = case.label.startswith("ours") and case.size >= FLOORED
    floor_wall, floor_cpu = _median_ms(floors) if floored and floors else (0.0, 0.0)
    if floor_wall:
        cells += f"{floor_wall:>7.0f}{(wall - noop.median_ms()) / floor_wall:>7.2f}x"
    else:
        cells += " " * 15
    cells += f"{cpu:>7.0f}{cpu / noop.cpu_ms():>7.2f}x"
    if floor_cpu:
        cells += f"{floor_cpu:>7.0f}{(cpu - noop.cpu_ms()) / floor_cpu:>7.2f}x"
    return cells


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
        tree = partial(page_in, keep / f"peers{size}")
        run.cases += [Case(server, tree, size=size) for server in ready]
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
