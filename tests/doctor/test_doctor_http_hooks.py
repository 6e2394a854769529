"""`memevo doctor` on http hooks: is `memevo serve` answering on their port with their token?"""

from __future__ import annotations

import json
import socket
from pathlib import Path

from cli.install.actions import install
from cli.install.claude_code import TARGET
from cli.install.settings_json import read_settings
from tests.doctor.test_doctor import checks_named, heartbeat, report
from tests.install.support import ClaudeSandbox
from tests.support.memevo_serve import MemevoServe
from tests.support.memevo_worker import memevo_env

NOW = 1_800_000_000.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def install_http(port: int) -> None:
    install(TARGET, "user", project_dir=Path.cwd(), dry_run=False, now=NOW, transport="http", port=port)


def claude_checks(home: Path) -> list[dict[str, object]]:
    heartbeat(home, NOW - 30)
    return checks_named(report()[1], "claude-code")


def test_http_hooks_with_nothing_listening_are_a_warning(home: Path) -> None:
    port = free_port()
    install_http(port)
    [warning] = claude_checks(home)
    assert warning["status"] == "warn" and f"nothing answers on 127.0.0.1:{port}" in str(warning["summary"])
    assert warning["fix"] == f"memevo serve --port {port}  # or the Procfile's serve: line"


def test_a_running_server_with_the_same_token_is_healthy(home: Path, tmp_path: Path, claude: ClaudeSandbox) -> None:
    with MemevoServe(memevo_env(home), log=tmp_path / "serve.log") as server:
        install_http(server.port)
        [ok] = claude_checks(home)
        assert ok["status"] == "ok", ok

        settings = read_settings(claude.user_settings).data
        settings["env"]["MEMEVO_HOOK_TOKEN"] = "f" * 64
        claude.user_settings.write_text(json.dumps(settings), encoding="utf-8")
        [stale] = claude_checks(home)
        assert stale["status"] == "warn" and "holds another hook token" in str(stale["summary"])
        assert stale["fix"] == "memevo install claude-code --scope user --transport http"
