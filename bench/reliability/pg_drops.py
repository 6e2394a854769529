"""PostgreSQL connections dropped under load: every server connection of memevo's processes
ended (``pg_terminate_backend``), again and again, while hooks capture and workers consolidate.

    python -m bench.reliability.pg_drops --database-url postgresql://… [--drops 6]
        [--producers 3] [--captures 60]

What a server restart, a failover or a proxy does to every client at once. Producer
processes capture through `memevo serve` (its pooled connections), two consumers consolidate
(their queue connections, ``PostgresHuey``'s, and each attempt's store connection); ``drops``
times, at random moments, every server backend whose client is one of those processes is
terminated. The backends are found by their client's port, read from ``/proc`` for the
processes this check started, so nothing else on the server is touched.

A capture whose connection dropped is kept in the spool and delivered; an attempt whose
connection dropped is recorded as ``interrupted`` and forced afterwards with `memevo evolve`,
as a person would; huey reconnects by itself (it logs each dropped connection, and a nudge
it was dequeuing or scheduling on it is lost: recovery finds those sources, the periodic one
within a minute or two; once the queue is drained the check restarts the consumers so
start-up recovery does it at once). Figures:
every turn stored exactly once, each source done with exactly one claim and one apply event,
no hook error, no traceback but those of the dropped connections, the spool empty.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.reliability.harness import (
    Place,
    applies_per_source,
    claims_per_source,
    consumers,
    force_attempts,
    gateway,
    integrity,
    logged_tracebacks,
    new_place,
    print_figures,
    source_states,
    spool_delivered,
    wait_until,
)
from bench.reliability.producers import finish_producers, start_producers, turns_per_session

PAUSE_S = 0.05  # between a producer's turns, so the captures span the drops
ATTEMPT_SECONDS = 5  # a lease left by an attempt that could not record its end expires soon
# What a dropped connection says, in the logs of the processes that had one.
DROPPED = (
    "AdminShutdown",
    "terminating connection",
    "the connection is closed",
    "the connection is lost",
    "server closed the connection",
)


def group_pids(pgids: set[int]) -> list[int]:
    """Every process in the process groups ``pgids`` (consumers and their workers, serve)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) in pgids:  # the field after state and parent: the process group
            found.append(int(entry))
    return found


def client_ports(pids: list[int], server_port: int) -> list[int]:
    """The local TCP ports of the connections ``pids`` hold open to the database server's
    ``server_port``. Only those: a port of one of their other sockets (a listening one, a
    connection to the model) may at the same moment be another process's local port towards
    the database (the kernel shares a local port between connections to different places),
    and that process's backend must not be ended (another test's, on a shared server)."""
    inodes = set()
    for pid in pids:
        try:
            descriptors = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in descriptors:
            try:
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if link.startswith("socket:["):
                inodes.add(link[8:-1])
    ports = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table, encoding="ascii") as handle:
            for line in handle.read().splitlines()[1:]:
                parts = line.split()
                if parts[9] in inodes and int(parts[2].rsplit(":", 1)[1], 16) == server_port:
                    ports.append(int(parts[1].rsplit(":", 1)[1], 16))
    return ports


def drop_connections(place: Place, pgids: set[int]) -> int:
    """Terminate every server backend whose client is in the process groups ``pgids``."""
    from urllib.parse import urlsplit

    import psycopg

    ports = client_ports(group_pids(pgids), urlsplit(place.database_url).port or 5432)
    if not ports:
        return 0
    with psycopg.connect(place.database_url, autocommit=True) as monitor:
        rows = monitor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE client_addr IS NOT NULL AND client_port = ANY(%s) AND pid <> pg_backend_pid()",
            (ports,),
        ).fetchall()
    return sum(1 for (ended,) in rows if ended)


def _idle(place: Place) -> bool:
    """No nudge waits in the queue and no lease is live (an expired one is recovery's)."""
    queued = place.query("SELECT COUNT(*) FROM memevo_huey_task")[0][0]
    live = place.query("SELECT COUNT(*) FROM sources WHERE state = 'leased' AND lease_expires_at > ?", (time.time(),))
    return queued == 0 and live[0][0] == 0


