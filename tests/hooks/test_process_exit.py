"""A hook process started by the console script (:func:`cli.main.run`) prints and stores what
:func:`cli.main.main` does, runs without the cyclic garbage collector and, once the hook entry
has printed its result, ends without the interpreter's teardown; anything else exits as usual."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from tests.support.processes import REPO

# ENTRY is run or main; an exit handler says whether the interpreter tore itself down.
PROBE = r"""
import atexit, gc, json, sys
sys.argv = ["memevo", *json.loads(sys.argv[1])]
atexit.register(lambda: print("teardown", file=sys.stderr))
from cli.main import ENTRY
if sys.argv[1:2] == ["hook"]:
    import cli.hooks.entry as entry
    handle = entry.handle
    def recorded(*args):
        print("gc", gc.isenabled(), file=sys.stderr)
        return handle(*args)
    entry.handle = recorded
ENTRY()
"""


def probe(entry: str, args: list[str], stdin: str, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PROBE.replace("ENTRY", entry), json.dumps(args)],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "MEMEVO_HOME": str(home)},
        timeout=60,
    )


def payload(event: str, **fields: object) -> str:
    return json.dumps({"schema": "memevo.hook/v1", "event": event, "cwd": "/work/app", "session_id": "s", **fields})


def test_a_hook_ends_at_once_with_the_same_output_and_stored_source(tmp_path: Path) -> None:
    statement = payload("turn_end", user_messages=["remember that the billing service needs node 20"])
    fast = probe("run", ["hook", "turn_end"], statement, tmp_path / "fast")
    plain = probe("main", ["hook", "turn_end"], statement, tmp_path / "plain")
    assert (fast.returncode, fast.stdout) == (plain.returncode, plain.stdout) == (0, "")
    assert fast.stderr.split() == ["gc", "False"]  # no collector, no teardown
    assert plain.stderr.split() == ["gc", "True", "teardown"]
    stored = []
    for home in (tmp_path / "fast", tmp_path / "plain"):
        with closing(sqlite3.connect(home / "memory.db")) as conn:
            stored.append(conn.execute("SELECT source_type, origin, body FROM sources ORDER BY source_type").fetchall())
    assert stored[0] == stored[1] and any("node 20" in body for _, _, body in stored[0]), stored


def test_a_refused_hook_input_still_says_why(tmp_path: Path) -> None:
    done = probe("run", ["hook", "user_prompt"], '{"x":', tmp_path)
    assert done.returncode == 0 and done.stdout == ""
    assert "hook input is not JSON" in done.stderr and "teardown" not in done.stderr


@pytest.mark.parametrize("args", [["hook", "--help"], ["status", "--json"]])
def test_other_command_lines_exit_as_usual(tmp_path: Path, args: list[str]) -> None:
    done = probe("run", args, "", tmp_path)
    assert done.returncode == 0 and done.stdout
    assert done.stderr.strip().splitlines()[-1] == "teardown"


def test_the_console_script_and_python_m_cli_use_run() -> None:
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert 'memevo = "cli.main:run"' in pyproject
    assert "run()" in (REPO / "cli" / "__main__.py").read_text(encoding="utf-8")
