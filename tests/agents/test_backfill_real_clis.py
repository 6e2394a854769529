"""`memevo backfill` on the sessions the real agent CLIs saved (against the loopback fakes).

For each agent, one session runs with memevo's hooks installed, so the live hooks capture
its sources into one state dir. Then:

- backfilling that state dir adds nothing (live, then backfill: one set of sources);
- backfilling the same saved session into a fresh state dir makes exactly the sources the
  live hooks made, with the same ids (the dedupe keys are shared), each dated at the time
  of its turn, and a second backfill adds nothing;
- a ``<private>`` part of a prompt is in neither store.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.agents.helpers import STATEMENT, agent_runner, assert_no_hook_errors, memevo_as_user
from tests.support.agent_clis import ClaudeRunner
from tests.support.codex_cli import CodexRunner
from tests.support.fake_anthropic import FakeAnthropicServer
from tests.support.fake_codex import FakeCodexServer
from tests.support.fake_gemini import FakeGeminiServer
from tests.support.fake_openai_chat import FakeOpenAIChatServer
from tests.support.gemini_cli import GeminiRunner
from tests.support.memevo_worker import memevo_env, query, run_memevo, sources, wait_until
from tests.support.pi_cli import PiRunner

pytestmark = pytest.mark.slow

SECRET = "PRIVATE-MARKER-4242"
SAID = f"{STATEMENT} <private>my card PIN is {SECRET}</private>"
AGENT_DIRS = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "PI_CODING_AGENT_DIR")


def backfill(user_home: Path, state_dir: Path, agent: str, *extra: str, **env: str) -> dict[str, Any]:
    """``memevo backfill AGENT --all-projects --json`` as the person runs it; its summary."""
    base = {k: v for k, v in memevo_env(state_dir, home=user_home).items() if k not in AGENT_DIRS}
    done = run_memevo("backfill", agent, "--all-projects", "--json", *extra, env={**base, **env}, cwd=user_home)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr  # no progress bar when not a terminal
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def everything(state_dir: Path) -> str:
    return json.dumps(sources(state_dir)) + "".join(
        p.read_text(encoding="utf-8", errors="replace") for p in state_dir.rglob("*.jsonl")
    )


def created_at(state_dir: Path) -> dict[str, float]:
    return {i: float(t) for i, t in query(state_dir, "SELECT id, created_at FROM sources")}


def check_backfill_matches_live(user_home: Path, home: Path, tmp_path: Path, agent: str, **env: str) -> None:
    live = wait_until(lambda: sources(home), 10, f"the {agent} hooks' captures")
    assert any(s["source_type"] == "user_statement" for s in live), live
    again = backfill(user_home, home, agent, **env)
    assert again["sources_total"] == 0 and again["sessions_read"] == 1 and again["turns_read"] >= 1, again
    assert sorted(s["id"] for s in sources(home)) == sorted(s["id"] for s in live)

    fresh = tmp_path / "fresh-state"
    first = backfill(user_home, fresh, agent, **env)
    made = sources(fresh)
    assert sorted((s["id"], s["origin"]) for s in made) == sorted((s["id"], s["origin"]) for s in live), (made, live)
    assert first["sources_total"] == len(live), first
    live_times, backfilled_times = created_at(home), created_at(fresh)
    for source_id, at in backfilled_times.items():  # dated when the turn happened, not when backfill ran
        assert abs(at - live_times[source_id]) < 60, (source_id, at, live_times)
    statement = next(s for s in made if s["source_type"] == "user_statement")
    assert statement["body"]["text"].startswith(STATEMENT) and SECRET not in everything(fresh)
    assert SECRET not in everything(home)
    assert backfill(user_home, fresh, agent, **env)["sources_total"] == 0
    assert len(sources(fresh)) == len(made)
    assert_no_hook_errors(home)


def test_claude_code_session(
    claude_bin: Path, claude_fake: FakeAnthropicServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    memevo_as_user(user_home, home, "install", "claude-code", "--scope", "user")
    runner = agent_runner(
        ClaudeRunner, claude_fake.base_url, claude_bin, user_home, tmp_path / "repo", home, timeout=60
    )
    claude_fake.enqueue("Noted.")
    claude_fake.enqueue_compact_summary(
        "<summary>\n1. Primary Request and Intent: staging (SUMMARY-MARKER-5).\n</summary>"
    )
    runner.run(SAID)
    runner.run("/compact", continue_session=True)
    live = wait_until(lambda: [s for s in sources(home) if s["source_type"] == "summary"], 10, "the summary")
    assert len(live) == 1
    check_backfill_matches_live(user_home, home, tmp_path, "claude-code")


def test_codex_session(
    codex_bin: Path, codex_fake: FakeCodexServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    memevo_as_user(user_home, home, "install", "codex")
    runner = agent_runner(CodexRunner, codex_fake.base_url, codex_bin, user_home, tmp_path / "repo", home, timeout=90)
    codex_fake.enqueue("Noted.")
    runner.run(SAID)
    check_backfill_matches_live(user_home, home, tmp_path, "codex")


def test_gemini_session(
    gemini_bin: Path, gemini_fake: FakeGeminiServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    memevo_as_user(user_home, home, "install", "gemini", "--scope", "user")
    runner = agent_runner(
        GeminiRunner, gemini_fake.base_url, gemini_bin, user_home, tmp_path / "repo", home, timeout=90
    )
    gemini_fake.enqueue("Noted.")
    runner.run(SAID)
    check_backfill_matches_live(user_home, home, tmp_path, "gemini")


def test_pi_session(pi_bin: Path, pi_fake: FakeOpenAIChatServer, user_home: Path, home: Path, tmp_path: Path) -> None:
    pi_dir = str(user_home / ".pi" / "agent")
    memevo_as_user(user_home, home, "install", "pi", "--scope", "user", PI_CODING_AGENT_DIR=pi_dir)
    runner = agent_runner(PiRunner, pi_fake.base_url, pi_bin, user_home, tmp_path / "repo", home, timeout=60)
    pi_fake.enqueue("Noted.", "Decision: staging stays on port 5433 (SUMMARY-MARKER-6).")
    runner.run(SAID)
    assert runner.compact().get("success") is True
    wait_until(lambda: [s for s in sources(home) if s["source_type"] == "summary"], 10, "the summary")
    check_backfill_matches_live(user_home, home, tmp_path, "pi", PI_CODING_AGENT_DIR=pi_dir)
