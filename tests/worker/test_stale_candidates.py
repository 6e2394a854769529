"""A claim the checkout has outgrown is offered to the model as a candidate to retire when a
new source of its project arrives; the model may replace it; a file that came back, or a
checkout not on this machine, offers nothing. The real store, a real git checkout and a
loopback model."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from memory_core import clock
from memory_core.recall.stale_record import remember_stale
from memory_core.store.engines.database import Store
from memory_core.store.tables.memories import get_memory
from tests.factories import make_memory, seed
from tests.support.fake_model import FakeModelServer, Reply
from tests.worker.conftest import capture, settings
from workers.consolidate import consolidate_source

DEPLOY = "Deploy with `scripts/deploy.sh` from a clean checkout."
NEWER = "Deploy with `make ship` from a clean checkout."


def checkout(tmp_path: Path) -> Path:
    repo = tmp_path / "shop"
    (repo / "scripts").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=30)
    return repo


def candidates_of(request: dict) -> list[dict]:
    text = request["messages"][1]["content"]
    return [json.loads(line) for line in text.splitlines() if line.startswith('{"id"')]


def test_a_stale_claim_is_offered_and_may_be_replaced(home: Path, model: FakeModelServer, tmp_path: Path) -> None:
    repo = checkout(tmp_path)
    origin = str(repo.resolve())
    stale = make_memory(DEPLOY, origin=origin, kind="decision", at=clock.now() - 86_400)
    with Store.open(home) as store:
        seed(store, stale)
    remember_stale(home, [(stale.id, origin, ["scripts/deploy.sh"])], origin, clock.now())
    # The new source does not mention the claim: only the stale note brings it in.
    sid = capture(home, "Shipping now goes through the release tooling of the team.", origin=origin)
    model.enqueue(Reply.of_claims([{"kind": "decision", "content": NEWER, "replaces": stale.id}]))

    assert consolidate_source(settings(), sid).status == "done"

    [offered] = candidates_of(model.requests[0])
    assert offered["id"] == stale.id and offered["stale"] == "scripts/deploy.sh no longer exists in the checkout"
    assert 'marked "stale"' in model.requests[0]["messages"][0]["content"]
    with Store.open(home) as store:
        old = get_memory(store.conn, stale.id)
    assert old is not None and old.status == "superseded"


def test_nothing_is_offered_when_the_file_is_back_or_the_checkout_is_elsewhere(
    home: Path, model: FakeModelServer, tmp_path: Path
) -> None:
    repo = checkout(tmp_path)
    origin = str(repo.resolve())
    (repo / "scripts" / "deploy.sh").write_text("#!/bin/sh\n", encoding="utf-8")
    back = make_memory(DEPLOY, origin=origin, kind="decision", at=clock.now() - 86_400)
    gone = make_memory("Build docs with `docs/build.py`.", origin="/srv/elsewhere", kind="decision")
    with Store.open(home) as store:
        seed(store, back, gone)
    remember_stale(home, [(back.id, origin, ["scripts/deploy.sh"])], origin, clock.now())
    remember_stale(home, [(gone.id, "/srv/elsewhere", ["docs/build.py"])], "/srv/elsewhere", clock.now())
    sid = capture(home, "Shipping now goes through the release tooling of the team.", origin=origin)
    model.enqueue(Reply(content='{"claims": []}'))

    assert consolidate_source(settings(), sid).status == "done"
    assert candidates_of(model.requests[0]) == []
