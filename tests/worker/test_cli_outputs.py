"""Every CLI provider reads its CLI's output strictly. A CLI replaced by a script that prints
something else (non-JSON, another shape, a huge answer), exits non-zero, is cut off or
hangs: a recorded failure with its allowlisted code, nothing written, the worker alive and
the next attempt scheduled. The script is a real process run as ``MEMEVO_MODEL_COMMAND``;
a hanging one and the child it started are killed at the deadline. The real CLIs are
driven in tests/agents/test_learn_with_cli.py."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from memory_core.model_providers import CLI_PROVIDERS, MODEL_CALL_MARKER
from memory_core.store.engines.database import Store
from memory_core.store.tables.memories import iter_memory_rows
from tests.worker.conftest import SECRET, capture, settings, source_row, state_bytes
from workers.consolidate import AttemptStatus, consolidate_source

# Each attempt runs a real process standing in for the CLI.
pytestmark = pytest.mark.slow

ANSWER = {
    "claims": [
        {"kind": "fact", "content": "The staging database listens on port 5433", "replaces": None, "searchTerms": None}
    ]
}
TEXT = json.dumps(ANSWER)
REPORTED = "reported-model-7"

# The script: reads its plan (stdout text, exit status, a pause, a child to start) from the
# JSON file next to it, records its argv, environment marker and stdin, then acts.
SCRIPT = """\
import json, os, subprocess, sys, time
here = os.path.dirname(os.path.abspath(__file__))
plan = json.load(open(os.path.join(here, "plan.json")))
seen = {"argv": sys.argv[1:], "marker": os.environ.get(%(marker)r), "stdin": sys.stdin.read(),
        "cwd": os.getcwd(), "cwd_files": os.listdir("."), "pid": os.getpid(),
        "memevo_vars": sorted(k for k in os.environ if k.startswith("MEMEVO_"))}
if plan.get("child"):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    seen["child"] = child.pid
json.dump(seen, open(os.path.join(here, "seen.json"), "w"))
if plan.get("sleep"):
    time.sleep(plan["sleep"])
sys.stderr.write(plan.get("stderr", ""))  # a CLI's stderr can quote the prompt: never stored
sys.stderr.flush()
out = plan.get("stdout", "")
sys.stdout.write(out * plan.get("repeat", 1))
sys.stdout.flush()
sys.exit(plan.get("exit", 0))
"""


def claude_result(**changes: Any) -> str:
    body = {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "stop_reason": "tool_use",
        "terminal_reason": "completed",
        "structured_output": ANSWER,
        "result": TEXT,
        "usage": {"input_tokens": 700, "output_tokens": 40},
        "modelUsage": {REPORTED: {"inputTokens": 700, "outputTokens": 40, "costUSD": 0.0001}},
        "total_cost_usd": 0.0001,
        "permission_denials": [],
    }
    body.update(changes)
    return json.dumps(body)


def codex_events(*, text: str = TEXT, output_tokens: int = 40, finished: bool = True, extra: tuple = ()) -> str:
    events: list[dict[str, Any]] = [
        {"type": "thread.started", "thread_id": "t"},
        {"type": "turn.started"},
        *extra,
        {"type": "item.completed", "item": {"id": "item_0", "type": "agent_message", "text": text}},
    ]
    if finished:
        events.append({"type": "turn.completed", "usage": {"input_tokens": 800, "output_tokens": output_tokens}})
    return "\n".join(json.dumps(e) for e in events) + "\n"


def gemini_result(*, response: str = TEXT, candidates: int = 40, **changes: Any) -> str:
    body: dict[str, Any] = {
        "session_id": "s",
        "response": response,
        "stats": {
            "models": {REPORTED: {"tokens": {"prompt": 200, "candidates": candidates, "thoughts": 0}}},
            "tools": {"totalCalls": 0},
        },
    }
    body.update(changes)
    return json.dumps(body)


def pi_events(*, text: str = TEXT, stop: str = "stop") -> str:
    message = {
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "provider": "acme",
        "model": REPORTED,
        "usage": {"input": 90, "output": 30, "cost": {"total": 0.0}},
        "stopReason": stop,
    }
    events = [
        {"type": "session"},
        {"type": "message_end", "message": message},
        {"type": "agent_end", "messages": [{"role": "user", "content": [{"type": "text", "text": "x"}]}, message]},
    ]
    return "\n".join(json.dumps(e) for e in events) + "\n"


GOOD = {
    "claude-code": claude_result(),
    "codex": codex_events(),
    "gemini": gemini_result(),
    "pi": pi_events(),
}
REPORTED_AS = {"claude-code": REPORTED, "codex": "chosen-model", "gemini": REPORTED, "pi": f"acme/{REPORTED}"}
CUT_OFF = {
    "claude-code": claude_result(stop_reason="max_tokens", structured_output=None),
    "codex": codex_events(text=TEXT[:30], output_tokens=9000),
    "gemini": gemini_result(response=TEXT[:30], candidates=9000),
    "pi": pi_events(text=TEXT[:30], stop="length"),
}
OTHER_SHAPE = {
    "claude-code": (json.dumps({"type": "assistant", "message": SECRET}), "provider", "no_choices"),
    "codex": (json.dumps({"type": "turn.started", "note": SECRET}) + "\n", "invalid_output", "wrong_finish_reason"),
    "gemini": (json.dumps({"answer": SECRET}), "provider", "no_choices"),
    "pi": (json.dumps({"type": "session", "note": SECRET}) + "\n", "provider", "no_choices"),
}
TOOL_USE = {
    "claude-code": claude_result(permission_denials=[{"tool_name": "Bash"}]),
    "codex": codex_events(extra=({"type": "item.completed", "item": {"type": "command_execution", "command": "ls"}},)),
    "gemini": gemini_result(
        stats={"models": {REPORTED: {"tokens": {"prompt": 1, "candidates": 1}}}, "tools": {"totalCalls": 1}}
    ),
    "pi": pi_events(stop="toolUse"),
}


class FakeCli:
    """A script standing in for an agent's CLI, and what it saw."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.path = root / "agent-cli"
        self.path.write_text(f"#!{sys.executable}\n" + SCRIPT % {"marker": MODEL_CALL_MARKER}, encoding="utf-8")
        self.path.chmod(0o755)
        self.plan()

    def plan(self, stdout: str = "", **plan: Any) -> None:
        (self.root / "plan.json").write_text(json.dumps({"stdout": stdout, **plan}), encoding="utf-8")

    def seen(self) -> dict[str, Any]:
        return json.loads((self.root / "seen.json").read_text(encoding="utf-8"))


