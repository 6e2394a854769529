"""Fixtures of the agent tests: each pinned CLI (skipped without it, a failure when
``MEMEVO_REQUIRE_AGENT_CLIS=1``), the loopback fake of each agent's model API, and the
throwaway HOME of a user's agent and ``memevo install``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.agent_clis import require_claude
from tests.support.codex_cli import require_codex
from tests.support.fake_anthropic import FakeAnthropicServer
from tests.support.fake_codex import FakeCodexServer
from tests.support.fake_gemini import FakeGeminiServer
from tests.support.fake_openai_chat import FakeOpenAIChatServer
from tests.support.gemini_cli import require_gemini
from tests.support.pi_cli import require_pi


@pytest.fixture(scope="session")
def claude_bin() -> Path:
    return require_claude()


@pytest.fixture(scope="session")
def codex_bin() -> Path:
    return require_codex()


@pytest.fixture(scope="session")
def gemini_bin() -> Path:
    return require_gemini()


@pytest.fixture(scope="session")
def pi_bin() -> Path:
    return require_pi()


@pytest.fixture
def claude_fake() -> Iterator[FakeAnthropicServer]:
    """The Anthropic Messages API."""
    with FakeAnthropicServer() as server:
        yield server


@pytest.fixture
def codex_fake() -> Iterator[FakeCodexServer]:
    """The OpenAI Responses API."""
    with FakeCodexServer() as server:
        yield server


@pytest.fixture
def gemini_fake() -> Iterator[FakeGeminiServer]:
    """The Gemini API."""
    with FakeGeminiServer() as server:
        yield server


@pytest.fixture
def pi_fake() -> Iterator[FakeOpenAIChatServer]:
    """The OpenAI chat completions API (streamed), which Pi is configured to use."""
    with FakeOpenAIChatServer() as server:
        yield server


@pytest.fixture
def user_home(tmp_path: Path) -> Path:
    """The throwaway HOME every agent run and ``memevo install`` use (the state dir is ``home``)."""
    path = tmp_path / "home"
    path.mkdir()
    return path
