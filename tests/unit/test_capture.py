from __future__ import annotations

from memory_core.capture.cues import explicit_statements, is_recall_question
from memory_core.capture.intake import canonical_origin, capture_source
from memory_core.capture.summary_lines import extract_local_claims
from memory_core.privacy.sanitize import REDACTED, SOURCE_MAX_BYTES, sanitize_text
from memory_core.store.engines.database import Store
from memory_core.store.tables.events import latest_events
from memory_core.store.tables.memories import iter_memory_rows, memory_from_row
from memory_core.store.tables.sources import require_source

NOW = 1_760_000_000.0


def test_sanitize_removes_controls_and_secrets() -> None:
    text = (
        "ok\x00\x07 line\r\n"
        "key sk-proj-abcdefghijklmnopqrstuvwx and ghp_abcdefghijklmnopqrstuvwxyz0123\n"
        "aws AKIAABCDEFGHIJKLMNOP here\n"
        "Authorization: Bearer abcdef123456789xyz\n"
        "db postgres://alice:hunter2pass@db.local/app\n"
        "DB_PASSWORD=supersecret\n"
        "export GITHUB_TOKEN=tok123\n"
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----\n"
        "ran API_TOKEN=inline123value make deploy\n"
        "normal text stays"
    )
    clean = sanitize_text(text)
    for secret in (
        "sk-proj-abc",
        "ghp_abc",
        "AKIAABCDEFGHIJKLMNOP",
        "abcdef123456789xyz",
        "hunter2pass",
        "supersecret",
        "tok123",
        "MIIEow",
        "inline123value",
        "\x00",
        "\x07",
        "\r",
    ):
        assert secret not in clean, secret
    assert clean.count(REDACTED) >= 8
    assert "postgres://alice:" in clean and "normal text stays" in clean


def test_sanitize_caps_bytes_without_cutting_a_character() -> None:
    text = "记" * 20_000  # 3 bytes each
    clean = sanitize_text(text)
    assert len(clean.encode("utf-8")) <= SOURCE_MAX_BYTES
    assert len(clean.encode("utf-8")) > SOURCE_MAX_BYTES - 3
    clean.encode("utf-8").decode("utf-8")  # whole characters only


def test_capture_is_idempotent(store: Store) -> None:
    with store.transaction() as conn:
        first = capture_source(conn, source_type="summary", origin="/w", text="A summary.", now=NOW, session_id="s1")
        again = capture_source(
            conn, source_type="summary", origin="/w", text="A summary.", now=NOW + 5, session_id="s1"
        )
    assert first.created and not again.created
    assert first.source_id == again.source_id
    assert store.conn.execute("SELECT COUNT(*) FROM sources").fetchone()[0] == 1


def test_summary_yields_bounded_local_claims_in_same_transaction(store: Store) -> None:
    lines = [
        "Session summary.",
        "- Decision: use SQLite with WAL for the queue",
        "- Preference: answers in English",
        "- 偏好：回答使用中文",
        "- random: not a label",
        "Fact: x",
    ]  # too short
    lines += [f"- Fact: service number {i} listens on port {8000 + i}" for i in range(30)]
    with store.transaction() as conn:
        result = capture_source(conn, source_type="summary", origin="/w", text="\n".join(lines), now=NOW)
    assert result.local_claims == 16
    memories = [memory_from_row(r) for r in iter_memory_rows(store.conn)]
    assert len(memories) == 16
    assert all(m.evidence and (m.evidence.basis, m.evidence.method) == ("summary", "local") for m in memories)
    kinds = {m.content: m.kind for m in memories}
    assert kinds["use SQLite with WAL for the queue"] == "decision"
    assert kinds["回答使用中文"] == "preference"
    events = latest_events(store.conn, limit=5)
    assert events[0].operation == "capture_local" and len(events[0].after) == 16


def test_local_claim_extraction_ignores_unlabelled_prose() -> None:
    assert extract_local_claims("We talked about many things.\nThe user: hi") == []


def test_secret_never_stored(store: Store) -> None:
    with store.transaction() as conn:
        result = capture_source(
            conn,
            source_type="user_statement",
            origin="/w",
            text="remember my key is sk-abcdefghijklmnopqrstuvwxyz1234",
            now=NOW,
        )
    assert "sk-abcdef" not in require_source(store.conn, result.source_id).text


def test_canonical_origin_resolves_symlinks(tmp_path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    assert canonical_origin(str(link)) == str(real)


def test_explicit_cues_and_recall_questions() -> None:
    msgs = [
        "remember that the staging DB is on port 5433",
        "记住：发布前要跑全部测试",
        "do you remember the staging port?",
        "what's up",
        "From now on, always use pnpm",
        "还记得端口吗",
    ]
    assert explicit_statements(msgs) == [msgs[0], msgs[1], msgs[4]]
    assert is_recall_question("Do you remember the port?")
