"""Chaos: SIGKILL the worker's whole process group at random moments while it consolidates.

    python -m bench.reliability.chaos [--kills 20] [--consolidations 120] [--seed 7]

``consolidations`` summaries are captured through the hook entry, a real consumer with two
process workers consolidates them against the loopback model (each answer delayed, so kills
land mid-request as well as between applies), and the consumer's process group is killed
``kills`` times, each at a random moment after a request arrived, then restarted at once.
Afterwards the killed attempts' leases expire, start-up recovery records them as
``interrupted``, and what still waits for its retry is forced with `memevo evolve`, as a
person would. Figures: every source done (0 lost), each with exactly one claim and one
apply event (0 applied twice), SQLite and row integrity ok.
"""

from __future__ import annotations

import argparse
import random
import signal
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.reliability.harness import (
    Consumer,
    claims_per_source,
    force_attempts,
    integrity,
    memevo_env,
    print_figures,
    query,
    source_states,
    state_home,
    wait_until,
)

MODEL_DELAY = 0.15
ATTEMPT_SECONDS = 2
LEASE_GRACE = 1


def capture(home: Path, count: int) -> list[str]:
    """``count`` distinct summaries through the hook's entry function; their source ids."""
    import json

    from cli.hooks.entry import run_hook

    with state_home(home):
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
    return [sid for (sid,) in query(home, "SELECT id FROM sources ORDER BY created_at")]


def settled(home: Path) -> int:
    """Sources done or waiting for a retry after a failure (nothing leased or fresh)."""
    return query(
        home, "SELECT COUNT(*) FROM sources WHERE state = 'done' OR (state = 'pending' AND consecutive_failures > 0)"
    )[0][0]


def run(kills: int = 5, consolidations: int = 30, *, seed: int = 7, workdir: Path | None = None) -> dict[str, Any]:
    """Run the chaos check; raises AssertionError when anything was lost or applied twice."""
    from tests.support.fake_model import FakeModelProcess

    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="memevo-chaos-", dir=workdir) as tmp:
        root = Path(tmp)
        home = root / "home"
        started = time.monotonic()
        with FakeModelProcess(root, default_delay=MODEL_DELAY) as model:
            env = memevo_env(
                home,
                MEMEVO_MODEL_URL=model.base_url,
                MEMEVO_MODEL="fake",
                MEMEVO_ATTEMPT_SECONDS=str(ATTEMPT_SECONDS),
                MEMEVO_LEASE_GRACE_SECONDS=str(LEASE_GRACE),
            )
            sources = capture(home, consolidations)
            assert len(sources) == consolidations
            in_flight_at_kill: list[int] = []
            phases: dict[str, float] = {"captured": round(time.monotonic() - started, 1)}
            done_at_kill: list[int] = []
            consumer = Consumer(env, root / "consumer.log").start()
            try:
                for round_ in range(kills):
                    seen = model.request_count()
                    # Wait for a request after the (re)start, then kill at a random moment of it
                    # or of the apply that follows; stop early if everything is done.
                    wait_until(
                        lambda seen=seen: (
                            model.request_count() > seen or source_states(home).get("done", 0) == consolidations
                        ),
                        60,
                        "a model request",
                    )
                    time.sleep(rng.uniform(0.0, 2 * MODEL_DELAY))
                    consumer.kill(signal.SIGKILL)
                    states = source_states(home)
                    in_flight_at_kill.append(states.get("leased", 0))
                    done_at_kill.append(states.get("done", 0))
                    if round_ < kills - 1:
                        consumer = Consumer(env, root / "consumer.log").start()
                # Let the leases of killed attempts expire, then restart: start-up recovery
                # records them as interrupted (a failure with a one-minute backoff).
                time.sleep(ATTEMPT_SECONDS + LEASE_GRACE + 0.5)
                consumer = Consumer(env, root / "consumer.log").start()
                phases["kills"] = round(time.monotonic() - started, 1)
                wait_until(lambda: settled(home) == consolidations, 120, "the fresh attempts to finish")
                phases["settled"] = round(time.monotonic() - started, 1)
                waiting = [sid for (sid,) in query(home, "SELECT id FROM sources WHERE state != 'done'")]
                forced = force_attempts(env, waiting)
                wait_until(lambda: source_states(home).get("done", 0) == consolidations, 120, "every source done")
                phases["forced"] = round(time.monotonic() - started, 1)
            finally:
                consumer.kill(signal.SIGTERM)
            requests = model.request_count()
        per_source = claims_per_source(home)
        applies = dict(
            query(home, "SELECT source_id, COUNT(*) FROM events WHERE operation = 'consolidate' GROUP BY source_id")
        )
        interrupted = query(home, "SELECT COUNT(*) FROM sources WHERE attempt > 1")[0][0]
        checked = integrity(home)
        figures = {
            "kills": kills,
            "consolidations": consolidations,
            "leased_at_kills": in_flight_at_kill,
            "done_at_kills": done_at_kill,
            "model_requests": requests,
            "sources_retried": interrupted,
            "forced_after_kills": len(forced),
            "done": source_states(home).get("done", 0),
            "lost": consolidations - sum(1 for sid in sources if per_source.get(sid, 0) >= 1),
            "applied_twice": sum(1 for sid in sources if per_source.get(sid, 0) > 1 or applies.get(sid, 0) > 1),
            "integrity": checked,
            "seconds": round(time.monotonic() - started, 1),
            "phases": phases,
        }
    assert figures["done"] == consolidations, figures
    assert figures["lost"] == 0 and figures["applied_twice"] == 0, figures
    assert all(per_source.get(sid) == 1 for sid in sources), figures
    assert checked["sqlite"] and checked["rows_ok"], figures
    # A forced source may have been finished by its scheduled retry a moment before.
    assert all(status == "done" or " is done;" in status for status in forced), (forced, figures)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--consolidations", type=int, default=120)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    print_figures("chaos", run(args.kills, args.consolidations, seed=args.seed))


if __name__ == "__main__":
    main()
