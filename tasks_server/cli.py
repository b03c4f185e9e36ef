"""The `tasks-server` command: serve MCP, call a tool, and read the tree as a human.

Everything a human command prints comes from the same tools agents call (`Toolset.run`,
the one implementation), without loading the MCP SDK: only `serve` and `call` (which runs a
tool through a real in-process MCP client session) import it. Logs and progress go to stderr;
stdout carries only the output (for stdio MCP, only protocol messages).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tasks_server import render, roots
from tasks_server.roles import ROLES, parse_patterns

if TYPE_CHECKING:
    from tasks_server.toolset import Toolset

__all__ = ["main"]


def _server_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--root",
        type=roots.flag_path,
        default=None,
        help="task tree (default: $TASKS_ROOT, else the bundled example; never the cwd)",
    )
    parser.add_argument("--role", choices=sorted(ROLES), default=None, help="tool preset")
    parser.add_argument(
        "--tools", default=None, help="allowlist of names/globs, e.g. 'get_*,story_bot_*'"
    )
    parser.add_argument(
        "--bots", type=Path, default=None, help="bot configs folder (default <root>/bots)"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tasks-server", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="serve MCP over stdio (default) or streamable HTTP")
    _server_options(serve)
    serve.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8765)
    serve.add_argument("--auth-token", default=os.environ.get("TASKS_SERVER_TOKEN"))
    serve.add_argument("--bot", default=None, help="serve one bot alone as <bot>_server")
    call = sub.add_parser("call", help="call one tool through an in-process MCP client")
    _server_options(call)
    call.add_argument("tool")
    call.add_argument("--args", default="{}", help="JSON object of arguments")
    for name, text in [
        ("check", "validate the tree; non-zero exit on problems"),
        ("ready", "tasks ready to start"),
        ("blocked", "blocked tasks and why"),
        ("metrics", "graph metrics"),
        ("tools", "list the tools a role sees"),
    ]:
        _server_options(sub.add_parser(name, help=text))
    show = sub.add_parser("show", help="one task")
    _server_options(show)
    show.add_argument("task_id")
    tree = sub.add_parser("tree", help="a project or subtree as a tree")
    _server_options(tree)
    tree.add_argument("--project", default=None)
    tree.add_argument("--id", dest="task_id", default=None)
    tree.add_argument("--max-depth", type=int, default=None)
    bots = sub.add_parser("bots", help="the generated bot tool catalog as JSON")
    _server_options(bots)
    bots.add_argument("--bot", default=None)
    _add_import_export(sub)
    return parser


def _add_import_export(sub: Any) -> None:
    imp = sub.add_parser("import", help="import another tracker into a task tree")
    imp.add_argument("kind", choices=["beads", "backlog"])
    imp.add_argument("source", type=Path)
    imp.add_argument("--root", type=roots.flag_path, required=True, help="tree to write into")
    imp.add_argument("--project", default=None, help="project name (backlog)")
    exp = sub.add_parser("export", help="export a tree or neighbourhood")
    _server_options(exp)
    exp.add_argument("--format", choices=["mermaid", "dot", "json"], default="mermaid")
    exp.add_argument("--project", default=None)
    exp.add_argument("--id", dest="task_id", default=None)


def _options(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "role": args.role,
        "tools": parse_patterns(args.tools),
        "bots": args.bots,
        "watch": False,
    }


def _local_toolset(args: argparse.Namespace) -> Toolset:
    """The tools for one command: the options' root, role and tools; no watcher thread."""
    from tasks_server.toolset import open_toolset  # noqa: PLC0415 - after argument parsing

    return open_toolset(args.root, **_options(args))


async def call_tool(
    args: argparse.Namespace, tool: str, arguments: dict[str, Any]
) -> tuple[bool, dict[str, Any]]:
    """Run one tool through a real in-process MCP client session."""
    from mcp import Client  # noqa: PLC0415 - only `call` and `serve` load the SDK

    from tasks_server.server import create_server  # noqa: PLC0415

    server = create_server(args.root, **_options(args))
    try:
        async with Client(server) as client:
            result = await client.call_tool(tool, arguments)
    finally:
        server.close()
    if result.is_error:
        return False, json.loads(result.content[0].text)  # type: ignore[union-attr]
    return True, dict(result.structured_content or {})