@pytest.fixture(params=CLI_PROVIDERS)
def provider(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def cli(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, provider: str) -> FakeCli:
    fake = FakeCli(tmp_path / "fake-cli")
    monkeypatch.setenv("MEMEVO_MODEL_PROVIDER", provider)
    monkeypatch.setenv("MEMEVO_MODEL_COMMAND", str(fake.path))
    if provider == "codex":
        monkeypatch.setenv("MEMEVO_MODEL", "chosen-model")
    return fake


def memory_count(home: Path) -> int:
    with Store.open(home) as store:
        return sum(1 for _ in iter_memory_rows(store.conn))


def test_a_good_answer_is_learned_with_the_model_the_cli_reported(home: Path, cli: FakeCli, provider: str) -> None:
    cli.plan(GOOD[provider])
    sid = capture(home, "remember that the zebra-queue service listens on port 5433")
    outcome = consolidate_source(settings(), sid)
    assert outcome.status == AttemptStatus.DONE, outcome
    [added] = outcome.changes["added"]
    with Store.open(home) as store:
        from memory_core.store.tables.memories import require_memory

        memory = require_memory(store.conn, added)
    assert memory.model_id == REPORTED_AS[provider]
    seen = cli.seen()
    assert seen["marker"] == "1"  # every memevo hook under this CLI returns at once
    assert "zebra-queue" in seen["stdin"] and "zebra-queue" not in " ".join(seen["argv"])
    assert seen["memevo_vars"] == [MODEL_CALL_MARKER]  # memevo's own settings stay with memevo
    assert seen["cwd_files"] == []  # an empty working directory: no project of anyone's
    assert not Path(seen["cwd"]).exists()  # removed afterwards
    if provider == "gemini":  # the same path for every call (Gemini CLI registers each one)
        assert Path(seen["cwd"]).name == "memevo-model-call" and Path(seen["cwd"]).parent.name.endswith("-gemini")


BAD = [
    ("not-json", lambda p: (f"Sorry, {SECRET}\n", {}), "provider", "response_not_json"),
    ("exit-1", lambda p: ("", {"exit": 1, "stderr": f"error: {SECRET}\n"}), "provider", "cli_exit"),
    ("huge", lambda p: (SECRET * 1000, {"repeat": 100}), "provider", "response_too_large"),
    ("cut-off", lambda p: (CUT_OFF[p], {}), "output_limit", "cut_off"),
    ("tool-use", lambda p: (TOOL_USE[p], {}), "invalid_output", "tool_calls"),
]


@pytest.mark.parametrize(("make", "code", "reason"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_a_bad_cli_output_is_a_recorded_failure_and_writes_nothing(
    home: Path, cli: FakeCli, provider: str, monkeypatch: pytest.MonkeyPatch, make: Any, code: str, reason: str
) -> None:
    monkeypatch.setenv("MEMEVO_MAX_OUTPUT_TOKENS", "4096")
    stdout, plan = make(provider)
    cli.plan(stdout, **plan)
    sid = capture(home)
    before = time.time()
    outcome = consolidate_source(settings(), sid)
    assert (outcome.status, outcome.error_code, outcome.error_reason) == (AttemptStatus.FAILED, code, reason)
    source = source_row(home, sid)
    assert (source.state, source.consecutive_failures, source.last_error_code) == ("pending", 1, code)
    assert outcome.next_due_at is not None and outcome.next_due_at > before  # the next attempt is scheduled
    assert memory_count(home) == 0
    assert SECRET.encode() not in state_bytes(home)


def test_another_shape_is_a_recorded_failure(home: Path, cli: FakeCli, provider: str) -> None:
    stdout, code, reason = OTHER_SHAPE[provider]
    cli.plan(stdout)
    sid = capture(home)
    outcome = consolidate_source(settings(), sid)
    assert (outcome.error_code, outcome.error_reason) == (code, reason)
    assert memory_count(home) == 0
    assert SECRET.encode() not in state_bytes(home)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, its parent gone) is not running.
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_cli_that_never_answers_is_killed_with_its_children_at_the_deadline(
    home: Path, cli: FakeCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMEVO_ATTEMPT_SECONDS", "2")
    cli.plan(GOOD["claude-code"], sleep=600, child=True)
    sid = capture(home)
    started = time.monotonic()
    outcome = consolidate_source(settings(), sid)
    took = time.monotonic() - started
    assert (outcome.error_code, outcome.error_reason) == ("timeout", "deadline")
    assert 2 <= took < 10
    seen = cli.seen()
    deadline = time.monotonic() + 5
    while (_alive(seen["pid"]) or _alive(seen["child"])) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(seen["pid"]) and not _alive(seen["child"])
    assert memory_count(home) == 0
    source = source_row(home, sid)
    assert (source.state, source.consecutive_failures, source.last_error_code) == ("pending", 1, "timeout")


def test_a_missing_cli_leaves_the_source_waiting_uncounted(
    home: Path, provider: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MEMEVO_MODEL_PROVIDER", provider)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    sid = capture(home)
    cfg = settings()
    assert not cfg.model_configured
    assert "MEMEVO_MODEL_COMMAND" in cfg.model_setup_hint()
    outcome = consolidate_source(cfg, sid)
    assert outcome.status == AttemptStatus.NO_MODEL
    source = source_row(home, sid)
    assert (source.state, source.consecutive_failures, source.attempt) == ("pending", 0, 0)


def test_a_model_command_that_is_not_an_executable_file_is_a_configuration_error(
    home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from memory_core.errors import ConfigError

    plain = tmp_path / "not-executable"
    plain.write_text("echo hi\n", encoding="utf-8")
    monkeypatch.setenv("MEMEVO_MODEL_PROVIDER", "claude-code")
    for value in (str(plain), str(tmp_path), str(tmp_path / "absent")):
        monkeypatch.setenv("MEMEVO_MODEL_COMMAND", value)
        with pytest.raises(ConfigError, match="MEMEVO_MODEL_COMMAND.*executable file"):
            settings()


def test_status_shows_the_provider_and_todays_use_against_the_subscription_budget(
    home: Path, cli: FakeCli, provider: str, cli_run
) -> None:
    from memory_core import model_providers

    cli.plan(GOOD[provider])
    consolidate_source(settings(), capture(home))
    text = cli_run("status").output
    assert f"model:           {provider}, " in text
    assert f"1 of {model_providers.CLI_DAILY_CALLS} calls" in text
    assert f"of {model_providers.CLI_DAILY_TOKENS:,} tokens" in text
    worker = json.loads(cli_run("status", "--json").output)["worker"]
    assert (worker["model_provider"], worker["model_calls_today"]) == (provider, 1)
    assert worker["model_tokens_today"] > 0


def test_the_subscription_budget_stops_the_worker_by_default(
    home: Path, cli: FakeCli, provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMEVO_DAILY_MODEL_CALLS", "1")
    cli.plan(GOOD[provider])
    assert consolidate_source(settings(), capture(home)).status == AttemptStatus.DONE
    second = capture(home, "remember that the owl-cache service listens on port 6000")
    assert consolidate_source(settings(), second).status == AttemptStatus.BUDGET_SPENT


# What each CLI prints for one call, as the pinned CLIs print it: Claude Code's result (its
# ``usage`` with the cache counts, ``modelUsage`` keyed by the model with ``costUSD``, and
# ``total_cost_usd``), Pi's assistant message (``usage`` with ``cacheRead``/``cacheWrite``,
# ``totalTokens`` and a ``cost`` broken down with its ``total``); Codex's and Gemini CLI's
# usage report tokens only.
CLAUDE_REAL = claude_result(
    duration_ms=2140,
    duration_api_ms=1980,
    num_turns=1,
    session_id="0f4c6b1e-1111-4e1e-9c53-5a2a6a0e7b10",
    usage={
        "input_tokens": 9,
        "cache_creation_input_tokens": 1200,
        "cache_read_input_tokens": 11000,
        "output_tokens": 40,
        "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
        "service_tier": "standard",
    },
    modelUsage={
        REPORTED: {
            "inputTokens": 9,
            "outputTokens": 40,
            "cacheReadInputTokens": 11000,
            "cacheCreationInputTokens": 1200,
            "webSearchRequests": 0,
            "costUSD": 0.0123,
            "contextWindow": 200000,
        }
    },
    total_cost_usd=0.0123,
    uuid="3c3e0c55-2222-4d0b-8d1c-0b9a4b7f4a11",
)


def pi_priced(*, stop: str = "stop", text: str = TEXT) -> str:
    usage = {
        "input": 90,
        "output": 30,
        "cacheRead": 500,
        "cacheWrite": 0,
        "totalTokens": 620,
        "cost": {"input": 0.0027, "output": 0.0012, "cacheRead": 0.0003, "cacheWrite": 0, "total": 0.0042},
    }
    return pi_events(stop=stop, text=text).replace(
        json.dumps({"input": 90, "output": 30, "cost": {"total": 0.0}}), json.dumps(usage)
    )


REAL = {"claude-code": CLAUDE_REAL, "codex": codex_events(), "gemini": gemini_result(), "pi": pi_priced()}
# (prompt tokens, output tokens, cost in US dollars or None where the CLI reports none)
REAL_USAGE = {
    "claude-code": (12_209, 40, 0.0123),
    "codex": (800, 40, None),
    "gemini": (200, 40, None),
    "pi": (590, 30, 0.0042),
}


def todays_usage(home: Path) -> Any:
    from memory_core import clock
    from memory_core.jobs.budget import usage_on

    with Store.open(home) as store:
        return usage_on(store.conn, clock.now())


def learning_log(home: Path) -> list[dict[str, Any]]:
    path = home / "logs" / "learning.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def test_each_clis_usage_and_reported_cost_are_counted(home: Path, cli: FakeCli, provider: str, cli_run) -> None:
    cli.plan(REAL[provider])
    sid = capture(home)
    assert consolidate_source(settings(), sid).status == AttemptStatus.DONE
    prompt, output, cost = REAL_USAGE[provider]
    usage = todays_usage(home)
    assert (usage.calls, usage.prompt_tokens, usage.completion_tokens) == (1, prompt, output)
    assert (usage.cost_usd, usage.costed_calls) == ((cost, 1) if cost is not None else (0.0, 0))
    [entry] = [e for e in learning_log(home) if e.get("kind") == "model_call"]
    assert (entry["source_id"], entry["provider"], entry["outcome"]) == (sid, provider, "done")
    assert (entry["prompt_tokens"], entry["completion_tokens"], entry["cost_usd"]) == (prompt, output, cost)
    assert entry["model"] == REPORTED_AS[provider]
    worker = json.loads(cli_run("status", "--json").output)["worker"]
    assert (worker["model_cost_usd_today"], worker["model_costed_calls_today"]) == (cost or 0.0, 1 if cost else 0)
    assert (worker["model_prompt_tokens_today"], worker["model_completion_tokens_today"]) == (prompt, output)
    text = cli_run("status").output
    assert f"({prompt:,} in, {output:,} out)" in text
    assert (f"${cost:.4f} reported (every call)" if cost else "no cost reported") in text
    shown = cli_run("learning").output
    assert "model call" in shown and f"{prompt:,} in, {output:,} out" in shown and f"source {sid} done" in shown
    assert (f"${cost:.4f} reported" if cost else "no cost reported") in shown


@pytest.mark.parametrize("provider", ["claude-code"])
def test_claude_codes_cost_without_a_total_is_the_sum_of_its_models(home: Path, cli: FakeCli, provider: str) -> None:
    body = json.loads(CLAUDE_REAL)
    del body["total_cost_usd"]
    body["modelUsage"]["claude-haiku-helper"] = {"inputTokens": 5, "outputTokens": 1, "costUSD": 0.0002}
    cli.plan(json.dumps(body))
    assert consolidate_source(settings(), capture(home)).status == AttemptStatus.DONE
    usage = todays_usage(home)
    assert usage.costed_calls == 1 and abs(usage.cost_usd - 0.0125) < 1e-12


BAD_COSTS = [-1, "0.5", True, None, {"usd": 1}]


# Only Claude Code and Pi report what a call cost.
COSTED = ["claude-code", "pi"]


@pytest.mark.parametrize("provider", COSTED)
@pytest.mark.parametrize("value", BAD_COSTS, ids=[repr(v) for v in BAD_COSTS])
def test_a_cost_that_is_not_a_number_counts_as_none_reported(
    home: Path, cli: FakeCli, provider: str, value: Any
) -> None:
    if provider == "claude-code":
        body = json.loads(CLAUDE_REAL)
        body["total_cost_usd"] = value
        body["modelUsage"][REPORTED]["costUSD"] = value
        cli.plan(json.dumps(body))
    else:
        cli.plan(pi_priced().replace('"total": 0.0042', f'"total": {json.dumps(value)}'))
    assert consolidate_source(settings(), capture(home)).status == AttemptStatus.DONE
    usage = todays_usage(home)
    assert (usage.calls, usage.cost_usd, usage.costed_calls) == (1, 0.0, 0)


@pytest.mark.parametrize("provider", COSTED)
def test_a_cut_off_answer_still_counts_what_it_cost(
    home: Path, cli: FakeCli, provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMEVO_MAX_OUTPUT_TOKENS", "4096")
    if provider == "claude-code":
        body = json.loads(CLAUDE_REAL)
        body.update(stop_reason="max_tokens", structured_output=None)
        cli.plan(json.dumps(body))
    else:
        cli.plan(pi_priced(stop="length", text=TEXT[:30]))
    outcome = consolidate_source(settings(), capture(home))
    assert (outcome.error_code, outcome.error_reason) == ("output_limit", "cut_off")
    usage = todays_usage(home)
    assert (usage.calls, usage.costed_calls, usage.cost_usd) == (1, 1, REAL_USAGE[provider][2])
    [entry] = [e for e in learning_log(home) if e.get("kind") == "model_call"]
    assert entry["outcome"] == "output_limit (cut_off)" and entry["cost_usd"] == REAL_USAGE[provider][2]
    assert memory_count(home) == 0


def test_a_daily_cost_limit_stops_the_worker_once_the_reported_cost_reaches_it(
    home: Path, cli: FakeCli, provider: str, monkeypatch: pytest.MonkeyPatch, cli_run
) -> None:
    monkeypatch.setenv("MEMEVO_DAILY_MODEL_COST_USD", "0.004")  # one call of each CLI costs more
    cli.plan(REAL[provider])
    assert consolidate_source(settings(), capture(home)).status == AttemptStatus.DONE
    second = capture(home, "remember that the owl-cache service listens on port 6000")
    outcome = consolidate_source(settings(), second)
    if REAL_USAGE[provider][2] is None:  # no cost reported: only the call and token limits hold
        assert outcome.status == AttemptStatus.DONE
        return
    assert outcome.status == AttemptStatus.BUDGET_SPENT
    assert source_row(home, second).attempt == 0  # no call was made
    worker = json.loads(cli_run("status", "--json").output)["worker"]
    assert (worker["budget_spent"], worker["budget_spent_by"], worker["daily_cost_limit_usd"]) == (True, "cost", 0.004)
    assert "of $0.004 reported (every call)" in cli_run("status").output
    assert "daily cost budget spent" in cli_run("status").output
