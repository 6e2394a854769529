"""Which ``memevo`` an agent should run, and whether the one a hook names still runs."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path


def current_launcher() -> list[str]:
    """The absolute command that runs this memevo.

    The ``memevo`` script beside this interpreter (the same venv), else ``memevo`` on PATH,
    else this interpreter with ``-m cli``. An absolute path spares every hook the cost of a
    PATH lookup through version-manager shims, and keeps working in the agent's own PATH.
    """
    beside = Path(sys.executable).parent / "memevo"
    if _runnable(beside):
        return [str(beside.absolute())]
    found = shutil.which("memevo")
    if found:
        return [os.path.abspath(found)]
    return [os.path.abspath(sys.executable), "-m", "cli"]


def _runnable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def launcher_problem(launcher: Sequence[str]) -> str | None:
    """Why ``launcher`` cannot run, or ``None`` when it looks runnable.

    Checks the program exists and is executable and, for a script, that its ``#!``
    interpreter does too (a venv whose Python was removed keeps its scripts).
    """
    program = launcher[0]
    if not os.path.isabs(program):
        found = shutil.which(program)
        if found is None:
            return f"{program} is not on PATH"
        program = found
    path = Path(program)
    if not path.exists():
        return f"{program} does not exist"
    if not _runnable(path):
        return f"{program} is not an executable file"
    interpreter = _shebang_program(path)
    if interpreter is not None and not _runnable(Path(interpreter)):
        return f"{program} runs {interpreter}, which does not exist"
    return None


def _shebang_program(path: Path) -> str | None:
    try:
        with path.open("rb") as handle:
            first = handle.readline(512)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", errors="replace").split()
    return words[0] if words and os.path.isabs(words[0]) else None
