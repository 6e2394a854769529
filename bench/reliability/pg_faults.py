"""PostgreSQL faults in the middle of an apply: the worker killed with SIGKILL, or its server
connection dropped (``pg_terminate_backend``), while its transaction holds uncommitted writes.

    python -m bench.reliability.pg_faults --database-url postgresql://… [--only kill,terminate]

One summary is captured, a real consumer (one process worker) leases it and asks the
loopback model (its first answer delayed); while the model thinks, this check locks the source's
row (``SELECT … FOR UPDATE`` in a transaction of its own). The worker's apply transaction
then writes the claims, the history and the index and stops at its last statement, the
``UPDATE sources`` that completes the job, waiting for that row: the moment is known, and
``pg_stat_activity`` shows it (the backend waits on this check's lock and holds a
transaction id, so it has written). Then:

* ``kill``: the consumer's process group is killed (SIGKILL), the row released. Nothing of
  the transaction may be visible, no backend may keep the write lock, the source stays
  leased until its lease expires; the restarted consumer's start-up recovery records the
  attempt as ``interrupted`` and a forced attempt completes it with one claim.
* ``terminate``: the worker's server backend is ended with ``pg_terminate_backend``, the row
  released. The consumer keeps running; nothing of the transaction may be visible; the
  attempt is recorded as an ``interrupted`` failure on a fresh connection, and a forced
  attempt completes it with one claim.

Figures per fault: what the backend was doing when it was hit, the source's state after,
claims and apply events (each exactly one at the end), model calls (two: the one lost and
the one that counted).
"""

from __future__ import annotations

import argparse
import json
import signal
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.reliability.harness import (
    Consumer,
    Place,
    applies_per_source,
    claims_per_source,
    force_attempts,
    integrity,
    logged_tracebacks,
    new_place,
    print_figures,
    wait_until,
)
from bench.reliability.stores import write_lock_holders

FAULTS = ("kill", "terminate")
FIRST_ANSWER_DELAY = 3.0  # long enough to lock the row after the first request arrives, under load
ATTEMPT_SECONDS = 8  # well past the first answer's delay even under load: the fault, not a timeout, ends the attempt
LEASE_GRACE = 1


def _capture(place: Place) -> str:
    from cli.hooks.entry import run_hook

    payload = {
        "schema": "memevo.hook/v1",
        "event": "compaction",
        "session_id": "fault",
        "cwd": "/tmp",
        "summary": "Fault item: the billing service runs on port 7443 behind the staging proxy",
    }
    with place.active():
        result = run_hook(json.dumps(payload).encode(), "compaction", None)
    assert result == ("", ""), result
    return str(place.query("SELECT id FROM sources")[0][0])


def _source(place: Place, source_id: str) -> dict[str, Any]:
    state, attempt, failures, code = place.query(
        "SELECT state, attempt, consecutive_failures, last_error_code FROM sources WHERE id = ?", (source_id,)
    )[0]
    return {"state": state, "attempt": attempt, "failures": failures, "code": code}


def _blocked_by(monitor: Any, holder_pid: int) -> dict[str, Any] | None:
    """The backend waiting for ``holder_pid``'s lock: its pid, whether it holds a transaction
    id (it has written), and the statement it waits in."""
    row = monitor.execute(
        "SELECT pid, backend_xid IS NOT NULL, wait_event_type, query FROM pg_stat_activity "
        "WHERE %s = ANY(pg_blocking_pids(pid))",
        (holder_pid,),
    ).fetchone()
    if row is None:
        return None
    return {"pid": row[0], "has_written": row[1], "waits_on": row[2], "statement": " ".join(row[3].split())[:60]}


def _backend_alive(monitor: Any, pid: int) -> bool:
    return monitor.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone() is not None


