"""Every option and argument of every command says what it is for (`--help` is the manual
a newcomer reads first)."""

from __future__ import annotations

import argparse

from tasks_server.cli import build_parser


def undocumented(parser: argparse.ArgumentParser, prefix: str) -> list[str]:
    """`command option` for each action of `parser` (and its subcommands) with no help."""
    missing = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                missing += undocumented(sub, f"{prefix} {name}")
        elif not action.help or action.help == argparse.SUPPRESS:
            missing.append(f"{prefix} {'/'.join(action.option_strings) or action.dest}")
    return missing


def test_every_option_of_every_command_has_help_text() -> None:
    assert undocumented(build_parser(), "tasks-server") == []
