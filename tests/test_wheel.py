"""The package as pip installs it: a wheel built from this checkout, installed into a fresh
virtual environment, runs the README's quick start from a folder outside the clone.

The deep part (about 20 s) builds the wheel from a copy of the sources (so the checkout gets
no `build/`), with a stale warm-start cache planted in the copy's `data/` to prove caches
never ship.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import venv
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

import tasks_server
from tests.conftest import DATA, ODD, REPO

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]
EXAMPLE = "tasks_server/example"
SOURCES = ["pyproject.toml", "README.md", "storage", "graph", "tasks_server", "data"]
NOT_SOURCES = shutil.ignore_patterns("__pycache__", "*.egg-info", ".tasks-index", ".workflow")


def source_packages() -> set[str]:
    """Every package in the source tree, as a dotted name."""
    return {
        ".".join(init.parent.relative_to(REPO).parts)
        for top in ("storage", "graph", "tasks_server")
        for init in (REPO / top).rglob("__init__.py")
    }


def test_the_wheel_lists_every_package_of_the_source_tree() -> None:
    assert set(SETUPTOOLS["packages"]) == source_packages() | {"tasks_server.example"}


def test_the_wheel_maps_the_example_package_to_the_repositorys_data_folder() -> None:
    assert (REPO / SETUPTOOLS["package-dir"]["tasks_server.example"]).resolve() == DATA


def test_the_package_version_is_the_installed_distributions() -> None:
    from importlib.metadata import version  # noqa: PLC0415

    assert tasks_server.__version__ == tasks_server.version() == version("tasks-server")
    assert tasks_server.__version__ == PYPROJECT["project"]["version"]


def test_an_unknown_attribute_of_the_package_is_still_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_thing"):
        _ = tasks_server.no_such_thing  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Installed:
    wheel: Path
    bin: Path
    outside: Path

    def run(
        self, *args: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """`tasks-server ARGS` from the fresh venv, in a folder outside the clone."""
        return self.execute("tasks-server", *args, env=env)

    def execute(
        self, program: str, *args: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.bin / program), *args],
            capture_output=True,
            text=True,
            cwd=self.outside,
            env={**isolated_environment(), **(env or {})},
            timeout=120,
            check=False,
        )


def isolated_environment() -> dict[str, str]:
    """This process's environment without what would point a child at this checkout."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TASKS_ROOT")}


def _copy_sources(target: Path) -> Path:
    target.mkdir()
    for name in SOURCES:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=NOT_SOURCES)
        else:
            shutil.copy2(source, target / name)
    stale = target / "data" / ".tasks-index" / "files.jsonl"
    stale.parent.mkdir()
    stale.write_text("{}")
    return target


def _pip(python: Path | str, *args: str) -> None:
    subprocess.run(
        [str(python), "-m", "pip", "--disable-pip-version-check", "-q", *args],
        check=True,
        timeout=300,
        env=isolated_environment(),
    )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    base = tmp_path_factory.mktemp("wheel")
    sources = _copy_sources(base / "src")
    _pip(sys.executable, "wheel", str(sources), "--no-deps", "-w", str(base / "dist"))
    (wheel,) = (base / "dist").glob("tasks_server-*.whl")
    venv.create(base / "venv", with_pip=True)
    _pip(base / "venv" / "bin" / "python", "install", "--no-compile", str(wheel))
    outside = base / "elsewhere"
    outside.mkdir()
    return Installed(wheel, base / "venv" / "bin", outside)


@pytest.mark.deep
def test_the_wheel_ships_the_example_tree_without_fixtures_or_caches(
    installed: Installed,
) -> None:
    names = zipfile.ZipFile(installed.wheel).namelist()
    example = [n.removeprefix(EXAMPLE + "/") for n in names if n.startswith(EXAMPLE + "/")]
    shipped_tasks = {n for n in example if n.endswith(".md")}
    repo_tasks = {str(p.relative_to(DATA)) for p in DATA.rglob("*.md") if not p.is_relative_to(ODD)}
    assert shipped_tasks == repo_tasks and len(shipped_tasks) == 50
    assert ".tasksignore" in example
    assert any(n.startswith("bots/story_bot/") and n.endswith(".json") for n in example)
    assert not [n for n in example if n.startswith(("odd/", ".tasks-index/"))]
    assert not [n for n in names if n.startswith("data/")]


