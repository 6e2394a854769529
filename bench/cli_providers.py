"""What learning through an agent's CLI costs over the HTTP provider, at zero model latency.

For the HTTP provider (a loopback OpenAI-compatible fake) and each pinned CLI (Claude Code,
Codex, Gemini CLI, Pi; installed by ``.ci/install-agent-clis``) against the loopback fake
of its model API, all answering at once: ``--sources`` sources are captured into a fresh
SQLite state dir and consolidated one after another by real attempts
(``workers.consolidate.consolidate_source``: lease, model call, validation, apply), as one
worker process does. Figures per provider: the median seconds per attempt and the seconds
each CLI adds over HTTP (its process start), the worker's throughput (sources per minute,
one worker process) and the request one source sends the model: its bytes and tokens
estimated as bytes / 4, the fakes' own estimate (the CLIs add their own system prompt and
context to memevo's).

    python bench/cli_providers.py [--sources 10] [--only claude-code,codex] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory_core import clock  # noqa: E402
from memory_core.capture.intake import capture_source  # noqa: E402
from memory_core.config import load_settings  # noqa: E402
from memory_core.store.engines.database import Store  # noqa: E402
from workers.consolidate import AttemptStatus, consolidate_source  # noqa: E402

PROVIDERS = ("openai", "claude-code", "codex", "gemini", "pi")


def answer_for(i: int) -> dict[str, Any]:
    return {
        "claims": [
            {
                "kind": "fact",
                "content": f"Service s{i} listens on port {2000 + i}.",
                "replaces": None,
                "searchTerms": None,
            }
        ]
    }


@contextmanager
def provider_env(provider: str, home: Path, n: int) -> Iterator[tuple[dict[str, str], Callable[[], list[int]]]]:
    """The worker's environment for ``provider`` with its fake scripted for ``n`` answers,
    and a function returning the byte size of each model request the fake received."""
    if provider == "openai":
        from tests.support.fake_model import FakeModelServer

        with FakeModelServer() as fake:
            env = {"MEMEVO_MODEL_URL": fake.base_url, "MEMEVO_MODEL": "fake-model", "MEMEVO_MODEL_JSON_MODE": "schema"}
            yield env, lambda: [len(json.dumps(r)) for r in fake.requests]
        return
    if provider == "claude-code":
        from tests.support.agent_clis import CLAUDE_CODE, claude_environment
        from tests.support.fake_anthropic import FakeAnthropicServer, Reply

        binary = CLAUDE_CODE.binary()
        with FakeAnthropicServer() as fake:
            for i in range(n):
                fake.enqueue(Reply(text=None, tool="StructuredOutput", tool_input=answer_for(i)))
            yield (
                {**claude_environment(fake.base_url, home), "MEMEVO_MODEL_COMMAND": str(binary)},
                lambda: [len(json.dumps(r.body)) for r in fake.requests if r.body],
            )
        return
    if provider == "codex":
        from tests.support.codex_cli import CODEX, codex_environment, config_toml
        from tests.support.fake_codex import FakeCodexServer
        from tests.support.fake_codex import Reply as CodexReply

        binary = CODEX.binary()
        with FakeCodexServer() as fake:
            (home / ".codex").mkdir(parents=True, exist_ok=True)
            (home / ".codex" / "config.toml").write_text(config_toml(fake.base_url), encoding="utf-8")
            for i in range(n):
                fake.enqueue(CodexReply(text=json.dumps(answer_for(i))), kind="aux")
            yield (
                {**codex_environment(home), "MEMEVO_MODEL_COMMAND": str(binary)},
                lambda: [len(json.dumps(r.body)) for r in fake.requests if r.body],
            )
        return
    if provider == "gemini":
        from tests.support.fake_gemini import FakeGeminiServer
        from tests.support.fake_gemini import Reply as GeminiReply
        from tests.support.gemini_cli import GEMINI, gemini_environment, with_base_settings
        from tests.support.npm_cli import write_json

        binary = GEMINI.binary()
        write_json(home / ".gemini" / "settings.json", with_base_settings({}), end="\n")
        with FakeGeminiServer() as fake:
            for i in range(n):
                fake.enqueue(GeminiReply(text=json.dumps(answer_for(i))))
            yield (
                {**gemini_environment(fake.base_url, home), "MEMEVO_MODEL_COMMAND": str(binary)},
                lambda: [len(json.dumps(r.body)) for r in fake.requests if r.body and r.method == "POST"],
            )
        return
    from tests.support.fake_openai_chat import ChatReply, FakeOpenAIChatServer
    from tests.support.pi_cli import PI, models_json, pi_environment

    binary = PI.binary()
    agent_dir = home / ".pi" / "agent"
    agent_dir.mkdir(parents=True, exist_ok=True)
    with FakeOpenAIChatServer() as fake:
        (agent_dir / "models.json").write_text(json.dumps(models_json(fake.base_url)), encoding="utf-8")
        (agent_dir / "settings.json").write_text(json.dumps({"defaultProvider": "fake", "defaultModel": "fake-model"}))
        for i in range(n):
            fake.enqueue(ChatReply(text=json.dumps(answer_for(i))))
        yield (
            {**pi_environment(home), "MEMEVO_MODEL_COMMAND": str(binary)},
            lambda: [len(json.dumps(r.body)) for r in fake.requests() if r.body],
        )


def run(provider: str, n: int) -> dict[str, Any]:
    saved = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix=f"memevo-bench-{provider}-") as scratch:
        home = Path(scratch) / "home"
        (home / ".tmp").mkdir(parents=True)
        state = Path(scratch) / "state"
        try:
            with provider_env(provider, home, n) as (env, request_sizes):
                os.environ.clear()
                os.environ.update({k: v for k, v in env.items() if not k.startswith("MEMEVO_")})
                memevo = {k: v for k, v in env.items() if k.startswith("MEMEVO_")}
                memevo.update({"MEMEVO_HOME": str(state), "MEMEVO_ATTEMPT_SECONDS": "120"})
                if provider != "openai":
                    memevo["MEMEVO_MODEL_PROVIDER"] = provider
                settings = load_settings(memevo)
                with Store.open(state) as store:
                    ids = []
                    for i in range(n):
                        with store.transaction() as conn:
                            ids.append(
                                capture_source(
                                    conn,
                                    source_type="user_statement",
                                    origin="/bench",
                                    text=f"remember that service s{i} listens on port {2000 + i}",
                                    now=clock.now(),
                                ).source_id
                            )
                seconds = []
                started = time.monotonic()
                for sid in ids:
                    t = time.monotonic()
                    outcome = consolidate_source(settings, sid)
                    seconds.append(time.monotonic() - t)
                    if outcome.status != AttemptStatus.DONE:
                        raise SystemExit(f"{provider}: attempt on {sid} ended {outcome}")
                total = time.monotonic() - started
                sizes = request_sizes()
        finally:
            os.environ.clear()
            os.environ.update(saved)
    median_bytes = statistics.median(sizes) if sizes else 0
    return {
        "provider": provider,
        "attempts": n,
        "seconds_per_attempt": round(statistics.median(seconds), 3),
        "sources_per_minute": round(60 * n / total, 1),
        "request_bytes": int(median_bytes),
        "prompt_tokens_est": int(median_bytes // 4),
        "requests_per_attempt": round(len(sizes) / n, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sources", type=int, default=10)
    parser.add_argument("--only", default=",".join(PROVIDERS))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    wanted = [p for p in PROVIDERS if p in args.only.split(",")]
    rows = [run(provider, args.sources) for provider in wanted]
    base = next((r["seconds_per_attempt"] for r in rows if r["provider"] == "openai"), None)
    for row in rows:
        row["added_seconds"] = round(row["seconds_per_attempt"] - base, 3) if base is not None else None
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(
        f"{'provider':<12} {'s/attempt':>10} {'added s':>8} {'sources/min':>12} {'req bytes':>10} "
        f"{'~tokens':>8} {'req/attempt':>11}"
    )
    for r in rows:
        print(
            f"{r['provider']:<12} {r['seconds_per_attempt']:>10.3f} {r['added_seconds'] or 0:>8.3f} "
            f"{r['sources_per_minute']:>12.1f} {r['request_bytes']:>10} {r['prompt_tokens_est']:>8} "
            f"{r['requests_per_attempt']:>11}"
        )


if __name__ == "__main__":
    main()
