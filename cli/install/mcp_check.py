"""`memevo doctor`'s MCP checks: is memevo's server registered where its hooks are, does the
registered command run, and does ``memevo mcp`` answer?

Read-only: the server is started once, for the state dir doctor checks, asked ``initialize``
and ``tools/list`` and ended; it opens no store for that and writes nothing.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cli.install import check, mcp_config, owned_file
from cli.install.executable import current_launcher, launcher_problem
from cli.install.registry import TARGETS
from memory_core.reports.health import ERROR, OK, WARN, make_check

NAME = "mcp"
PROBE_SECONDS = 10.0


def _hooks_installed(agent: str, project_dir: Path, env: Mapping[str, str]) -> set[str]:
    """The scopes where memevo's hooks for ``agent`` are installed."""
    target = TARGETS[agent]
    if isinstance(target, owned_file.FileTarget):
        return set()
    return {scope for scope in target.scopes if check.inspect_scope(target, scope, project_dir, env)["events"]}


def registration_checks(
    project_dir: Path, env: Mapping[str, str], home: Path
) -> tuple[list[dict[str, Any]], list[list[str]]]:
    """Problems of each agent's registrations, and the command lines registered (for the probe)."""
    checks: list[dict[str, Any]] = []
    commands: list[list[str]] = []
    registered: list[str] = []
    for agent, target in mcp_config.MCP_TARGETS.items():
        hooked = _hooks_installed(agent, project_dir, env)
        for scope in TARGETS[agent].scopes:
            info = mcp_config.registration(target, scope, project_dir, env)
            reinstall = f"memevo install {agent} --scope {scope}"
            where = f"{target.title} {scope} MCP configuration ({info['path']})"
            if info["problem"]:
                if scope in hooked or Path(info["path"]).exists():
                    checks.append(
                        make_check(
                            NAME,
                            ERROR,
                            f"{where} {info['problem']}",
                            f"${{EDITOR:-vi}} {shlex.quote(info['path'])}  # fix it by hand",
                            agent=agent,
                            scope=scope,
                        )
                    )
                continue
            entry = info["entry"]
            if entry is None:
                if scope in hooked:
                    checks.append(
                        make_check(
                            NAME,
                            WARN,
                            f"memevo's hooks are installed for {target.title} ({scope} scope) but its MCP server "
                            "is not registered: the agent cannot look memory up mid-task",
                            reinstall,
                            agent=agent,
                            scope=scope,
                            path=info["path"],
                        )
                    )
                continue
            argv = mcp_config.entry_argv(entry)
            problem = "has no command" if argv is None or argv[-1:] != ["mcp"] else launcher_problem(argv[:-1])
            if problem is not None:
                checks.append(
                    make_check(NAME, ERROR, f"{where}: memevo's server cannot start: {problem}", reinstall, agent=agent)
                )
                continue
            assert argv is not None
            commands.append(argv)
            served = (
                (entry.get("env") or {}).get(mcp_config.HOME_VARIABLE) if isinstance(entry.get("env"), dict) else None
            )
            if served is not None and os.path.abspath(str(served)) != os.path.abspath(home):
                checks.append(
                    make_check(
                        NAME,
                        WARN,
                        f"{where}: memevo's server reads the state dir {served}, not {home} (the one checked here)",
                        reinstall + "  # run with the MEMEVO_HOME the agent should use",
                        agent=agent,
                        scope=scope,
                    )
                )
            registered.append(f"{target.title} ({scope})")
    if registered and not checks:
        checks.append(make_check(NAME, OK, f"memevo's MCP server is registered for {', '.join(registered)}"))
    return checks, commands


def probe(
    argv: Sequence[str], home: Path, env: Mapping[str, str], timeout: float = PROBE_SECONDS
) -> tuple[str | None, float]:
    """Start ``argv`` (``<memevo> mcp``) once for ``home``; ``(problem or None, seconds)``."""
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "memevo-doctor", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    started = time.perf_counter()
    try:
        done = subprocess.run(
            list(argv),
            input="".join(json.dumps(r) + "\n" for r in requests),
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**env, mcp_config.HOME_VARIABLE: str(home)},
        )
    except subprocess.TimeoutExpired:
        return f"it did not answer within {timeout:.0f} s", time.perf_counter() - started
    except OSError as exc:
        return f"it could not be started ({exc.strerror or exc})", time.perf_counter() - started
    seconds = time.perf_counter() - started
    answers = {}
    for line in done.stdout.splitlines():
        try:
            message = json.loads(line)
        except ValueError:
            return f"it printed something that is not a protocol message: {line[:80]!r}", seconds
        if isinstance(message, dict):
            answers[message.get("id")] = message
    tools = ((answers.get(2) or {}).get("result") or {}).get("tools")
    names = sorted(str(t.get("name")) for t in tools if isinstance(t, dict)) if isinstance(tools, list) else []
    if names != sorted(mcp_config.TOOLS):
        detail = done.stderr.strip().splitlines()[-1:] or [f"exit code {done.returncode}"]
        return f"it did not list memevo's tools ({detail[0][:200]})", seconds
    return None, seconds


def mcp_checks(project_dir: Path, env: Mapping[str, str], home: Path) -> list[dict[str, Any]]:
    """Doctor's MCP checks: the registrations, then one start of the server when any agent uses it."""
    checks, commands = registration_checks(project_dir, env, home)
    pi = TARGETS.get("pi")
    pi_installed = isinstance(pi, owned_file.FileTarget) and any(
        owned_file.inspect_scope(pi, scope, project_dir, env)["ours"] for scope in pi.scopes
    )
    if not commands and not pi_installed:
        return checks
    argv = commands[0] if commands else [*current_launcher(), "mcp"]
    problem, seconds = probe(argv, home, env)
    if problem is None:
        checks.append(
            make_check(NAME, OK, f"`{shlex.join(argv)}` answers (started and listed its tools in {seconds:.2f} s)")
        )
    else:
        checks.append(
            make_check(
                NAME,
                ERROR,
                f"`{shlex.join(argv)}` does not work: {problem}; agents get no mid-task lookup",
                f"{shlex.join(argv)} < /dev/null  # try it; then see logs/mcp.log in the state dir",
                command=list(argv),
            )
        )
    return checks