@pytest.mark.deep
def test_the_quick_start_main_job_runs_from_the_wheel_outside_the_clone(
    installed: Installed,
) -> None:
    done = installed.run("call", "get_graph_metrics")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["total_tasks"] == 50
    assert "Traceback" not in done.stderr


@pytest.mark.deep
def test_the_installed_command_prints_its_help(installed: Installed) -> None:
    done = installed.run("--help")
    assert done.returncode == 0 and done.stdout.startswith("usage: tasks-server")


@pytest.mark.deep
def test_the_installed_package_knows_its_version(installed: Installed) -> None:
    script = "import tasks_server as t; print(t.__version__, t.__file__)"
    done = installed.execute("python", "-c", script)
    version, where = done.stdout.split()
    assert Path(where).is_relative_to(installed.bin.parent), "imported the checkout, not the wheel"
    assert version == PYPROJECT["project"]["version"], done.stderr


@pytest.mark.deep
@pytest.mark.parametrize("case", ["--root missing", "TASKS_ROOT missing", "--root a file"])
def test_a_bad_root_from_the_wheel_is_one_line_and_exit_2(installed: Installed, case: str) -> None:
    missing, afile = installed.outside / "nowhere", installed.outside / "tasks.md"
    afile.write_text("---\nid: a\n---\n")
    args, env, path = {
        "--root missing": (["--root", str(missing)], {}, missing),
        "TASKS_ROOT missing": ([], {"TASKS_ROOT": str(missing)}, missing),
        "--root a file": (["--root", str(afile)], {}, afile),
    }[case]
    done = installed.run("call", "get_graph_metrics", *args, env=env)
    lines = done.stderr.strip().splitlines()
    assert (done.returncode, done.stdout, len(lines)) == (2, "", 1), done.stderr
    assert str(path) in lines[0] and "Traceback" not in done.stderr


@pytest.mark.deep
def test_the_installed_example_is_served_without_writing_into_site_packages(
    installed: Installed,
) -> None:
    """The example may sit where it cannot be written, and anything written there would
    outlive `pip uninstall`: no warm-start cache is written for it, and no warning."""
    example = next(installed.bin.parent.glob(f"lib/python*/site-packages/{EXAMPLE}"))
    before = sorted(str(p.relative_to(example)) for p in example.rglob("*"))
    done = installed.run("call", "get_graph_metrics")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["total_tasks"] == 50
    for command in (["ready"], ["check"], ["export"], ["snapshot", "--now", "2026-11-22"]):
        shown = installed.run(*command)
        assert shown.returncode == 0 and shown.stderr == "", (command, shown.stderr)
    assert sorted(str(p.relative_to(example)) for p in example.rglob("*")) == before
    assert done.stderr == ""


def _example_files(installed: Installed) -> list[str]:
    example = next(installed.bin.parent.glob(f"lib/python*/site-packages/{EXAMPLE}"))
    return sorted(str(p.relative_to(example)) for p in example.rglob("*"))


@pytest.mark.deep
@pytest.mark.parametrize(
    "command",
    [
        ["new", "into site-packages?"],
        ["call", "update_task", "--args", '{"task_id": "pipe-a84567f9", "status": "done"}'],
    ],
)
def test_a_write_to_the_installed_example_is_refused_in_one_line(
    installed: Installed, command: list[str]
) -> None:
    before = _example_files(installed)
    done = installed.run(*command)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    said = done.stderr if command[0] == "new" else json.loads(done.stdout)["error"]["message"]
    assert len(said.strip().splitlines()) == 1 and "tasks-server init DIR" in said, said
    assert _example_files(installed) == before


@pytest.mark.deep
def test_init_copies_the_installed_example_out_into_a_tree_that_takes_writes(
    installed: Installed,
) -> None:
    mine = installed.outside / "my-tasks"
    assert installed.run("init", str(mine)).returncode == 0
    done = installed.run("new", "a task of my own", "--root", str(mine))
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()).is_relative_to(mine)
