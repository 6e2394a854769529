"""Counting with callgrind for ``bench/hook_profile.py``: the instructions of one process, the
exclusive share of each library and SQLite's inclusive share, and the imports of a hook
process (to count one that only imports them)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from bench._util import REPO


def imported(argv: list[str], payload: bytes, env: dict[str, str]) -> list[str]:
    """The modules a process imports, in the order ``-X importtime`` reports them."""
    done = subprocess.run(
        argv, input=payload, env={**env, "PYTHONPROFILEIMPORTTIME": "1"}, capture_output=True, cwd=REPO
    )
    names = re.findall(r"import time:\s+\d+ \|\s+\d+ \| ( *)(\S+)", done.stderr.decode(errors="replace"))
    return [name for indent, name in names if not indent]


def imports_only(hook_args: list[str], modules: list[str]) -> str:
    """A process that starts as the hook does (collector off, the regex cache, deferred
    modules), imports what the hook imported, and ends as it does (``os._exit``)."""
    lines = [
        "import gc, os, sys",
        "gc.disable()",
        f"sys.argv = ['memevo', 'hook', *{hook_args!r}]",
        "from cli import regex_cache",
        "from cli.hooks.deferred_modules import HOOK_DEFERRED, defer",
        "for name in HOOK_DEFERRED:",
        "    defer(name)",
        "regex_cache.preload()",
        *(f"import {m}" for m in modules if m not in ("gc", "os", "sys")),
        "os._exit(0)",
    ]
    return "\n".join(lines) + "\n"


def count(argv: list[str], payload: bytes, env: dict[str, str], target: Path, *options: str) -> tuple[float, bytes]:
    """Instructions (millions) of one process under callgrind (given ``options``), and what it printed."""
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", *options, f"--callgrind-out-file={target}", *argv],
        input=payload,
        env=env,
        capture_output=True,
        cwd=REPO,
    )
    total = re.search(r"Collected : (\d+)", done.stderr.decode(errors="replace"))
    if total is None:
        raise SystemExit(f"callgrind gave no count for {argv}: {done.stderr[-300:]!r}")
    return int(total.group(1)) / 1e6, done.stdout


def by_library(target: Path) -> dict[str, float]:
    """Exclusive instructions by shared object: the interpreter, SQLite, the C library …"""
    done = subprocess.run(["callgrind_annotate", "--threshold=100", str(target)], capture_output=True, text=True)
    out: dict[str, float] = {}
    for line in done.stdout.splitlines():
        match = re.match(r"\s*([\d,]+) \([^)]*\)\s+\S+ \[(\S+)\]", line)
        if match:
            lib = match.group(2).rsplit("/", 1)[-1].split(".so")[0]
            out[lib] = out.get(lib, 0.0) + int(match.group(1).replace(",", "")) / 1e6
    return {lib: round(v, 1) for lib, v in sorted(out.items(), key=lambda kv: -kv[1]) if v >= 0.5}


def inclusive(target: Path) -> dict[str, float]:
    """Inclusive instructions of SQLite's statement steps and preparation."""
    done = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(target)], capture_output=True, text=True
    )
    out: dict[str, float] = {}
    for line in done.stdout.splitlines():
        match = re.match(r"\s*([\d,]+) \([^)]*\)\s+\S*:(\w+)", line)
        if match and match.group(2) in ("sqlite3_step", "sqlite3_prepare_v2"):
            out.setdefault(match.group(2), round(int(match.group(1).replace(",", "")) / 1e6, 1))
    return out
