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
from datetime import datetime
from pathlib import Path
from typing import Any, NoReturn

from storage.bulk import gc_paused
from storage.errors import StorageError
from storage.timestamps import parse_timestamp
from tasks_server import roots, version
from tasks_server.human import terminal
from tasks_server.roles import ROLES

__all__ = ["NOW_ENV", "main"]

NOW_ENV = "TASKS_NOW"
MAX_PORT = 65535
_PROJECT = "only this project's tasks (default: every project)"


def _instant(text: str) -> datetime:
    """`--now`'s type: an ISO date or datetime (naive means UTC)."""
    try:
        parsed = parse_timestamp(text)
    except ValueError:
        parsed = None
    if parsed is None:
        raise argparse.ArgumentTypeError(f"not an ISO date or datetime: {text!r}")
    return parsed


def _whole_number(what: str, low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from `low` to `high` (no bound when None)."""

    def parse(text: str) -> int:
        try:
            number = int(text)
        except ValueError:
            number = low - 1
        if number < low or (high is not None and number > high):
            raise argparse.ArgumentTypeError(f"not {what}: {text!r}")
        return number

    return parse


_port = _whole_number(f"a port number (0 to {MAX_PORT})", 0, MAX_PORT)
_depth = _whole_number("a depth (a whole number, 0 or more)", 0)


class _Version(argparse.Action):
    """`--version`: the installed version, looked up only when asked for (reading the
    distribution's metadata costs every other command a few milliseconds of start)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> NoReturn:
        print(f"{parser.prog} {version()}")
        parser.exit()


class OneLineParser(argparse.ArgumentParser):
    """Usage errors as one line on stderr and exit status 2 (argparse prints the whole usage
    first; the line says where the usage is instead)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


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
    parser.add_argument(
        "--now",
        type=_instant,
        default=None,
        help=f"fixed clock for time-relative results, ISO (default: ${NOW_ENV}, else the clock)",
    )


def _human(sub: Any, name: str, text: str) -> argparse.ArgumentParser:
    """A human command: the server options, and `--json` for the tool's structured result."""
    parser: argparse.ArgumentParser = sub.add_parser(name, help=text)
    _server_options(parser)
    parser.add_argument("--json", action="store_true", help="print the structured result")
    return parser


def build_parser(only_serve: bool = False) -> argparse.ArgumentParser:
    """The whole command line; `only_serve`: `serve`'s alone (a `serve` start need not build
    the 20 other commands' parsers, about 3 ms: its own parse, help and errors are the same)."""
    parser = OneLineParser(prog="tasks-server", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--version", action=_Version, nargs=0, help="show program's version number and exit"
    )
    sub = parser.add_subparsers(dest="command", required=True)
    _add_serve(sub)
    if only_serve:
        return parser
    lsp = sub.add_parser("lsp", help="a language server for task files, over stdio (editors)")
    lsp.add_argument(
        "--root",
        type=roots.flag_path,
        default=None,
        help="task tree (default: the workspace folder the editor opens)",
    )
    lsp.add_argument("--now", type=_instant, default=None, help="fixed clock, ISO (tests)")
    call = sub.add_parser("call", help="call one tool through an in-process MCP client")
    _server_options(call)
    call.add_argument("tool", help="the tool's name, as `tasks-server tools` lists it")
    call.add_argument("--args", default="{}", help="JSON object of arguments")
    call.add_argument(
        "--sync", action="store_true", help="fetch first, commit the write and push it"
    )
    _add_views(sub)
    _add_import_export(sub)
    _add_config(sub)
    init = sub.add_parser("init", help="copy the bundled example into DIR, a tree you can change")
    init.add_argument("target", type=roots.flag_path, metavar="DIR", help="a new or empty folder")
    return parser


def _add_serve(sub: Any) -> None:
    serve = sub.add_parser("serve", help="serve MCP over stdio (default) or streamable HTTP")
    _server_options(serve)
    serve.add_argument(
        "--transport",
        choices=["stdio", "http"],
        default="stdio",
        help="stdio for a client that starts the server, http for streamable HTTP "
        "(default: %(default)s)",
    )
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="HTTP address to bind; beyond loopback needs --auth-token (default: %(default)s)",
    )
    serve.add_argument(
        "--port", type=_port, default=8765, help="HTTP port, 0 for any free one (default: 8765)"
    )
    serve.add_argument(
        "--auth-token",
        default=os.environ.get("TASKS_SERVER_TOKEN"),
        help="bearer token HTTP clients must send (default: $TASKS_SERVER_TOKEN, else none)",
    )
    serve.add_argument("--bot", default=None, help="serve one bot alone as <bot>_server")
    serve.add_argument(
        "--sync", action="store_true", help="commit each write, push and fetch the upstream"
    )
    serve.add_argument(
        "--sync-interval", type=float, default=5.0, help="seconds between fetches (default 5)"
    )


def _add_config(sub: Any) -> None:
    config = sub.add_parser(
        "config", help="print the client configuration that starts this install's server"
    )
    config.add_argument(
        "client",
        choices=["claude-desktop", "claude-code", "mcp-json"],
        help="claude_desktop_config.json, the `claude mcp add` command, or a project's .mcp.json",
    )
    config.add_argument(
        "--root",
        type=roots.flag_path,
        default=None,
        help="task tree to serve, written absolute (default: $TASKS_ROOT, else the example)",
    )
    config.add_argument("--role", choices=sorted(ROLES), default=None, help="tool preset to serve")
    config.add_argument("--tools", default=None, help="allowlist to serve, e.g. 'get_*'")


def _add_views(sub: Any) -> None:
    check = _human(sub, "check", "validate the tree: errors (exit 1) and warnings")
    check.add_argument(
        "files",
        nargs="*",
        type=Path,
        help="report only problems touching these task files (files outside the root are "
        "ignored, so a commit hook may pass every staged markdown file)",
    )
    check.add_argument(
        "-v", "--verbose", action="store_true", help="say which named files are ignored"
    )
    for name, text in [("ready", "tasks ready to start"), ("blocked", "blocked tasks and why")]:
        _human(sub, name, text).add_argument("--project", default=None, help=_PROJECT)
    _human(sub, "metrics", "graph metrics").add_argument("--project", default=None, help=_PROJECT)
    _human(sub, "tools", "list the tools a role sees")
    _human(sub, "show", "one task").add_argument("task_id", help="the task's id")
    tree = _human(sub, "tree", "a project or subtree as a tree")
    tree.add_argument("--project", default=None, help=_PROJECT)
    tree.add_argument("--id", dest="task_id", default=None, help="only this task's subtree")
    tree.add_argument(
        "--max-depth", type=_depth, default=None, help="levels below the top (default: all)"
    )
    _human(sub, "bots", "the generated bot tools").add_argument(
        "--bot", default=None, help="only this bot's tools (default: every bot)"
    )
    diff = _human(sub, "diff", "what changed between two git revisions (default: HEAD and disk)")
    diff.add_argument(
        "since", nargs="?", default="HEAD", metavar="REV_A", help="from (default: HEAD)"
    )
    diff.add_argument(
        "until", nargs="?", default=None, metavar="REV_B", help="to (default: the files on disk)"
    )
    diff.add_argument(
        "--all", action="store_true", help="also the tasks whose only change is `modified`"
    )
    _human(sub, "log", "the commits that changed a task").add_argument(
        "task_id", help="the task's id"
    )
    new = _human(sub, "new", "write a new task file and print its path")
    new.add_argument("title", help="the new task's title")
    new.add_argument("--parent", default=None, help="parent task id")
    new.add_argument("--project", default=None, help="project (default: the parent's)")
    _server_options(
        sub.add_parser("snapshot", help="the tree's facts as deterministic JSON (use --now)")
    )


def _add_import_export(sub: Any) -> None:
    imp = sub.add_parser("import", help="import another tracker into a task tree")
    imp.add_argument(
        "kind", choices=["beads", "backlog"], help="beads (an issues.jsonl) or backlog (a folder)"
    )
    imp.add_argument("source", type=Path, help="the export file or folder to read")
    imp.add_argument("--root", type=roots.flag_path, required=True, help="tree to write into")
    imp.add_argument("--project", default=None, help="project name (backlog)")
    imp.add_argument("--json", action="store_true", help="print the import report as JSON")
    exp = _human(sub, "export", "export a tree, project or neighbourhood as text or a picture")
    exp.add_argument(
        "--format",
        choices=["mermaid", "dot", "json", "svg", "png"],
        default="mermaid",
        help="text (mermaid, dot, json) or a picture (svg, png: needs graphviz) "
        "(default: %(default)s)",
    )
    exp.add_argument("--project", default=None, help=_PROJECT)
    exp.add_argument("--id", dest="task_id", default=None, help="this task's neighbourhood")
    exp.add_argument("--subtree", default=None, help="this task and everything under it")
    exp.add_argument("--output", "-o", type=Path, default=None, help="write to this file")
    exp.add_argument(
        "--full", action="store_true", help="draw every task, even past the summary size"
    )


# The faces are imported inside the runners: the MCP SDK only for `serve` and `call`, rich only
# for the human commands, pygls only for `lsp`, none for `--help` (start-up time; the layering
# test keeps each face from importing another, and this entry is the one module that knows all).


def _run_serve(args: argparse.Namespace) -> int:
    from storage import early_read  # noqa: PLC0415 - only `serve` reads a tree this early
    from storage.repository import MAX_FILE_BYTES  # noqa: PLC0415

    early_read.begin(args.root, MAX_FILE_BYTES)  # a cold tree read while the SDK imports
    with gc_paused():  # the imports leave almost no garbage; run_serve freezes what they made
        from tasks_server.edge.commands import run_serve  # noqa: PLC0415 - see above

    return run_serve(args, lambda: os._exit(interrupted("serve")))


def _run_lsp(args: argparse.Namespace) -> int:
    from tasks_server.editor.commands import run_lsp  # noqa: PLC0415 - see above

    return run_lsp(args)


def _call_arguments(text: str) -> dict[str, Any]:
    """`--args`: a JSON object; anything else is a usage error (`BadArguments`)."""
    try:
        arguments = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise BadArguments(f"--args is not JSON: {exc}") from None
    if not isinstance(arguments, dict):
        kind = _JSON_KINDS.get(type(arguments), "a number")
        raise BadArguments(f"--args must be a JSON object of arguments, not {kind}")
    return arguments


_JSON_KINDS = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}