def _run_call(args: argparse.Namespace) -> int:
    try:
        arguments = json.loads(args.args)
    except json.JSONDecodeError as exc:
        print(f"--args is not JSON: {exc}", file=sys.stderr)
        return 2
    import anyio  # noqa: PLC0415

    ok, data = anyio.run(call_tool, args, args.tool, arguments)
    print(json.dumps(data, indent=2, ensure_ascii=False))
    return 0 if ok else 1


Human = tuple[str, Callable[[argparse.Namespace], dict[str, Any]], Callable[[dict[str, Any]], str]]
HUMAN: dict[str, Human] = {
    "ready": ("get_ready_tasks", lambda a: {"limit": 1000}, render.task_lines),
    "blocked": ("get_blocked_tasks", lambda a: {"limit": 1000}, render.blocked_lines),
    "metrics": ("get_graph_metrics", lambda a: {}, render.metrics_lines),
    "show": ("get_task", lambda a: {"task_id": a.task_id}, render.task_detail),
    "tree": (
        "get_task_tree",
        lambda a: {
            "project": a.project,
            "task_id": a.task_id,
            "max_depth": a.max_depth,
            "format": "ascii",
        },
        render.tree_text,
    ),
    "check": ("get_structural_signals", lambda a: {"limit": 1000}, render.check_lines),
}


def _run_human(args: argparse.Namespace) -> int:
    tool, make_args, show = HUMAN[args.command]
    arguments = {k: v for k, v in make_args(args).items() if v is not None}
    toolset = _local_toolset(args)
    try:
        outcome = toolset.run(tool, arguments)
    finally:
        toolset.context.close()
    data = outcome.data
    if outcome.is_error:
        print(data["error"]["message"], file=sys.stderr)
        return 1
    print(show(data))
    return render.check_status(data) if args.command == "check" else 0


def _run_serve(args: argparse.Namespace) -> int:
    from tasks_server.http import InsecureBind, check_bind, serve_http  # noqa: PLC0415
    from tasks_server.server import create_server, serve_stdio  # noqa: PLC0415

    if args.transport == "http":
        try:
            check_bind(args.host, args.auth_token)
        except InsecureBind as exc:
            print(exc, file=sys.stderr)
            return 2
    server = create_server(
        args.root,
        role=args.role,
        tools=parse_patterns(args.tools),
        bots=args.bots,
        bot=args.bot,
    )
    try:
        if args.transport == "http":
            serve_http(server, args.host, args.port, args.auth_token)
        else:
            serve_stdio(server)
    finally:
        server.close()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(
        stream=sys.stderr, level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s"
    )
    args = build_parser().parse_args(argv)
    try:
        args.root = roots.for_command(args.command, args.root)
    except roots.BadRoot as exc:
        print(exc, file=sys.stderr)
        return 2
    runners = {
        "serve": _run_serve,
        "call": _run_call,
        "import": _run_import,
        "export": _run_export,
        "tools": _run_tools,
        "bots": _run_bots,
    }
    try:
        return runners.get(args.command, _run_human)(args)
    except BrokenPipeError:  # output piped into `head` and the like: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:
        from tasks_server.bots.errors import BotError  # noqa: PLC0415 - only on failure

        if not isinstance(exc, BotError):
            raise
        print(exc, file=sys.stderr)  # a broken bot config or an unknown bot: one line
        return 2


def _run_import(args: argparse.Namespace) -> int:
    from tasks_server import interop  # noqa: PLC0415

    return interop.run_import(args.kind, args.source, args.root, args.project)


def _run_export(args: argparse.Namespace) -> int:
    from tasks_server import interop  # noqa: PLC0415

    print(interop.export(args.root, args.format, project=args.project, task_id=args.task_id))
    return 0


def _run_tools(args: argparse.Namespace) -> int:
    toolset = _local_toolset(args)
    toolset.context.close()
    for spec in toolset.visible():
        print(f"{spec.name}: {spec.description.splitlines()[0] if spec.description else ''}")
    return 0


def _run_bots(args: argparse.Namespace) -> int:
    from tasks_server.context import ServerContext  # noqa: PLC0415

    context = ServerContext.open(args.root, bots=args.bots, watch=False)
    catalog = context.bots.catalog_json(only=args.bot) if context.bots else []
    context.close()
    print(json.dumps(catalog, indent=2, ensure_ascii=False))
    return 0
