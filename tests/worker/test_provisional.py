"""Model-derived claims are marked provisional (from their evidence method) in digest rows,
`memevo list` and `memevo show`; local, manual and user-confirmed claims are not."""

from __future__ import annotations

import json
from pathlib import Path

from memory_core.recall.digest import MAX_CLAIMS, MAX_DIGEST_BYTES, DigestRow, render_digest
from memory_core.recall.service import recall
from memory_core.records import Evidence
from memory_core.store.engines.database import Store
from tests.factories import make_memory, seed

T0 = 1_700_000_000.0


def model_evidence(basis: str = "user_statement") -> Evidence:
    return Evidence(basis=basis, method="model", source_id="m" * 24, at=T0)  # type: ignore[arg-type]


def row(n: int, content: str, evidence: str) -> DigestRow:
    return DigestRow(
        memory_id=f"{n:024x}",
        kind="fact",
        status="active",
        origin="/" + "o" * 300,
        source_id="s" * 24,
        updated="2023-11-14",
        evidence=evidence,
        freshness=0.5,
        dormant=True,
        accuracy="accurate",
        content=content,
        matched=(),
    )


def test_digest_rows_mark_model_claims_provisional(home: Path) -> None:
    inferred = make_memory("The api service deploys with fly deploy", evidence=model_evidence())
    corrected = make_memory(
        "The api service deploys with make release",
        kind="decision",
        evidence=Evidence(basis="manual_correction", method="manual", source_id="c" * 24, at=T0),
    )
    with Store.open(home) as store:
        seed(store, inferred, corrected)
        result = recall(store.conn, "how does the api service deploy", now=T0 + 60)
    rows = {r["id"]: r for r in (json.loads(line) for line in result.digest.splitlines()[2:-1])}
    assert rows[inferred.id]["provisional"] is True and rows[inferred.id]["evidence"] == "user_statement/model"
    assert "provisional" not in rows[corrected.id]


def test_the_marker_keeps_the_digest_within_its_bounds() -> None:
    rows = [row(n, "数据库 " * 600 + str(n), "summary/model") for n in range(5)]
    text, count = render_digest(rows)
    assert len(text.encode("utf-8")) <= MAX_DIGEST_BYTES and 1 <= count <= MAX_CLAIMS
    assert all(json.loads(line)["provisional"] is True for line in text.splitlines()[2:-1])


def test_list_and_show_mark_provisional_claims(home: Path, cli_run) -> None:
    inferred = make_memory("The api service deploys with fly deploy", evidence=model_evidence("summary"))
    local = make_memory("The api service listens on port 8080")
    with Store.open(home) as store:
        seed(store, inferred, local)
    listed = {m["id"]: m for m in json.loads(cli_run("list", "--json").output)["memories"]}
    assert listed[inferred.id]["provisional"] is True and listed[local.id]["provisional"] is False
    text = cli_run("list").output
    [inferred_line] = [line for line in text.splitlines() if line.startswith(inferred.id)]
    [local_line] = [line for line in text.splitlines() if line.startswith(local.id)]
    assert "~ The api service deploys" in inferred_line and "~ " not in local_line
    assert "~ provisional: inferred by a model" in text
    shown = json.loads(cli_run("show", inferred.id, "--json").output)
    assert shown["provisional"] is True
    assert "provisional: inferred by a model" in cli_run("show", inferred.id).output
    assert "provisional" not in cli_run("show", local.id).output
