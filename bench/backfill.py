"""`memevo backfill` speed: sessions and turns read per second, peak memory, sources per session.

    python bench/backfill.py [--sessions 1000] [--turns 24] [--agents claude-code,codex,gemini,pi]

For each agent, ``--sessions`` saved sessions of about ``--turns`` turns each are generated
in a throwaway HOME from the sessions the real CLIs wrote (tests/data: the recorded turns
repeated with fresh ids, plus a "remember that …" statement and a test run per repetition),
then backfilled twice in a process of its own: a dry run and a real run into a fresh SQLite
state dir. Reported per run: sessions/s, turns/s, MB/s, the process's peak resident memory,
the sources made, model calls per session (one per source) and the share of turns the
capture rules kept nothing of (dropped before any model call). Nothing leaves the machine.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

DATA = REPO / "tests" / "data"
TEMPLATES = {
    "claude-code": DATA
    / "claude-code"
    / "transcripts"
    / "-home-user-project__56190f3c-58d2-4582-8686-30cf128cb449.jsonl",
    "codex": DATA / "codex" / "rollout-memevo-hooks.jsonl",
    "gemini": DATA / "gemini" / "session" / "transcript.jsonl",
    "pi": DATA / "pi" / "session.jsonl",
}
# Ids are quoted strings of hex digits and dashes with a letter among them (never a number).
_ID = re.compile(r'(?<=")(?=[0-9-]*[a-f])[0-9a-f-]{8,40}(?=")')


def _fresh_ids(line: str, seed: str) -> str:
    return _ID.sub(lambda m: hashlib.sha256((m.group(0) + seed).encode()).hexdigest()[: len(m.group(0))], line)


def _is_header(agent: str, record: dict[str, object]) -> bool:
    if agent == "codex":
        return record.get("type") == "session_meta"
    if agent == "pi":
        return record.get("type") == "session"
    if agent == "gemini":
        return "sessionId" in record or "$set" in record or "$rewindTo" in record
    return False


def _statement_lines(agent: str, n: int, seed: str) -> list[str]:
    """One more turn the live hooks would learn from: a statement (and its answer)."""
    said = f"remember that service {seed[:6]} number {n} deploys with make release-{n}"
    if agent == "claude-code":
        record = {
            "type": "user",
            "promptId": f"p-{seed}-{n}",
            "uuid": f"u-{seed}-{n}",
            "sessionId": "S",
            "cwd": "/home/user/project",
            "timestamp": "2026-12-03T02:53:51.148Z",
            "message": {"role": "user", "content": said},
        }
        return [json.dumps(record)]
    if agent == "pi":
        record = {
            "type": "message",
            "id": f"m{seed[:6]}{n}",
            "timestamp": "2026-12-03T02:53:51.148Z",
            "message": {"role": "user", "content": [{"type": "text", "text": said}]},
        }
        return [json.dumps(record)]
    if agent == "gemini":
        record = {
            "id": f"g{seed[:6]}{n}",
            "timestamp": "2026-12-03T02:53:51.148Z",
            "type": "user",
            "content": [{"text": said}],
        }
        return [json.dumps(record)]
    record = {
        "timestamp": "2026-12-03T02:53:51.148Z",
        "type": "event_msg",
        "payload": {"type": "task_started", "turn_id": f"t-{seed}-{n}"},
    }
    message = {
        "timestamp": "2026-12-03T02:53:51.148Z",
        "type": "event_msg",
        "payload": {"type": "user_message", "message": said, "turn_id": f"t-{seed}-{n}"},
    }
    return [json.dumps(record), json.dumps(message)]


def _template_turns(agent: str) -> int:
    from cli.backfill.reading import Tally
    from cli.backfill.run import reader_for

    tally = Tally()
    list(reader_for(agent)(str(TEMPLATES[agent]), tally, 0.0))
    return tally.turns


def generate(agent: str, home: Path, sessions: int, turns: int) -> tuple[int, int]:
    """Write ``sessions`` session files for ``agent`` under ``home``; their count and bytes."""
    from cli.backfill.locate import sessions_root

    lines = [line for line in TEMPLATES[agent].read_text(encoding="utf-8").splitlines() if line.strip()]
    records = [json.loads(line) for line in lines]
    headers = [line for line, r in zip(lines, records, strict=True) if _is_header(agent, r)]
    body = [line for line, r in zip(lines, records, strict=True) if not _is_header(agent, r)]
    per_copy = 1 + _template_turns(agent)  # the recorded turns, and one statement
    copies = max(1, turns // per_copy)
    root = sessions_root(agent, {"HOME": str(home)})
    written = 0
    for s in range(sessions):
        seed = hashlib.sha256(f"{agent}{s}".encode()).hexdigest()
        if agent == "claude-code":
            path = root / "-home-user-project" / f"{seed[:8]}-0000-4000-8000-{seed[:12]}.jsonl"
        elif agent == "codex":
            path = root / "2026" / "12" / "03" / f"rollout-2026-12-03T02-55-23-{seed[:8]}.jsonl"
        elif agent == "gemini":
            path = root / f"p{s % 50}" / "chats" / f"session-2026-12-03-{seed[:8]}.jsonl"
        else:
            path = root / "--home-user-project--" / f"2026-12-03T02-53-50-798Z_{seed[:8]}-{seed[8:12]}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        out = [_fresh_ids(line, seed) for line in headers]
        for c in range(copies):
            out.extend(_fresh_ids(line, f"{seed}{c}") for line in body)
            out.extend(_statement_lines(agent, c, seed))
        text = "\n".join(out) + "\n"
        path.write_text(text, encoding="utf-8")
        written += len(text.encode("utf-8"))
    return sessions, written


def child(agent: str, home: Path, state: Path, dry_run: bool) -> dict[str, object]:
    from cli.backfill.run import Backfill

    env = {"HOME": str(home), "MEMEVO_HOME": str(state)}
    os.environ.update(env)
    started = time.perf_counter()
    data = Backfill(agent, state, since=0.0, project=None, dry_run=dry_run, now=time.time(), env=env).run()
    seconds = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    sessions, turns = int(data["sessions_read"]), int(data["turns_read"])
    sources = int(data["sources_total"])
    return {
        "agent": agent,
        "dry_run": dry_run,
        "seconds": round(seconds, 2),
        "sessions": sessions,
        "turns": turns,
        "sessions_per_second": round(sessions / seconds, 1),
        "turns_per_second": round(turns / seconds, 1),
        "mb_per_second": round(int(data["bytes_read"]) / seconds / 1e6, 2),
        "peak_rss_mb": round(peak_mb, 1),
        "sources": data["sources"],
        "model_calls_per_session": round(sources / sessions, 2) if sessions else 0,
        "turns_dropped_before_a_model_call": round(int(data["turns_without_a_source"]) / turns, 3) if turns else 0,
        "bad_lines": data["bad_lines"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--turns", type=int, default=24)
    parser.add_argument("--agents", default="claude-code,codex,gemini,pi")
    parser.add_argument("--child", nargs=4, metavar=("AGENT", "HOME", "STATE", "DRY"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        agent, home, state, dry = args.child
        print(json.dumps(child(agent, Path(home), Path(state), dry == "dry")))
        return
    results = []
    with tempfile.TemporaryDirectory(prefix="memevo-bench-backfill-") as scratch:
        for agent in args.agents.split(","):
            home = Path(scratch) / agent / "home"
            count, size = generate(agent, home, args.sessions, args.turns)
            print(f"{agent}: {count} sessions, {size / 1e6:.1f} MB generated", file=sys.stderr)
            for mode in ("dry", "real"):
                state = Path(scratch) / agent / f"state-{mode}"
                done = subprocess.run(
                    [sys.executable, __file__, "--child", agent, str(home), str(state), mode],
                    capture_output=True,
                    text=True,
                    check=True,
                    cwd=str(REPO),
                )
                result = json.loads(done.stdout)
                result["generated_mb"] = round(size / 1e6, 1)
                results.append(result)
                print(json.dumps(result), file=sys.stderr)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
