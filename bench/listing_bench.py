"""Bytes of `tools/list` per role, as a real client receives it.

    python -m bench.listing_bench [--root DIR]

Prints, for each role, the number of tools and the compact-JSON size of the listing with
and without output schemas (most clients put only names, descriptions and input schemas in
the model's context). Figures only.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import anyio
from mcp import Client

from tasks_server.edge.server import create_server
from tasks_server.roots import bundled_root

ROLES = ("planner", "editor", "bot", "all")


async def sizes(root: Path, role: str) -> tuple[int, int, int]:
    server = create_server(root, role=None if role == "all" else role, watch=False)
    async with Client(server) as client:
        tools = (await client.list_tools()).tools
    server.close()
    full = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
    lean = [{k: v for k, v in t.items() if k != "outputSchema"} for t in full]
    return len(tools), len(compact(full)), len(compact(lean))


def compact(data: object) -> str:
    return json.dumps(data, separators=(",", ":"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=None)
    root = parser.parse_args().root or bundled_root()
    print(f"{'role':<9}{'tools':>6}{'bytes':>9}{'no outputSchema':>17}")
    for role in ROLES:
        count, full, lean = anyio.run(sizes, root, role)
        print(f"{role:<9}{count:>6}{full:>9,}{lean:>17,}")


if __name__ == "__main__":
    main()