class BadArguments(Exception):
    """`call --args` that is not a JSON object; the message is the one line to print."""


def _run_call(args: argparse.Namespace) -> int:
    try:
        arguments = _call_arguments(args.args)
    except BadArguments as exc:  # refused before the SDK is loaded (a second, under load)
        print(f"tasks-server call: {exc}", file=sys.stderr)
        return 2
    from tasks_server.edge.commands import call_tool  # noqa: PLC0415 - see above

    with terminal.working(f"{args.tool} on {args.root}"):
        try:
            ok, data = call_tool(args, args.tool, arguments)
        except StorageError as exc:  # --sync outside a clone
            print(f"tasks-server call: {exc}", file=sys.stderr)
            return 2
    print(json.dumps(data, indent=2, ensure_ascii=False))
    return 0 if ok else 1


def _run_config(args: argparse.Namespace) -> int:
    from tasks_server.human.clients import config_text  # noqa: PLC0415 - see above

    options = [*(["--role", args.role] if args.role else [])]
    options += ["--tools", args.tools] if args.tools else []
    print(config_text(args.client, args.root, options))
    return 0


def _run_human(args: argparse.Namespace) -> int:
    from tasks_server.human.commands import run  # noqa: PLC0415 - see above

    return run(args)


def _fixed_now(args: argparse.Namespace) -> None:
    """`--now`, else `$TASKS_NOW`; a bad `$TASKS_NOW` is a usage error."""
    if getattr(args, "now", "absent") is None and os.environ.get(NOW_ENV):
        try:
            args.now = _instant(os.environ[NOW_ENV])
        except argparse.ArgumentTypeError as exc:
            raise roots.BadRoot(f"tasks-server: ${NOW_ENV}: {exc}") from None


