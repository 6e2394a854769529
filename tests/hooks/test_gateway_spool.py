"""The spool of hook events kept for the gateway: private, whole files, bounded, read back as written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli.hooks import gateway_client, spool
from cli.hooks.entry import log_failure

RAW = json.dumps({"schema": "memevo.hook/v1", "event": "turn_end", "user_messages": ["héllo"]}).encode()


def test_a_spooled_event_reads_back_as_written(home: Path) -> None:
    path = spool.spool_event(home, RAW, "turn_end", "generic", 1_700_000_000.25, log_failure)
    assert spool.pending(home) == [path]
    assert path.stat().st_mode & 0o777 == 0o600 and path.parent.stat().st_mode & 0o777 == 0o700
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".tmp-")]
    item = spool.decode(path, path.read_bytes())
    assert (item.raw, item.event, item.adapter, item.now) == (RAW, "turn_end", "generic", 1_700_000_000.25)


def test_the_spool_is_bounded_and_says_what_it_dropped(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spool, "MAX_FILES", 3)
    paths = [spool.spool_event(home, RAW, "turn_end", None, 1_700_000_000 + i, log_failure) for i in range(5)]
    assert spool.pending(home) == paths[2:]  # the oldest two dropped
    log = (home / "logs" / "hooks.log").read_text()
    assert log.count("dropped the 1 oldest spooled event(s)") == 2
    monkeypatch.setattr(spool, "MAX_BYTES", 2 * len(spool.encode(RAW, "turn_end", None, 1_700_000_010)) + 10)
    spool.spool_event(home, RAW, "turn_end", None, 1_700_000_010, log_failure)
    assert len(spool.pending(home)) == 2
    assert "dropped the 2 oldest" in (home / "logs" / "hooks.log").read_text()


def test_drain_removes_only_what_was_delivered(home: Path) -> None:
    first = spool.spool_event(home, RAW, "turn_end", None, 1_700_000_001, log_failure)
    second = spool.spool_event(home, RAW, "compaction", None, 1_700_000_002, log_failure)
    seen: list[str | None] = []

    def not_yet(item: spool.Spooled) -> bool:
        seen.append(item.event)
        return False

    assert spool.drain(home, not_yet, log_failure) == (0, 0)
    assert seen == ["turn_end"] and spool.pending(home) == [first, second]  # stops at the first
    assert spool.drain(home, lambda item: seen.append(item.event) or True, log_failure) == (2, 0)
    assert seen == ["turn_end", "turn_end", "compaction"] and spool.pending(home) == []


@pytest.mark.parametrize(
    "data",
    [b"", b"no header", b"{not json\n{}", b'{"format": 2, "now": 1}\n{}', b'{"format": 1, "now": "x"}\n{}'],
)
def test_what_is_not_an_event_is_set_aside(home: Path, data: bytes) -> None:
    directory = home / "spool"
    directory.mkdir(mode=0o700, parents=True)
    bad = directory / f"{0:020d}-x{spool.SUFFIX}"
    bad.write_bytes(data)
    assert spool.drain(home, lambda item: True, log_failure) == (0, 1)
    assert (directory / "corrupt" / bad.name).read_bytes() == data and not bad.exists()


def test_recall_events_are_told_apart_from_captures() -> None:
    assert gateway_client.is_recall(b"{}", "user_prompt")
    assert not gateway_client.is_recall(b"{}", "turn_end")
    assert gateway_client.is_recall(b'{"hook_event_name": "UserPromptSubmit"}', None)
    assert gateway_client.is_recall(b'{"hook_event_name": "BeforeAgent"}', None)
    assert gateway_client.is_recall(b'{"hook_event_name": "before_agent_start", "event": {}}', None)
    assert not gateway_client.is_recall(b'{"hook_event_name": "Stop", "prompt": "UserPromptSubmit"}', None)
    assert not gateway_client.is_recall(b"UserPromptSubmit {", None)


def test_the_gateway_target_quotes_what_it_carries() -> None:
    assert gateway_client.gateway_target(None, None) == "/gateway/hook"
    assert gateway_client.gateway_target("a b&c", "claude-code") == "/gateway/hook?event=a%20b%26c&agent=claude-code"


def test_no_gateway_file_means_down(home: Path) -> None:
    assert gateway_client.read_gateway(home) is None
    home.mkdir(parents=True, exist_ok=True)
    (home / "gateway").write_text("garbage\n")
    assert gateway_client.read_gateway(home) is None
    assert gateway_client.probe(home) == (False, "no gateway file in the state dir: memevo serve is not running")


def test_install_says_serve_must_run_beside_the_worker_on_postgresql(home: Path) -> None:
    from cli.install.actions import gateway_notice

    assert gateway_notice({"MEMEVO_HOME": str(home)}) is None
    notice = gateway_notice({"MEMEVO_HOME": str(home), "MEMEVO_DATABASE_URL": "postgresql://me@db.example/memevo"})
    assert notice is not None and "`memevo serve`" in notice and "serve:" in notice
