"""A claim learned from a backfilled source is dated when its session said it: aging and
dormancy see a month-old statement as a month old (docs/recall.md), not as learned today."""

from __future__ import annotations

import json
from pathlib import Path

from cli.backfill.run import Backfill
from memory_core import clock
from memory_core.store.engines.database import Store
from tests.hooks.claude_data import SESSION, assistant_record, records, user_record
from tests.support.fake_model import FakeModelServer, Reply
from tests.worker.conftest import settings
from workers.consolidate import consolidate_source

SAID = "remember that the staging database listens on port 5433"
CLAIM = {"kind": "fact", "content": "The staging database listens on port 5433"}


def test_a_backfilled_statement_teaches_a_claim_of_its_own_day(
    home: Path, model: FakeModelServer, tmp_path: Path
) -> None:
    user = tmp_path / "user"
    project = user / ".claude" / "projects" / "-home-user-project"
    project.mkdir(parents=True)
    lines = [*records(), user_record(SAID, "p-new-turn", uuid="u-x"), assistant_record("Noted.", uuid="a-x")]
    (project / f"{SESSION}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    now = clock.now()
    Backfill("claude-code", home, since=0, project=None, dry_run=False, now=now, env={"HOME": str(user)}).run()
    with Store.open(home) as store:
        sid, created = store.conn.execute(
            "SELECT id, created_at FROM sources WHERE source_type = 'user_statement'"
        ).fetchone()
        store.conn.execute("UPDATE sources SET next_due_at = ? WHERE id = ?", (now, sid))  # due now, for the test
    model.enqueue(Reply.of_claims([CLAIM]))
    outcome = consolidate_source(settings(), sid, forced=True)
    assert outcome.error_code is None, outcome
    with Store.open(home) as store:
        (body,) = store.conn.execute("SELECT body FROM memories WHERE status = 'active'").fetchone()
    claim = json.loads(body)
    assert claim["evidence"]["source_id"] == sid
    assert abs(claim["evidence"]["at"] - float(created)) < 1e-3 and created < now - 86_400, (claim, created, now)
