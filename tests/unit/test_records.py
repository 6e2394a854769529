"""Record-level rules that other modules build on."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from memory_core.records import Evidence
from tests.factories import make_memory

T0 = 1_700_000_000.0


def test_aging_clock_is_latest_of_change_confirmation_and_evidence() -> None:
    m = make_memory(at=T0)
    assert m.clock_at == T0
    assert m.model_copy(update={"confirmed_at": T0 + 10}).clock_at == T0 + 10
    renewed = Evidence(basis="user_statement", method="model", source_id="s" * 24, at=T0 + 20)
    assert m.model_copy(update={"evidence": renewed, "confirmed_at": T0 + 10}).clock_at == T0 + 20
    assert m.model_copy(update={"evidence": None}).clock_at == T0


def test_tool_observation_only_for_project_state() -> None:
    obs = Evidence(basis="tool_observation", method="model", source_id="s" * 24, at=T0)
    assert make_memory(kind="project_state", evidence=obs).kind == "project_state"
    with pytest.raises(ValidationError):
        make_memory(kind="fact", evidence=obs)


def test_content_hash_must_match() -> None:
    with pytest.raises(ValidationError):
        make_memory(content_hash="0" * 32)
