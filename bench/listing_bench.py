"""Bytes of `tools/list` per role, as a real client receives it.

    python -m bench.listing_bench [--root DIR]

Prints, for each role, the number of tools, the compact-JSON size of the listing with
and without output schemas (most clients put only names, descriptions and input schemas in
the model's context), and the size of the server's instructions (sent once, in the
`initialize` result: what every tool shares is said there instead of in each tool), as the
rows of the README's table (a test keeps the two the same). Figures only.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import anyio
from mcp import Client

from tasks_server.edge.server import create_server
from tasks_server.roles import ROLES
from tasks_server.roots import bundled_root

TIERS = ("query", "mutation", "workflow", "admin")
DEFAULT = "all"


async def sizes(root: Path, role: str) -> tuple[int, int, int, int]:
    """Tools, bytes of `tools/list` with and without output schemas, bytes of the
    instructions (UTF-8)."""
    server = create_server(root, role=None if role == DEFAULT else role, watch=False)
    async with Client(server) as client:
        tools = (await client.list_tools()).tools
        instructions = client.instructions or ""
    server.close()
    full = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
    lean = [{k: v for k, v in t.items() if k != "outputSchema"} for t in full]
    said_once = len(instructions.encode())
    return len(tools), len(compact(full)), len(compact(lean)), said_once


def compact(data: object) -> str:
    return json.dumps(data, separators=(",", ":"))


def table_row(role: str, count: int, full: int, lean: int, said_once: int) -> str:
    """One row of the README's table."""
    name = f"`{role}` (default)" if role == DEFAULT else f"`{role}`"
    tiers = " + ".join(tier for tier in TIERS if tier in ROLES[role])
    return f"| {name} | {tiers} | {count} | {full:,} / {lean:,} | {said_once:,} |"


def table_rows(root: Path) -> list[str]:
    """The README table's rows for the tree at `root`, every role."""
    return [table_row(role, *anyio.run(sizes, root, role)) for role in ROLES]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=None)
    root = parser.parse_args().root or bundled_root()
    print(
        "| role | tiers | tools | `tools/list` bytes (all / without outputSchema) "
        "| instructions bytes |"
    )
    print("|---|---|---:|---:|---:|")
    print("\n".join(table_rows(root)))


if __name__ == "__main__":
    main()
