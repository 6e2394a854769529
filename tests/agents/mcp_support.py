"""What the MCP tests of every agent CLI share: the agent's own subcommands (``mcp list``) run
outside a turn, the server entry ``memevo install`` must write, and a runner whose hooks see an
empty state dir, so that only the registered MCP server can bring a stored claim back."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any, TypeVar

from tests.agents.helpers import agent_runner
from tests.support.memevo_worker import MEMEVO_BIN
from tests.support.npm_cli import AgentRunner

RunnerT = TypeVar("RunnerT", bound=AgentRunner[Any])


def agent_cli(runner: AgentRunner[Any], *args: str) -> subprocess.CompletedProcess[str]:
    """``AGENT ARGS`` (not a turn) in the runner's HOME, project and environment."""
    return subprocess.run(
        [runner.executable(), *args],
        capture_output=True,
        text=True,
        env=runner.environment(),
        cwd=str(runner.cwd),
        timeout=90,
    )


def server_entry(state_dir: Path) -> dict[str, Any]:
    """The stdio server ``memevo install`` registers: ``memevo mcp`` pinned to ``state_dir``."""
    return {"command": str(MEMEVO_BIN), "args": ["mcp"], "env": {"MEMEVO_HOME": str(state_dir.absolute())}}


def runner_elsewhere(runner: type[RunnerT], base_url: str, binary: Path, user_home: Path, tmp_path: Path) -> RunnerT:
    """A ``runner`` in ``tmp_path/repo`` whose own MEMEVO_HOME names another (empty) state dir:
    the MCP server must use the one it was registered with, and the hooks recall nothing."""
    return agent_runner(runner, base_url, binary, user_home, tmp_path / "repo", tmp_path / "other-state", timeout=90)
