"""The standing digest with the real agent CLIs: a session's first model request carries the
project's conventions, once; a replaced convention shows only in its newer version; a claim
naming a file the checkout lost is left out, and comes back with the file.

Conventions are seeded the way a compaction summary makes them at once (labelled lines
through a generic ``compaction`` hook in the project), so no worker is needed. Claude Code
and Codex get the digest from their session-start hook; Gemini CLI and Pi on the first user
turn (docs/hooks.md, "The standing digest").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.agents.helpers import DIGEST_OPEN, agent_runner, assert_no_hook_errors, make_widget_repo, memevo_as_user
from tests.support.agent_clis import ClaudeRunner
from tests.support.codex_cli import CodexRunner
from tests.support.fake_anthropic import FakeAnthropicServer
from tests.support.fake_anthropic import request_text as claude_text
from tests.support.fake_codex import FakeCodexServer
from tests.support.fake_codex import request_text as codex_text
from tests.support.fake_gemini import FakeGeminiServer, hook_contexts
from tests.support.fake_openai_chat import FakeOpenAIChatServer
from tests.support.fake_openai_chat import request_text as pi_text
from tests.support.gemini_cli import GeminiRunner
from tests.support.memevo_worker import claims, memevo_env, run_memevo
from tests.support.pi_cli import PiRunner

pytestmark = pytest.mark.slow

STANDING_OPEN = "<memevo-standing>"
PNPM = "Use pnpm, not npm, for every package in this repository."
DEPLOY = "Deploy with `scripts/deploy.sh` from a clean checkout."
# Shares words with PNPM: per-turn recall alone would give that claim beside the prompt.
QUESTION = "Which package manager do we use here, pnpm or npm?"


def seed_conventions(state_dir: Path, cwd: Path, *lines: str) -> dict[str, str]:
    """Each labelled line a claim of the project of ``cwd`` at once; their ids by content."""
    summary = "\n".join(lines)
    event = {
        "schema": "memevo.hook/v1",
        "event": "compaction",
        "session_id": "seed",
        "cwd": str(cwd),
        "summary": summary,
    }
    done = run_memevo("hook", "compaction", input=json.dumps(event), env=memevo_env(state_dir))
    assert done.returncode == 0 and not done.stderr, done.stderr
    return {c["content"]: c["id"] for c in claims(state_dir, "active")}


def project_repo(tmp_path: Path) -> Path:
    repo = make_widget_repo(tmp_path / "shop")
    (repo / "scripts").mkdir()
    (repo / "scripts" / "deploy.sh").write_text("#!/bin/sh\n", encoding="utf-8")
    return repo


def test_claude_code_session_starts_with_the_standing_digest_once(
    claude_bin: Path, claude_fake: FakeAnthropicServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    repo = project_repo(tmp_path)
    ids = seed_conventions(home, repo, f"Preference: {PNPM}", f"Decision: {DEPLOY}")
    memevo_as_user(user_home, home, "install", "claude-code", "--scope", "user")
    claude_fake.enqueue("pnpm.")
    run = agent_runner(ClaudeRunner, claude_fake.base_url, claude_bin, user_home, repo, home, timeout=60).run(QUESTION)

    assert run.result == "pnpm.", run.describe()
    [request] = claude_fake.main_requests()
    text = claude_text(request, include_system=True)
    assert STANDING_OPEN in text, text[-3000:]
    standing = text[text.index(STANDING_OPEN) :]
    assert ids[PNPM] in standing and ids[DEPLOY] in standing, standing[:2000]
    # The first turn's digest does not give the same claim a second time.
    assert text.count(ids[PNPM]) == 1, text[-3000:]
    assert_no_hook_errors(home)

    # The file is gone: the next session's standing digest leaves the deploy claim out; back, it returns.
    (repo / "scripts" / "deploy.sh").unlink()
    claude_fake.enqueue("pnpm.")
    agent_runner(ClaudeRunner, claude_fake.base_url, claude_bin, user_home, repo, home, timeout=60).run(QUESTION)
    text = claude_text(claude_fake.main_requests()[-1], include_system=True)
    assert ids[PNPM] in text and ids[DEPLOY] not in text, text[-3000:]

    (repo / "scripts" / "deploy.sh").write_text("#!/bin/sh\n", encoding="utf-8")
    claude_fake.enqueue("pnpm.")
    agent_runner(ClaudeRunner, claude_fake.base_url, claude_bin, user_home, repo, home, timeout=60).run(QUESTION)
    text = claude_text(claude_fake.main_requests()[-1], include_system=True)
    assert ids[PNPM] in text and ids[DEPLOY] in text, text[-3000:]
    assert_no_hook_errors(home)


def test_codex_session_shows_only_the_newer_version_of_a_replaced_convention(
    codex_bin: Path, codex_fake: FakeCodexServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    repo = project_repo(tmp_path)
    old = "Use npm for every package in this repository."
    ids = seed_conventions(home, repo, f"Preference: {old}")
    memevo_as_user(user_home, home, "correct", ids[old], PNPM)
    [newer] = [c for c in claims(home, "active")]
    assert newer["content"] == PNPM
    memevo_as_user(user_home, home, "install", "codex")
    codex_fake.enqueue("pnpm.")
    run = agent_runner(CodexRunner, codex_fake.base_url, codex_bin, user_home, repo, home, timeout=90).run(
        "Add a date library."
    )

    assert run.last_message == "pnpm.", run.describe()
    [request] = codex_fake.model_requests()
    text = codex_text(request, include_system=True)
    assert STANDING_OPEN in text, text[-3000:]
    assert newer["id"] in text and PNPM in text, text[-3000:]
    assert ids[old] not in text and old not in text, text[-3000:]
    assert_no_hook_errors(home)


def test_gemini_gets_the_standing_digest_on_its_first_turn_only(
    gemini_bin: Path, gemini_fake: FakeGeminiServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    repo = project_repo(tmp_path)
    ids = seed_conventions(home, repo, f"Preference: {PNPM}")
    memevo_as_user(user_home, home, "install", "gemini", "--scope", "user")
    runner = agent_runner(GeminiRunner, gemini_fake.base_url, gemini_bin, user_home, repo, home, timeout=90)
    gemini_fake.enqueue("pnpm.")
    runner.run(QUESTION)
    gemini_fake.enqueue("Done.")
    runner.run("Add a date library.", resume=True)

    first, second = gemini_fake.model_requests()[-2:]
    [context] = hook_contexts(first)
    assert context.startswith(STANDING_OPEN) and ids[PNPM] in context, context
    assert context.count(ids[PNPM]) == 1, context  # not again in the turn's own digest
    assert not any(STANDING_OPEN in c for c in hook_contexts(second)), hook_contexts(second)
    assert_no_hook_errors(home)


def test_pi_gets_the_standing_digest_on_its_first_turn(
    pi_bin: Path, pi_fake: FakeOpenAIChatServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    repo = project_repo(tmp_path)
    ids = seed_conventions(home, repo, f"Preference: {PNPM}")
    memevo_as_user(
        user_home, home, "install", "pi", "--scope", "user", PI_CODING_AGENT_DIR=str(user_home / ".pi" / "agent")
    )
    pi_fake.enqueue("pnpm.")
    agent_runner(PiRunner, pi_fake.base_url, pi_bin, user_home, repo, home, timeout=60).run(QUESTION)

    [request] = pi_fake.completion_requests()
    text = pi_text(request, include_system=True)
    assert STANDING_OPEN in text and ids[PNPM] in text, text[-3000:]
    assert text.count(ids[PNPM]) == 1 and DIGEST_OPEN not in text, text[-3000:]
    assert_no_hook_errors(home)
