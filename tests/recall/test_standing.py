"""The standing digest: which conventions a session starts with, in what order, within what
bound; and its record, which keeps the session's per-turn digests from repeating them.

Against the real store on both backends, in a real git checkout (``git init``) so the
project and its checkout are what a hook would find.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from cli.hooks.dispatch import handle_event
from cli.hooks.event import HookEvent
from memory_core.recall.service import open_recall_store
from memory_core.recall.standing import GUIDANCE, OPEN
from memory_core.recall.standing_setting import DEFAULT_BYTES, parse_standing, standing_bytes
from memory_core.records import Evidence, Feedback, VerdictSlot
from memory_core.reports.injection_log import read_injections
from memory_core.reports.standing_view import standing_for
from memory_core.store.engines.database import Store
from tests.factories import make_memory, seed

NOW = 1_800_000_000.0
DAY = 86_400.0


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "work" / "shop"
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True, timeout=30)
    return path


def origin_of(path: Path) -> str:
    return str(path.resolve())


def shown(home: Path, cwd: Path, **kwargs: object) -> tuple[list[str], str, list[dict[str, object]]]:
    opened = open_recall_store(home)
    assert opened is not None
    with opened as store:
        result = standing_for(store.conn, home, str(cwd), NOW, **kwargs)  # type: ignore[arg-type]
    return result.shown, result.digest, result.decisions


def test_project_preferences_and_decisions_and_general_preferences_only(home: Path, repo: Path) -> None:
    project, enclosing, elsewhere = origin_of(repo), origin_of(repo.parent), "/srv/other-project"
    pnpm = make_memory("Use pnpm, not npm, here.", origin=project, kind="preference", at=NOW - DAY)
    push = make_memory("Never push to main directly.", origin=project, kind="decision", at=NOW - DAY)
    fact = make_memory("The staging database listens on port 5433.", origin=project, kind="fact", at=NOW - DAY)
    terse = make_memory("Answer tersely.", origin=enclosing, kind="preference", at=NOW - DAY)
    general_decision = make_memory("Ship on Fridays.", origin=enclosing, kind="decision", at=NOW - DAY)
    other = make_memory("Use yarn in the other project.", origin=elsewhere, kind="preference", at=NOW - DAY)
    with Store.open(home) as store:
        seed(store, pnpm, push, fact, terse, general_decision, other)

    ids, digest, _ = shown(home, repo)

    assert set(ids) == {pnpm.id, push.id, terse.id}
    assert digest.startswith(f"{OPEN}\n{GUIDANCE}\n") and digest.endswith("</memevo-standing>")
    rows = [json.loads(line) for line in digest.splitlines()[2:-1]]
    assert {r["text"] for r in rows} == {pnpm.content, push.content, terse.content}
    # A general preference says where it was stated; the project's own do not repeat the project.
    assert [r.get("origin") for r in rows if r["id"] == terse.id] == [enclosing]
    assert all("origin" not in r for r in rows if r["id"] != terse.id)


def test_only_the_newest_version_and_no_dormant_quarantined_or_replaced_claim(home: Path, repo: Path) -> None:
    project = origin_of(repo)
    newer = make_memory("Use pnpm for packages.", origin=project, kind="preference", at=NOW - DAY)
    older = make_memory(
        "Use npm for packages.",
        origin=project,
        kind="preference",
        at=NOW - 9 * DAY,
        status="superseded",
        replaced_by=newer.id,
    )
    quarantined = make_memory(
        "Use bun for packages.", origin=project, kind="preference", at=NOW - DAY, status="conflicted"
    )
    dormant = make_memory("Tabs, not spaces.", origin=project, kind="preference", at=NOW - 800 * DAY)
    with Store.open(home) as store:
        seed(store, newer, older, quarantined, dormant)

    ids, digest, decisions = shown(home, repo)

    assert ids == [newer.id]
    assert "Use npm for" not in digest and "bun" not in digest and "Tabs" not in digest
    assert [d["id"] for d in decisions] == [newer.id]  # the others are never candidates


def test_ranked_by_pin_evidence_confirmation_and_feedback(home: Path, repo: Path) -> None:
    project = origin_of(repo)
    slot = VerdictSlot(verdict="useful", source_id="f" * 24, at=NOW - DAY)
    user_said = make_memory(
        "Name test files with a _spec suffix.",
        origin=project,
        kind="preference",
        at=NOW - 30 * DAY,
        evidence=Evidence(basis="user_statement", method="local", source_id="u" * 24, at=NOW - 30 * DAY),
    )
    inferred = make_memory(
        "Prefer small commits.",
        origin=project,
        kind="preference",
        at=NOW - 30 * DAY,
        evidence=Evidence(basis="summary", method="model", source_id="m" * 24, at=NOW - 30 * DAY),
    )
    useful = make_memory(
        "Prefer small commits with tests.",
        origin=project,
        kind="preference",
        at=NOW - 30 * DAY,
        evidence=inferred.evidence,
        feedback=Feedback(utility=slot),
    )
    old_pinned = make_memory(
        "Run the linters before pushing.", origin=project, kind="decision", at=NOW - 300 * DAY, pinned=True
    )
    with Store.open(home) as store:
        seed(store, user_said, inferred, useful, old_pinned)

    ids, digest, decisions = shown(home, repo)

    assert ids == [old_pinned.id, user_said.id, useful.id, inferred.id]
    scores = {d["id"]: d["score"] for d in decisions}
    assert scores[user_said.id] > scores[useful.id] > scores[inferred.id]
    rows = {r["id"]: r for r in (json.loads(line) for line in digest.splitlines()[2:-1])}
    assert rows[inferred.id].get("provisional") is True and rows[old_pinned.id].get("pinned") is True


def test_bounded_by_the_setting_best_first(home: Path, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = origin_of(repo)
    claims = [
        make_memory(
            f"Convention number {i}: keep module {i} under four hundred lines of code.",
            origin=project,
            kind="preference",
            at=NOW - (i + 1) * DAY,
        )
        for i in range(30)
    ]
    with Store.open(home) as store:
        seed(store, *claims)

    ids, digest, decisions = shown(home, repo)
    assert 1 <= len(ids) < 30 and len(digest.encode("utf-8")) <= DEFAULT_BYTES
    assert ids == [c.id for c in claims[: len(ids)]]  # the freshest first
    assert {d["verdict"] for d in decisions[len(ids) :]} == {"over_bound"} and len(decisions) == 30

    monkeypatch.setenv("MEMEVO_STANDING_DIGEST", "512")
    small, digest, _ = shown(home, repo)
    assert len(digest.encode("utf-8")) <= 512 and len(small) < len(ids)
    monkeypatch.setenv("MEMEVO_STANDING_DIGEST", "off")
    assert shown(home, repo) == ([], "", [])


def test_the_setting_reads_as_the_settings_do(home: Path) -> None:
    from memory_core.config import load_settings

    for value, expected in (("on", 1024), ("OFF", 0), ("2048", 2048), (" yes ", 1024), ("false", 0)):
        assert parse_standing(value) == expected
        assert load_settings({"MEMEVO_HOME": str(home), "MEMEVO_STANDING_DIGEST": value}).standing_digest in (
            "on",
            "off",
            value.strip(),
        )
    for bad in ("5", "9000", "lots", "-1"):
        with pytest.raises(ValueError, match="on, off, or a whole number of bytes"):
            parse_standing(bad)
        # The hooks keep the default for a value the settings refuse (status reports it).
        assert standing_bytes(home, {"MEMEVO_STANDING_DIGEST": bad}) == DEFAULT_BYTES
    (home).mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text("standing_digest = 300\n", encoding="utf-8")
    assert standing_bytes(home, {}) == 300


def test_review_gate_holds_back_a_model_claim(home: Path, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = origin_of(repo)
    learned = make_memory(
        "Prefer small commits.",
        origin=project,
        kind="preference",
        at=NOW - DAY,
        evidence=Evidence(basis="summary", method="model", source_id="m" * 24, at=NOW - DAY),
    )
    with Store.open(home) as store:
        seed(store, learned)
        with store.transaction() as conn:  # the model's event that created it, after the watermark
            conn.execute(
                "INSERT INTO events (at, actor, operation, reason, source_id, body) "
                "VALUES (?, 'model', 'add', NULL, ?, ?)",
                (NOW - DAY, "m" * 24, json.dumps({"before": [], "after": [{"id": learned.id}]})),
            )
    assert shown(home, repo)[0] == [learned.id]
    monkeypatch.setenv("MEMEVO_REVIEW_BEFORE_RECALL", "true")
    ids, _, decisions = shown(home, repo)
    assert ids == [] and decisions[0]["verdict"] == "held_for_review"


def _event(name: str, repo: Path, agent: str, session: str, **fields: object) -> HookEvent:
    return HookEvent(name, agent=agent, session_id=session, cwd=str(repo), **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_session_start_gives_it_and_the_turns_do_not_repeat_it(home: Path, repo: Path, agent: str) -> None:
    project = origin_of(repo)
    pnpm = make_memory("Use pnpm, not npm, for packages.", origin=project, kind="preference", at=NOW - DAY)
    port = make_memory("The pnpm registry mirror listens on port 4873.", origin=project, kind="fact", at=NOW - DAY)
    with Store.open(home) as store:
        seed(store, pnpm, port)

    started = handle_event(_event("session_start", repo, agent, "s1"), home, NOW)
    turn = handle_event(_event("user_prompt", repo, agent, "s1", prompt="which pnpm packages and port?"), home, NOW)
    other = handle_event(_event("user_prompt", repo, agent, "s2", prompt="which pnpm packages and port?"), home, NOW)

    assert started.startswith(OPEN) and pnpm.id in started and port.id not in started
    assert port.id in turn and pnpm.id not in turn and OPEN not in turn  # no second copy in the session
    assert pnpm.id in other  # a session that was given no standing digest still recalls it
    kinds = [(e["kind"], e["session"], e["claims"]) for e in reversed(read_injections(home, 10))]
    assert kinds[0] == ("standing", "s1", [pnpm.id])
    assert ("digest", "s1", [port.id]) in kinds


@pytest.mark.parametrize("agent", ["gemini", "pi", "generic"])
def test_other_agents_get_it_on_the_first_turn_only(home: Path, repo: Path, agent: str) -> None:
    project = origin_of(repo)
    pnpm = make_memory("Use pnpm, not npm, for packages.", origin=project, kind="preference", at=NOW - DAY)
    with Store.open(home) as store:
        seed(store, pnpm)

    assert handle_event(_event("session_start", repo, agent, "s1"), home, NOW) == ""
    first = handle_event(_event("user_prompt", repo, agent, "s1", prompt="add a date library"), home, NOW)
    second = handle_event(
        _event("user_prompt", repo, agent, "s1", prompt="which pnpm packages?", user_messages=("add a date library",)),
        home,
        NOW,
    )

    assert first.startswith(OPEN) and first.count(pnpm.id) == 1
    assert second == "" or (OPEN not in second and pnpm.id not in second)


def test_ranking_factors_are_recalls_own() -> None:
    from memory_core.recall import rank, standing

    assert standing.UTILITY_FACTORS == rank.UTILITY_FACTORS
    assert standing.ACCURACY_FACTORS == rank.ACCURACY_FACTORS
    for priority in range(5):
        assert 1.0 + standing.PRIORITY_STEP * priority == rank.evidence_weight(priority)


def test_a_session_start_delivered_late_gives_and_records_nothing(home: Path, repo: Path) -> None:
    from cli.hooks.session_stash import read_standing
    from memory_core import clock

    pnpm = make_memory("Use pnpm, not npm, for packages.", origin=origin_of(repo), kind="preference", at=NOW - DAY)
    with Store.open(home) as store:
        seed(store, pnpm)
    # From the gateway's spool, a minute after it happened: no agent waits for the output.
    late = clock.now() - 60
    assert handle_event(_event("session_start", repo, "claude-code", "late"), home, late) == ""
    assert read_standing(home, "late") is None
    assert pnpm.id in handle_event(_event("session_start", repo, "claude-code", "now"), home, clock.now())