def run_fault(fault: str, root: Path, database_url: str) -> dict[str, Any]:
    """One fault in a fresh schema; raises AssertionError when anything leaked or was lost."""
    import psycopg

    from tests.support.fake_model import FakeModelProcess, Reply

    assert fault in FAULTS, fault
    started = time.monotonic()
    with (
        new_place(root / "home", database_url) as place,
        FakeModelProcess(root, [Reply(delay=FIRST_ANSWER_DELAY)]) as model,
    ):
        env = place.env(
            MEMEVO_MODEL_URL=model.base_url,
            MEMEVO_MODEL="fake",
            MEMEVO_ATTEMPT_SECONDS=str(ATTEMPT_SECONDS),
            MEMEVO_FIRST_CALL_SECONDS=str(ATTEMPT_SECONDS),  # a first call's lease is as short
            MEMEVO_LEASE_GRACE_SECONDS=str(LEASE_GRACE),
        )
        source_id = _capture(place)
        log = root / "consumer.log"
        consumer = Consumer(env, log, workers=1).start()
        holder = psycopg.connect(place.database_url)  # a transaction of its own: not autocommit
        monitor = psycopg.connect(place.database_url, autocommit=True)
        try:
            wait_until(lambda: model.request_count() >= 1, 60, "the model request")
            holder.execute("SELECT 1 FROM sources WHERE id = %s FOR UPDATE", (source_id,))
            blocked = wait_until(
                lambda: _blocked_by(monitor, holder.info.backend_pid), 30, "the apply to reach the row"
            )
            hit: dict[str, Any] = dict(blocked or {})
            figures: dict[str, Any] = {"backend_when_hit": hit}
            if fault == "kill":
                consumer.kill(signal.SIGKILL)
            else:
                monitor.execute("SELECT pg_terminate_backend(%s)", (hit["pid"],))
            holder.rollback()
            # The server ends a killed client's backend once it reads the closed connection.
            wait_until(lambda: not _backend_alive(monitor, hit["pid"]), 30, "the hit backend to end")
            figures.update(
                {
                    "after_fault": _source(place, source_id),
                    "claims_after_fault": sum(claims_per_source(place).values()),
                    "applies_after_fault": sum(applies_per_source(place).values()),
                    # Nobody holds the write lock once the killed worker's backend ended; a
                    # consumer that survived its backend's termination may already hold it
                    # again, legitimately (recording the interruption, the retry), so there
                    # only the ended backend's is counted. No holder is left at the end
                    # either way (integrity, below).
                    "write_lock_held_after_fault": write_lock_holders(place, None if fault == "kill" else hit["pid"]),
                }
            )
            if fault == "kill":
                # The lease expires; the restarted consumer's start-up recovery records it.
                wait_until(
                    lambda: place.query("SELECT MAX(lease_expires_at) FROM sources")[0][0] < time.time(),
                    ATTEMPT_SECONDS + LEASE_GRACE + 5,
                    "the lease to expire",
                )
                consumer = Consumer(env, log, workers=1).start()
            else:
                figures["consumer_alive"] = consumer.alive
            wait_until(lambda: _source(place, source_id)["state"] == "pending", 30, "the failure to be recorded")
            figures["recorded"] = _source(place, source_id)
            figures["forced"] = force_attempts(env, [source_id])
            wait_until(lambda: _source(place, source_id)["state"] == "done", 60, "the forced attempt")
        except AssertionError as exc:
            tail = log.read_text(encoding="utf-8", errors="replace")[-3000:] if log.exists() else ""
            raise AssertionError(f"{fault}: {exc}; the consumer's log ends:\n{tail}") from None
        finally:
            holder.close()
            monitor.close()
            consumer.kill(signal.SIGTERM)
        figures.update(
            {
                "final": _source(place, source_id),
                "claims": claims_per_source(place).get(source_id, 0),
                "applies": applies_per_source(place).get(source_id, 0),
                "model_requests": model.request_count(),
                "integrity": integrity(place),
                "tracebacks": logged_tracebacks([log, *sorted((place.home / "logs").glob("*.log"))]),
                "seconds": round(time.monotonic() - started, 1),
            }
        )
    assert hit["has_written"] and hit["waits_on"] == "Lock" and hit["statement"].startswith("UPDATE sources"), figures
    assert figures["claims_after_fault"] == figures["applies_after_fault"] == 0, figures
    assert figures["after_fault"]["state"] == "leased" or fault == "terminate", figures
    assert figures["write_lock_held_after_fault"] == 0, figures
    assert figures["recorded"]["code"] == "interrupted" and figures["recorded"]["failures"] == 1, figures
    assert figures["forced"] == ["done"], figures
    assert figures["claims"] == figures["applies"] == 1 and figures["final"]["attempt"] == 2, figures
    assert figures["model_requests"] == 2 and figures["integrity"]["ok"], figures
    assert fault == "kill" or figures["consumer_alive"], figures
    return figures


def run(faults: tuple[str, ...] = FAULTS, *, database_url: str, workdir: Path | None = None) -> dict[str, Any]:
    """Every fault in ``faults``; their figures by name."""
    out: dict[str, Any] = {}
    for fault in faults:
        with tempfile.TemporaryDirectory(prefix=f"memevo-pg-{fault}-", dir=workdir) as tmp:
            out[fault] = run_fault(fault, Path(tmp), database_url)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True, help="a PostgreSQL database; each fault gets a fresh schema")
    parser.add_argument("--only", default=",".join(FAULTS))
    args = parser.parse_args()
    faults = tuple(name for name in args.only.split(",") if name)
    print_figures("pg_faults", run(faults, database_url=args.database_url))


if __name__ == "__main__":
    main()
