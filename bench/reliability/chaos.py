"""Chaos: SIGKILL a worker's whole process group at random moments while it consolidates.

    python -m bench.reliability.chaos [--kills 20] [--consolidations 120] [--seed 7]
        [--consumers 1] [--database-url postgresql://…]

``consolidations`` summaries are captured through the hook entry, real consumers (on
PostgreSQL, two: two machines sharing the queue) with process workers consolidate them
against the loopback model (each answer delayed, so kills land mid-request as well as
between applies and inside them), and one consumer's process group is killed ``kills``
times, each at a random moment after a request arrived, then restarted at once. Afterwards
the killed attempts' leases expire, start-up recovery records them as ``interrupted``, and
what still waits for its retry is forced with `memevo evolve`, as a person would. Figures:
every source done (0 lost), each with exactly one claim and one apply event (0 applied
twice), row integrity ok; on SQLite its own integrity check, on PostgreSQL no backend left
holding the write lock.
"""

from __future__ import annotations

import argparse
import json
import random
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
    new_place,
    print_figures,
    source_states,
    wait_until,
)

MODEL_DELAY = 0.15
ATTEMPT_SECONDS = 2
LEASE_GRACE = 1


def capture(place: Place, count: int) -> list[str]:
    """``count`` distinct summaries through the hook's entry function in this process (on
    PostgreSQL too: capturing is not what this check tries); their source ids."""
    from cli.hooks.entry import run_hook

    with place.active():
        for i in range(count):
            payload = {
                "schema": "memevo.hook/v1",
                "event": "compaction",
                "session_id": f"chaos-{i}",
                "cwd": "/tmp",
                "summary": f"Chaos item {i}: service c{i} runs on port {20000 + i}",
            }
            result = run_hook(json.dumps(payload).encode(), "compaction", None)
            assert result == ("", ""), result
    return [sid for (sid,) in place.query("SELECT id FROM sources ORDER BY created_at")]


def settled(place: Place) -> int:
    """Sources done or waiting for a retry after a failure (nothing leased or fresh)."""
    return place.query(
        "SELECT COUNT(*) FROM sources WHERE state = 'done' OR (state = 'pending' AND consecutive_failures > 0)"
    )[0][0]


def run(
    kills: int = 5,
    consolidations: int = 30,
    *,
    seed: int = 7,
    consumers: int = 1,
    workers: int = 2,
    database_url: str | None = None,
    queue_url: str | None = None,
    workdir: Path | None = None,
) -> dict[str, Any]:
    """Run the chaos check; raises AssertionError when anything was lost or applied twice."""
    from tests.support.fake_model import FakeModelProcess

    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="memevo-chaos-", dir=workdir) as tmp:
        root = Path(tmp)
        with new_place(root / "home", database_url, queue_url) as place:
            started = time.monotonic()
            with FakeModelProcess(root, default_delay=MODEL_DELAY) as model:
                env = place.env(
                    MEMEVO_MODEL_URL=model.base_url,
                    MEMEVO_MODEL="fake",
                    MEMEVO_ATTEMPT_SECONDS=str(ATTEMPT_SECONDS),
                    MEMEVO_FIRST_CALL_SECONDS=str(ATTEMPT_SECONDS),  # a first call's lease is as short
                    MEMEVO_LEASE_GRACE_SECONDS=str(LEASE_GRACE),
                )
                sources = capture(place, consolidations)
                assert len(sources) == consolidations
                in_flight_at_kill: list[int] = []
                phases: dict[str, float] = {"captured": round(time.monotonic() - started, 1)}
                done_at_kill: list[int] = []
                logs = [root / f"consumer-{n}.log" for n in range(consumers)]
                running = [Consumer(env, log, workers=workers).start() for log in logs]
                try:
                    for round_ in range(kills):
                        seen = model.request_count()

                        def asked_or_all_done(seen: int = seen) -> bool:
                            return model.request_count() > seen or source_states(place).get("done", 0) == consolidations

                        # Wait for a request after the (re)start, then kill one consumer at a
                        # random moment of it or of the apply that follows; stop early if
                        # everything is done.
                        wait_until(asked_or_all_done, 60, "a model request")
                        time.sleep(rng.uniform(0.0, 2 * MODEL_DELAY))
                        victim = rng.randrange(consumers)
                        running[victim].kill(signal.SIGKILL)
                        states = source_states(place)
                        in_flight_at_kill.append(states.get("leased", 0))
                        done_at_kill.append(states.get("done", 0))
                        if round_ < kills - 1:
                            running[victim] = Consumer(env, logs[victim], workers=workers).start()
                    for consumer in running:
                        consumer.kill(signal.SIGKILL)
                    # Let the leases of killed attempts expire, then restart: start-up recovery
                    # records them as interrupted (a failure with a one-minute backoff).
                    time.sleep(ATTEMPT_SECONDS + LEASE_GRACE + 0.5)
                    running = [Consumer(env, log, workers=workers).start() for log in logs]
                    phases["kills"] = round(time.monotonic() - started, 1)
                    wait_until(lambda: settled(place) == consolidations, 120, "the fresh attempts to finish")
                    phases["settled"] = round(time.monotonic() - started, 1)
                    waiting = [sid for (sid,) in place.query("SELECT id FROM sources WHERE state != 'done'")]
                    forced = force_attempts(env, waiting)
                    wait_until(lambda: source_states(place).get("done", 0) == consolidations, 120, "every source done")
                    phases["forced"] = round(time.monotonic() - started, 1)
                finally:
                    for consumer in running:
                        consumer.kill(signal.SIGTERM)
                requests = model.request_count()
            per_source = claims_per_source(place)
            applies = applies_per_source(place)
            interrupted = place.query("SELECT COUNT(*) FROM sources WHERE attempt > 1")[0][0]
            checked = integrity(place)
            figures = {
                "backend": place.backend,
                "queue": place.queue,
                "consumers": consumers,
                "kills": kills,
                "consolidations": consolidations,
                "leased_at_kills": in_flight_at_kill,
                "done_at_kills": done_at_kill,
                "model_requests": requests,
                "sources_retried": interrupted,
                "forced_after_kills": len(forced),
                "done": source_states(place).get("done", 0),
                "lost": consolidations - sum(1 for sid in sources if per_source.get(sid, 0) >= 1),
                "applied_twice": sum(1 for sid in sources if per_source.get(sid, 0) > 1 or applies.get(sid, 0) > 1),
                "integrity": checked,
                "seconds": round(time.monotonic() - started, 1),
                "phases": phases,
            }
    assert figures["done"] == consolidations, figures
    assert figures["lost"] == 0 and figures["applied_twice"] == 0, figures
    assert all(per_source.get(sid) == 1 for sid in sources), figures
    assert checked["ok"], figures
    # A forced source may have been finished by its scheduled retry a moment before.
    assert all(status == "done" or " is done;" in status for status in forced), (forced, figures)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--consolidations", type=int, default=120)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--consumers", type=int, default=1)
    parser.add_argument("--database-url", default=None, help="run on PostgreSQL, in a fresh schema of this database")
    parser.add_argument("--queue-url", default=None, help="with --database-url: a Redis queue (redis://…), flushed")
    args = parser.parse_args()
    figures = run(
        args.kills,
        args.consolidations,
        seed=args.seed,
        consumers=args.consumers,
        database_url=args.database_url,
        queue_url=args.queue_url,
    )
    print_figures("chaos", figures)


if __name__ == "__main__":
    main()
