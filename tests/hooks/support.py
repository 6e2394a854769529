"""What the hook tests of every agent share: ``memevo hook`` as a real process with a payload
on stdin, the sources it captured, and editing recorded payloads and transcripts.

The agents' recordings and their helpers are in ``<agent>_data.py``; the ``seeded`` claim is
a fixture of conftest.py.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.support.processes import REPO


def hook_process(
    data: dict[str, Any] | str, *args: str, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[bytes]:
    """``memevo hook [args]`` as an agent runs it: the payload on stdin, output as bytes."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    stdin = data if isinstance(data, str) else json.dumps(data)
    return subprocess.run(
        [sys.executable, "-m", "cli", "hook", *args],
        input=stdin.encode("utf-8"),
        capture_output=True,
        env=full_env,
        timeout=timeout,
        cwd=str(REPO),
    )


def assert_fails_in_one_line(data: dict[str, Any] | str, args: tuple[str, ...], expected: str) -> None:
    """``memevo hook ARGS`` with ``data`` exits 0 with nothing on stdout and one line on stderr
    that names ``expected`` (not an internal error)."""
    result = hook_process(data, *args)
    assert result.returncode == 0 and result.stdout == b""
    lines = result.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and expected in lines[0] and "internal error" not in lines[0], result.stderr


def sources(home: Path) -> list[tuple[str, str, str, str, str]]:
    """Every captured source, oldest first: (source_type, agent, session_id, origin, text)."""
    if not (home / "memory.db").exists():
        return []
    conn = sqlite3.connect(home / "memory.db")
    try:
        rows = conn.execute("SELECT source_type, origin, body FROM sources ORDER BY created_at").fetchall()
    finally:
        conn.close()
    return [
        (kind, json.loads(body)["agent"], json.loads(body)["session_id"], origin, json.loads(body)["text"])
        for kind, origin, body in rows
    ]


def claim_status(home: Path, claim_id: str) -> tuple[str] | None:
    """The row ``(status,)`` of the claim ``claim_id`` (``None`` if there is no such claim)."""
    conn = sqlite3.connect(home / "memory.db")
    try:
        return conn.execute("SELECT status FROM memories WHERE id=?", (claim_id,)).fetchone()
    finally:
        conn.close()


def unreadable_memory(home: Path) -> None:
    """A state dir whose ``memory.db`` is not a database."""
    home.mkdir(parents=True)
    (home / "memory.db").write_bytes(b"this is not a database" * 100)


def with_changes(data: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """``data`` with the fields of ``changes`` set; a value of ``None`` removes the field."""
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return data


def write_records(path: Path, items: list[dict[str, Any]], *, tail: str = "") -> Path:
    """A JSONL transcript of ``items`` (and ``tail``, e.g. a half-written line) at ``path``."""
    path.write_text("".join(json.dumps(r) + "\n" for r in items) + tail, encoding="utf-8")
    return path


def replace_records(path: Path, items: list[dict[str, Any]]) -> Path:
    """``path`` holding ``items`` at once, as a turn the agent has finished writing appears to a
    hook polling for it: a reader meanwhile sees the old transcript or the new one. (Rewriting
    the file in place would show a reader a truncated, half-written transcript that no agent,
    which appends, ever shows: a hook polling at that moment read half a turn.)"""
    staged = write_records(path.with_name(path.name + ".staged"), items)
    os.replace(staged, path)
    return path


PROBE = r"""
import io, json, sys
sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[2].encode()))
sys.argv, heavy = ["memevo", *json.loads(sys.argv[1])], json.loads(sys.argv[3])
from cli.main import main
try:
    main()
except SystemExit:
    pass
print(json.dumps(sorted(m for m in heavy if m in sys.modules)), file=sys.stderr)
"""
HEAVY = ("pydantic", "httpx", "huey", "memory_core.records")


def loaded_heavy_modules(
    home: Path, stdin: str, argv: tuple[str, ...] = ("hook",), heavy: tuple[str, ...] = HEAVY
) -> list[str]:
    """Which of ``heavy`` (validation, HTTP, the task queue, the record models) a ``memevo``
    process with ``argv`` loaded for ``stdin``."""
    result = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(list(argv)), stdin, json.dumps(list(heavy))],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={"MEMEVO_HOME": str(home), "PATH": ""},
        timeout=60,
    )
    return json.loads(result.stderr.strip().splitlines()[-1])
