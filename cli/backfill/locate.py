"""Where each agent keeps its saved sessions, and the session files found there.

Observed with the real CLIs (tests/agents): Claude Code writes
``$CLAUDE_CONFIG_DIR/projects/<slug>/<session>.jsonl`` (``~/.claude`` by default; subagents'
files lie one level deeper and are not sessions of their own), Codex
``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`` (``~/.codex``), Gemini CLI
``~/.gemini/tmp/<project>/chats/session-*.jsonl`` and Pi
``$PI_CODING_AGENT_DIR/sessions/<cwd>/<time>_<id>.jsonl`` (``~/.pi/agent``). A directory that
cannot be read is skipped with a line saying so; a file of another form in those places
(an older Gemini CLI's whole-file ``.json`` chat) too.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

AGENTS = ("claude-code", "codex", "gemini", "pi")


def sessions_root(agent: str, env: Mapping[str, str] | None = None) -> Path:
    """The directory ``agent`` keeps its saved sessions under."""
    env = os.environ if env is None else env
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    if agent == "claude-code":
        return Path(env.get("CLAUDE_CONFIG_DIR") or home / ".claude") / "projects"
    if agent == "codex":
        return Path(env.get("CODEX_HOME") or home / ".codex") / "sessions"
    if agent == "gemini":
        return Path(env.get("GEMINI_CLI_HOME") or home) / ".gemini" / "tmp"
    if agent == "pi":
        return Path(env.get("PI_CODING_AGENT_DIR") or home / ".pi" / "agent") / "sessions"
    raise ValueError(f"unknown agent {agent!r}")


def _entries(directory: str, skip: Callable[[str], None]) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as found:
            return sorted(found, key=lambda e: e.name)
    except FileNotFoundError:
        return []
    except OSError as exc:
        skip(f"{directory}: directory skipped: cannot be read ({exc.strerror or type(exc).__name__})")
        return []


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file(follow_symlinks=False)
    except OSError:
        return False


def session_files(agent: str, root: Path, skip: Callable[[str], None]) -> list[str]:
    """The session files of ``agent`` under ``root``, in path order; ``skip`` is told each
    directory or file passed over, and why."""
    found: list[str] = []
    if agent in ("claude-code", "pi"):
        for project in _entries(str(root), skip):
            if _is_dir(project):
                found.extend(e.path for e in _entries(project.path, skip) if _is_file(e) and e.name.endswith(".jsonl"))
    elif agent == "codex":
        found.extend(_walk(str(root), skip, lambda e: e.name.startswith("rollout-") and e.name.endswith(".jsonl")))
    elif agent == "gemini":
        for project in _entries(str(root), skip):
            if not _is_dir(project):
                continue
            for entry in _entries(os.path.join(project.path, "chats"), skip):
                if not _is_file(entry) or not entry.name.startswith("session-"):
                    continue
                if entry.name.endswith(".jsonl"):
                    found.append(entry.path)
                elif entry.name.endswith(".json"):
                    skip(f"{entry.path}: skipped: a whole-file JSON chat of an older Gemini CLI (unknown format)")
    else:
        raise ValueError(f"unknown agent {agent!r}")
    return found


def _walk(directory: str, skip: Callable[[str], None], wanted: Callable[[os.DirEntry[str]], bool]) -> list[str]:
    found: list[str] = []
    for entry in _entries(directory, skip):
        if _is_dir(entry):
            found.extend(_walk(entry.path, skip, wanted))
        elif _is_file(entry) and wanted(entry):
            found.append(entry.path)
    return found
