"""Concurrency: producer processes capture as hooks do while worker processes consolidate;
every count must come out exact.

    python -m bench.reliability.concurrency [--producers 8] [--captures 250] [--consumers 1]
        [--workers 2] [--database-url postgresql://…]

Each producer is its own interpreter making ``captures`` hook calls for distinct turns with
an explicit cue, plus a second time for every tenth one (a re-sent turn, captured once),
each call what `memevo hook turn_end` does with its stdin (:func:`harness.hook_call`): on
SQLite in the producer itself, on PostgreSQL through `memevo serve`, started here. Consumers
with process workers run throughout (on PostgreSQL, several consumers stand for several
machines sharing the queue). Figures: sources = producers x captures, all done, one claim,
one lease and one model request per source, no hook errors, no traceback, integrity ok.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.reliability.harness import (
    claims_per_source,
    consumers,
    gateway,
    integrity,
    logged_tracebacks,
    new_place,
    print_figures,
    source_states,
    wait_until,
)
from bench.reliability.producers import finish_producers, start_producers


def run(
    producers: int = 4,
    captures: int = 25,
    workers: int = 2,
    *,
    consumer_count: int = 1,
    database_url: str | None = None,
    queue_url: str | None = None,
    workdir: Path | None = None,
) -> dict[str, Any]:
    """Run the concurrency check; raises AssertionError when a count is off."""
    from tests.support.fake_model import FakeModelProcess

    expected = producers * captures
    with tempfile.TemporaryDirectory(prefix="memevo-concurrency-", dir=workdir) as tmp:
        root = Path(tmp)
        with new_place(root / "home", database_url, queue_url) as place, gateway(place, root / "serve.log"):
            started = time.monotonic()
            with FakeModelProcess(root) as model:
                env = place.env(MEMEVO_MODEL_URL=model.base_url, MEMEVO_MODEL="fake")
                with consumers(place, env, root, consumer_count, workers):
                    procs = start_producers(env, "p", producers, captures)
                    hook_errors = 0
                    for errors, err in finish_producers(procs, 600):
                        hook_errors += errors
                        assert not err.strip() or hook_errors, err[-2000:]
                    captured_at = round(time.monotonic() - started, 1)
                    wait_until(
                        lambda: source_states(place).get("done", 0) >= expected, 600, "every source done", every=0.25
                    )
                    time.sleep(1.0)  # a duplicate nudge would show up as an extra request
                requests = model.request_count()
            per_source = claims_per_source(place)
            leases = dict(place.query("SELECT id, attempt + consecutive_failures FROM sources"))
            sources = list(leases)
            checked = integrity(place)
            seconds = time.monotonic() - started
            figures = {
                "backend": place.backend,
                "queue": place.queue,
                "producers": producers,
                "captures_each": captures,
                "consumers": consumer_count,
                "workers_each": workers,
                "hook_calls": expected + producers * len(range(0, captures, 10)),
                "hook_errors": hook_errors,
                "sources": len(sources),
                "done": source_states(place).get("done", 0),
                "claims": sum(per_source.values()),
                "model_requests": requests,
                # a lease race lost, a failure or a second attempt would each show here
                "sources_leased_more_than_once": sum(1 for n in leases.values() if n != 1),
                "integrity": checked,
                "tracebacks": logged_tracebacks(sorted(root.glob("*.log"))),
                "captured_after_s": captured_at,
                "seconds": round(seconds, 1),
                "consolidations_per_s": round(expected / seconds, 1),
            }
    assert figures["hook_errors"] == 0, figures
    assert figures["sources"] == figures["done"] == figures["claims"] == figures["model_requests"] == expected, figures
    assert all(per_source.get(sid) == 1 for sid in sources), figures
    assert figures["sources_leased_more_than_once"] == 0, figures
    assert checked["ok"] and not figures["tracebacks"], figures
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--producers", type=int, default=8)
    parser.add_argument("--captures", type=int, default=250)
    parser.add_argument("--consumers", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--database-url", default=None, help="run on PostgreSQL, in a fresh schema of this database")
    parser.add_argument("--queue-url", default=None, help="with --database-url: a Redis queue (redis://…), flushed")
    args = parser.parse_args()
    figures = run(
        args.producers,
        args.captures,
        args.workers,
        consumer_count=args.consumers,
        database_url=args.database_url,
        queue_url=args.queue_url,
    )
    print_figures("concurrency", figures)


if __name__ == "__main__":
    main()
