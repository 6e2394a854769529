"""Gateway chaos (PostgreSQL): `memevo serve` killed with SIGKILL while hooks capture through it.

    python -m bench.reliability.gateway_chaos --database-url postgresql://… [--kills 6]
        [--producers 3] [--captures 60] [--seed 11]

On a PostgreSQL machine every hook hands its payload to `memevo serve`. Producer processes
make hook calls (:func:`harness.hook_call`, what `memevo hook turn_end` does), each turn
with an explicit cue and every tenth one sent twice, paced so they span the run, while the
server's process group is killed ``kills`` times at random moments and restarted after a
short pause. A call that meets a dead or dying server spools its event (0600, in the state
dir); the restarted server delivers the spool; an event the server had stored just before
it died and the hook spooled anyway is delivered again and still stores one source. Figures:
every turn stored exactly once (0 lost, 0 twice), no hook error, the spool empty and
nothing set aside as corrupt, row integrity ok.
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

from bench.reliability.harness import integrity, new_place, print_figures, spool_delivered, wait_until
from bench.reliability.producers import finish_producers, start_producers, turns_per_session

PAUSE_S = 0.06  # between a producer's turns, so the captures span the kills
DOWN_S = 0.4  # how long the server stays dead before it is restarted


def run(
    kills: int = 4,
    producers: int = 2,
    captures: int = 40,
    *,
    seed: int = 11,
    database_url: str,
    workdir: Path | None = None,
) -> dict[str, Any]:
    """Run the gateway chaos check; raises AssertionError when a turn was lost or stored twice."""
    from cli.hooks import spool
    from memory_core.store.engines.database import Store
    from tests.support.memevo_serve import MemevoServe

    rng = random.Random(seed)
    expected = producers * captures
    with tempfile.TemporaryDirectory(prefix="memevo-gateway-chaos-", dir=workdir) as tmp:
        root = Path(tmp)
        with new_place(root / "home", database_url) as place:
            with place.active():
                Store.open(place.home).close()  # a machine set up for PostgreSQL
            env = place.env()
            started = time.monotonic()
            server = MemevoServe(env, log=root / "serve-0.log").__enter__()
            procs = start_producers(env, "g", producers, captures, pause=PAUSE_S, port=3000)
            stored_at_kills: list[int] = []
            try:
                wait_until(lambda: turns_per_session(place), 60, "the first capture")
                for n in range(kills):
                    time.sleep(rng.uniform(0.2, 0.8))
                    if server.process is not None:
                        os.killpg(server.process.pid, signal.SIGKILL)
                        server.process.wait(timeout=30)
                    stored_at_kills.append(sum(turns_per_session(place).values()))
                    time.sleep(DOWN_S)
                    server = MemevoServe(env, log=root / f"serve-{n + 1}.log").__enter__()
                hook_errors = sum(errors for errors, _ in finish_producers(procs, 300))
                produced_at = round(time.monotonic() - started, 1)
                # The running server delivers what was spooled (at start and then periodically).
                wait_until(lambda: spool_delivered(place), 60, "the spool to be delivered", every=0.5)
            finally:
                for proc in procs:
                    if proc.poll() is None:
                        proc.kill()
                server.stop()
            sessions = turns_per_session(place)
            hooks_log = place.home / "logs" / "hooks.log"
            log_text = hooks_log.read_text(encoding="utf-8", errors="replace") if hooks_log.exists() else ""
            corrupt = list((place.home / spool.SPOOL_DIR / spool.CORRUPT_DIR).glob("*"))
            checked = integrity(place)
            figures = {
                "backend": place.backend,
                "kills": kills,
                "producers": producers,
                "turns": expected,
                "hook_calls": expected + producers * len(range(0, captures, 10)),
                "hook_errors": hook_errors,
                "stored_at_kills": stored_at_kills,
                "spooled": log_text.count("spooled for memevo serve"),
                "sources": sum(sessions.values()),
                "lost": expected - len(sessions),
                "stored_twice": sum(1 for count in sessions.values() if count > 1),
                "set_aside_corrupt": len(corrupt),
                "spool_left": len(spool.pending(place.home)),
                "integrity": checked,
                "produced_after_s": produced_at,
                "seconds": round(time.monotonic() - started, 1),
            }
    assert figures["hook_errors"] == 0, figures
    assert figures["lost"] == 0 and figures["stored_twice"] == 0 and figures["sources"] == expected, figures
    assert figures["set_aside_corrupt"] == 0 and figures["spool_left"] == 0 and checked["ok"], figures
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True, help="a PostgreSQL database; the check uses a fresh schema")
    parser.add_argument("--kills", type=int, default=6)
    parser.add_argument("--producers", type=int, default=3)
    parser.add_argument("--captures", type=int, default=60)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    figures = run(args.kills, args.producers, args.captures, seed=args.seed, database_url=args.database_url)
    print_figures("gateway_chaos", figures)


if __name__ == "__main__":
    main()
