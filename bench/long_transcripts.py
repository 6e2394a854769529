"""Cost of reading one long turn at the turn-end hook, by transcript size (docs/hooks.md).

    python bench/long_transcripts.py [--sizes 4,10,100,1000] [--agent claude-code|codex|gemini]

Each transcript is the recorded Claude Code session (tests/data) followed by one turn of
the current prompt: a commit, then reads of 80 KB until the file has the size asked (in
MB). The turn is read by a fresh process, as the hook does: ``streamed`` is the reader the
hook uses (its start found from the end, streamed), ``window`` the bounded 4 MB tail read
before (``Transcript.current_turn``). Reported per size: wall time, peak resident memory of
the process (``ru_maxrss``, the interpreter included), the operations the turn handed on
and whether the commit is among them.
"""

from __future__ import annotations

import argparse
import copy
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.hooks import claude_data  # noqa: E402

READ_BYTES = 80 * 1024
PROBE = r"""
import json, resource, sys, time
sys.path.insert(0, {repo!r})
path, prompt_id, how = sys.argv[1], sys.argv[2], sys.argv[3]
started = time.perf_counter()
if how == "streamed":
    from cli.hooks.transcripts.claude_code import read_current_turn
    turn = read_current_turn(path, prompt_id)
else:
    from cli.hooks.transcripts.claude_code import read_transcript
    turn = read_transcript(path).current_turn(prompt_id)
elapsed = time.perf_counter() - started
peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
ops = turn.operations if turn else ()
print(json.dumps({{"seconds": elapsed, "peak_mb": peak_kb / 1024, "operations": len(ops),
                  "commit_kept": any("commit -am" in o.input for o in ops), "found": turn is not None}}))
"""


def write_transcript(path: Path, size_mb: int) -> str:
    """The recorded session, then one turn grown to ``size_mb``; returns the turn's prompt id."""
    turn_id = claude_data.TURN_BASH
    items = claude_data.records_until(turn_id)
    start = next(i for i, r in enumerate(items) if r["type"] == "user" and r.get("promptId") == turn_id)
    use = next(
        r for r in items[start:] if r["type"] == "assistant" and r["message"]["content"][0]["type"] == "tool_use"
    )
    answer = next(r for r in items[start:] if isinstance(r.get("toolUseResult"), dict))
    body = "x = 1\n" * (READ_BYTES // 6)
    target = size_mb * 1024 * 1024
    with path.open("w", encoding="utf-8") as out:
        for record in [*items[:start], claude_data.user_record("commit, then review every module", turn_id)]:
            out.write(json.dumps(record) + "\n")
        i = 0
        while out.tell() < target:
            command = 'git commit -am "Checkout changes"' if i == 0 else f"cat src/module_{i}.py"
            output = "[main 1a2b3c4] Checkout changes" if i == 0 else body
            call, result = copy.deepcopy(use), copy.deepcopy(answer)
            call["message"]["id"] = f"msg_{i}"
            call["message"]["content"][0].update(id=f"toolu_{i}", name="Bash", input={"command": command})
            result["message"]["content"][0].update(tool_use_id=f"toolu_{i}", content=output)
            result["toolUseResult"] = {"stdout": output, "stderr": "", "interrupted": False}
            out.write(json.dumps(call) + "\n" + json.dumps(result) + "\n")
            i += 1
        out.write(json.dumps(claude_data.assistant_record("Done.", message_id="msg_end")) + "\n")
    return turn_id


def measure(path: Path, prompt_id: str, how: str) -> dict[str, object]:
    probe = PROBE.format(repo=str(Path(__file__).resolve().parent.parent))
    done = subprocess.run(
        [sys.executable, "-c", probe, str(path), prompt_id, how], capture_output=True, text=True, check=True
    )
    return dict(json.loads(done.stdout))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="4,10,100,1000", help="transcript sizes in MB")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        print(f"{'size':>7} {'reader':>9} {'seconds':>8} {'peak MB':>8} {'ops':>6} {'commit':>7}")
        for size in (int(s) for s in args.sizes.split(",")):
            path = Path(scratch) / f"t{size}.jsonl"
            prompt_id = write_transcript(path, size)
            for how in ("window", "streamed"):
                row = measure(path, prompt_id, how)
                print(
                    f"{size:>5}MB {how:>9} {row['seconds']:>8.2f} {row['peak_mb']:>8.1f} "
                    f"{row['operations']:>6} {('yes' if row['commit_kept'] else 'no'):>7}"
                    + ("" if row["found"] else "  (turn not found)")
                )
            path.unlink()


if __name__ == "__main__":
    main()