def _log(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""


def run(
    drops: int = 4,
    producers: int = 2,
    captures: int = 30,
    *,
    seed: int = 5,
    database_url: str,
    workdir: Path | None = None,
) -> dict[str, Any]:
    """Run the check; raises AssertionError when a turn or a claim was lost or doubled."""
    from tests.support.fake_model import FakeModelProcess

    rng = random.Random(seed)
    expected = producers * captures
    with tempfile.TemporaryDirectory(prefix="memevo-pg-drops-", dir=workdir) as tmp:
        root = Path(tmp)
        serve_log = root / "serve.log"
        with (
            new_place(root / "home", database_url) as place,
            gateway(place, serve_log) as server,
            FakeModelProcess(root, default_delay=0.05) as model,
        ):
            assert server is not None and server.process is not None
            started = time.monotonic()
            env = place.env(
                MEMEVO_MODEL_URL=model.base_url,
                MEMEVO_MODEL="fake",
                MEMEVO_ATTEMPT_SECONDS=str(ATTEMPT_SECONDS),
                MEMEVO_FIRST_CALL_SECONDS=str(ATTEMPT_SECONDS),  # a first call's lease is as short
                MEMEVO_LEASE_GRACE_SECONDS="1",
            )
            with consumers(place, env, root, 2, 1) as running:
                procs = start_producers(env, "d", producers, captures, pause=PAUSE_S, port=3000)
                dropped: list[int] = []
                wait_until(lambda: turns_per_session(place), 60, "the first capture")
                for _ in range(drops):
                    time.sleep(rng.uniform(0.2, 0.7))
                    pgids = {server.process.pid, *(c.process.pid for c in running if c.process is not None)}
                    pgids |= {p.pid for p in procs if p.poll() is None}
                    dropped.append(drop_connections(place, pgids))
                hook_errors = [
                    line
                    for errors, err in finish_producers(procs, 300)
                    if errors
                    for line in err.splitlines()
                    if line.strip()
                ]
                wait_until(lambda: spool_delivered(place), 60, "the spool to be delivered", every=0.5)
                # A nudge a dropped connection lost (huey's own dequeue or schedule failed) is
                # found by recovery: the periodic one within a minute, start-up's at once.
                phases = {"delivered": round(time.monotonic() - started, 1)}
                # Once the queue is drained and no live lease is left, whatever is still
                # pending lost its nudge: restart the consumers, whose start-up recovery
                # nudges it (and records a lease that expired) at once.
                wait_until(lambda: _idle(place), 120, "the queue to drain", every=0.25)
                phases["drained"] = round(time.monotonic() - started, 1)
                states_at_restart = source_states(place)
                for consumer in running:
                    consumer.kill(signal.SIGTERM)
                    consumer.start()
                wait_until(
                    lambda: (
                        place.query(
                            "SELECT COUNT(*) FROM sources WHERE state = 'done' "
                            "OR (state = 'pending' AND consecutive_failures > 0)"
                        )[0][0]
                        == expected
                    ),
                    120,
                    "every source done or waiting for its retry",
                )
                phases["settled"] = round(time.monotonic() - started, 1)
                waiting = [sid for (sid,) in place.query("SELECT id FROM sources WHERE state != 'done'")]
                forced = force_attempts(env, waiting)
                phases["forced"] = round(time.monotonic() - started, 1)
                wait_until(lambda: source_states(place).get("done", 0) == expected, 120, "every source done")
            sessions = turns_per_session(place)
            per_source = claims_per_source(place)
            applies = applies_per_source(place)
            sources = [sid for (sid,) in place.query("SELECT id FROM sources")]
            logs = [*sorted(root.glob("consumer-*.log")), serve_log, *sorted((place.home / "logs").glob("*.log"))]
            tracebacks = logged_tracebacks(logs)
            checked = integrity(place)
            figures = {
                "backend": place.backend,
                "drops": drops,
                "backends_ended": dropped,
                "turns": expected,
                "hook_errors": len(hook_errors),
                "kept_in_spool": _log(place.home / "logs" / "hooks.log").count("spool"),
                "sources": sum(sessions.values()),
                "lost": expected - len(sessions),
                "stored_twice": sum(1 for count in sessions.values() if count > 1),
                "interrupted_then_forced": len(forced),
                "claims": sum(per_source.values()),
                "model_requests": model.request_count(),
                "dropped_connection_tracebacks": sum(1 for t in tracebacks if any(d in t for d in DROPPED)),
                "other_tracebacks": [t for t in tracebacks if not any(d in t for d in DROPPED)],
                "integrity": checked,
                "states_at_restart": states_at_restart,
                "phases": phases,
                "seconds": round(time.monotonic() - started, 1),
            }
    assert not hook_errors, hook_errors[:5]
    assert figures["lost"] == 0 and figures["stored_twice"] == 0 and figures["sources"] == expected, figures
    assert all(per_source.get(sid) == 1 and applies.get(sid) == 1 for sid in sources), figures
    assert all(status == "done" or " is done;" in status for status in forced), (forced, figures)
    assert sum(dropped) >= drops and not figures["other_tracebacks"] and checked["ok"], figures
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True, help="a PostgreSQL database; the check uses a fresh schema")
    parser.add_argument("--drops", type=int, default=6)
    parser.add_argument("--producers", type=int, default=3)
    parser.add_argument("--captures", type=int, default=60)
    args = parser.parse_args()
    print_figures("pg_drops", run(args.drops, args.producers, args.captures, database_url=args.database_url))


if __name__ == "__main__":
    main()