def _prepared(args: argparse.Namespace) -> bool:
    """The root and the clock settled on `args`; False (the reason on stderr) for a bad one."""
    try:
        if args.command != "lsp" or args.root is not None:  # lsp: else the editor's folder
            args.root = roots.for_command(args.command, args.root)
        _fixed_now(args)
    except roots.BadRoot as exc:
        print(exc, file=sys.stderr)
        return False
    return True


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(
        stream=sys.stderr, level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s"
    )
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(only_serve=list(argv[:1]) == ["serve"]).parse_args(argv)
    if args.command == "init":
        try:
            return _run_init(args.target)
        except KeyboardInterrupt:
            return interrupted("init", f"rolled back, {args.target} holds nothing copied")
    if not _prepared(args):
        return 2
    try:
        runners = {"serve": _run_serve, "call": _run_call, "lsp": _run_lsp, "config": _run_config}
        return runners.get(args.command, _run_human)(args)
    except KeyboardInterrupt:
        return interrupted(args.command)
    except BaseExceptionGroup as group:  # an interrupt inside the server's task group
        if group.subgroup(KeyboardInterrupt) is None or group.subgroup(Exception) is not None:
            raise
        return interrupted(args.command)
    except BrokenPipeError:  # output piped into `head` and the like: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:
        from tasks_server.bots.errors import BotError  # noqa: PLC0415 - only on failure
        from tasks_server.registry import DuplicateTool  # noqa: PLC0415
        from tasks_server.roles import NoToolMatches  # noqa: PLC0415

        if not isinstance(exc, BotError | DuplicateTool | NoToolMatches):
            raise
        print(exc, file=sys.stderr)  # a bad bot config or allowlist, a twin tool: one line
        return 2


INTERRUPTED = 130
"""The exit status of a command stopped by Ctrl-C (128 + SIGINT), as shells report it."""

_LEFT = {
    "serve": "the server stopped; every write it made is whole (writes are all or nothing)",
    "new": "the task file is written whole or not at all (tasks-server check shows the tree)",
    "call": "a tool that writes did so whole or not at all; read tools wrote nothing",
}
"""What an interrupted command left, when not "nothing was written" (import and init say
it themselves: they know whether their write happened)."""


def interrupted(command: str, left: str | None = None) -> int:
    """Ctrl-C: one line saying what state the command left, exit status 130."""
    state = left or _LEFT.get(command, "nothing was written")
    print(f"tasks-server {command}: interrupted: {state}", file=sys.stderr)
    return INTERRUPTED


def _run_init(target: Path) -> int:
    """Copy the example out (the installed one is read-only) and say how to serve it."""
    try:
        roots.copy_example(target)
    except roots.BadRoot as exc:
        print(exc, file=sys.stderr)
        return 2
    print(f"copied the example tree into {target}; serve it with --root {target}")
    return 0
