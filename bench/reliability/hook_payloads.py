"""Hostile hook input for :mod:`bench.reliability.hook_fuzz`: hypothesis strategies and files.

:func:`inputs` draws ``(stdin bytes, event, adapter)`` for one hook call: the generic
protocol, Claude Code, Codex, Gemini and Pi payloads and arbitrary JSON, with values of every
JSON type, hostile strings (NUL, controls, bidi overrides, lone surrogates, 60,000-character
words, walls of newlines, secrets) and nesting, optionally broken as bytes (invalid UTF-8,
truncation); well-formed payloads reach the handlers, junk exercises the refusals.
:func:`hostile_transcripts` writes the transcript files those payloads point at.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

EVENTS = ["session_start", "compaction", "turn_end", "user_prompt", "session_end"]
NATIVE_EVENTS = [
    "SessionStart",
    "UserPromptSubmit",
    "Stop",
    "StopFailure",
    "PostCompact",
    "PreCompact",
    "SessionEnd",
    "SubagentStop",
    "BeforeAgent",
    "AfterAgent",
    "PreCompress",
    "Notification",
    "session_start",
    "before_agent_start",
    "agent_end",
    "session_compact",
    "session_shutdown",
    "PreToolUse",
]
HOSTILE = [
    "",
    " ",
    "\x00",
    "\x00" * 100,
    "\x01\x02\x1b[31mred\x1b[0m\x7f",
    "\u202e\u2066evil\u2069\u202c",
    "\ufeff\u200b",
    "\udc00",
    "\ud800x\udfff",
    "x\ud83d",
    "é" * 5_000,
    "中文" * 3_000,
    "😀" * 2_000,
    "a" * 60_000,
    "a." * 30_000,
    "-eyJ" * 10_000,
    "\n" * 30_000,
    "token=" * 5_000,
    "remember that " + "x" * 20_000,
    "remember that the port is 5433",
    "记住：发布前要跑测试",
    "memory 0123456789abcdef01234567 is incorrect.",
    "ok, continue",
    "my password is hunter2Tr0ub4dor",
    "sk-" + "proj-" + "A1b2C3d4" * 6,
    "\\udc00",
    "<memevo-recall>",
    "../../etc/passwd",
    "/dev/zero",
    "{}",
    "[",
    "null",
    "which port does service 7 of the staging cluster listen on?",
    "staging cluster port \udc00?",
    "port " * 3_000 + "staging cluster?",
]


def _hostile(index: int) -> str:
    return HOSTILE[index]


_text = st.one_of(
    st.text(max_size=80),
    st.sampled_from(range(len(HOSTILE))).map(_hostile),  # by index: keeps reprs short
    st.builds(
        lambda unit, n: unit * n,
        st.sampled_from(["a", "é", "中", " ", "\n", "a.", "\x00", "\udc00"]),
        st.integers(0, 20_000),
    ),
)
MEANINGFUL = [
    "remember that the staging port is 5433",
    "which port does service 7 of the staging cluster listen on?",
    "please run the tests",
    "Decision: use WAL for the queue",
    "- Fact: the cache lives in /srv/cache",
    "记住：发布前要跑全部测试",
    "From now on, always use pnpm",
    "memory 0123456789abcdef01234567 is useful.",
    "I prefer tabs",
    "do you remember the staging port?",
    "cd /work/app && git commit -m fix",
]
# Text with something a handler acts on (a cue, a question, a label) around a hostile part.
_prose = st.one_of(
    _text, st.builds(lambda a, b, c: f"{a} {b} {c}", st.sampled_from(MEANINGFUL), _text, st.sampled_from(MEANINGFUL))
)
_scalar = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False), _text)
_json = st.recursive(
    _scalar,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_text, inner, max_size=4)),
    max_leaves=12,
)
# Nesting deeper than any parser's recursion limit, as bytes (json.dumps could not write it).
_deep = st.builds(
    lambda prefix, depth: prefix + b"[" * depth + b"]" * depth + b"}",
    st.sampled_from(
        [
            b'{"schema": "memevo.hook/v1", "summary": ',
            b'{"hook_event_name": "Stop", "x": ',
            b'{"event": {"type": "agent_end", "messages": ',
        ]
    ),
    st.integers(1, 200_000),
)


def _typed(value: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return value


def _any(value: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """A field of the right shape most of the time, any JSON value sometimes."""
    return st.one_of(value, value, value, _json)


def _generic(_field: Any = _any, event: str | None = None) -> st.SearchStrategy[dict[str, Any]]:
    typed = _field is _typed
    ids = st.one_of(st.none(), st.sampled_from(["c1", "c2", "c3"]), st.text(min_size=1, max_size=20))
    operation = st.fixed_dictionaries(
        {"tool": _field(st.sampled_from(["Bash", "Edit", "Write", "Read", "memevo", "x" * 128]))},
        optional={
            "input": st.one_of(_prose, _json),
            "output": st.one_of(_prose, _json),
            "status": _field(st.sampled_from(["ok", "error", "interrupted"])),
            "call_id": _field(ids),
            "result_id": _field(ids),
            **({} if typed else {"extra": _json}),
        },
    )
    messages = st.lists(_prose.map(lambda t: t or "x") if typed else _text, max_size=8)
    # A well-formed payload carries what its event needs.
    needed = {"compaction": "summary", "turn_end": "user_messages", "user_prompt": "prompt"}.get(event or "")
    required: dict[str, Any] = {"schema": _field(st.just("memevo.hook/v1"))}
    if typed and needed:
        required[needed] = messages.map(lambda m: m or ["x"]) if needed == "user_messages" else _prose
    cwds = ["/tmp", "", "~", "relative/dir", "/nonexistent"] + ([] if typed else ["/tmp/\x00x"])
    optional = {
        "event": _field(st.just(event) if event else st.sampled_from(EVENTS)),
        "agent": _field(st.sampled_from(["generic", "fuzz", "a" * 64, "é"]) if typed else _text),
        "session_id": _field(st.one_of(st.none(), st.text(min_size=1, max_size=40)) if typed else _text),
        "cwd": _field(st.sampled_from(cwds)),
        "summary": _field(_prose),
        "user_messages": _field(messages),
        "prompt": _field(_prose),
        "operations": _field(st.lists(operation, max_size=6)),
        "final_message": _field(_prose),
        "ended_in_error": _field(st.booleans()),
        **({} if _field is _typed else {"unknown": _json}),
    }
    return st.fixed_dictionaries(required, optional={k: v for k, v in optional.items() if k not in required})


def _native(transcripts: list[str], _field: Any = _any) -> st.SearchStrategy[dict[str, Any]]:
    message = st.fixed_dictionaries(
        {"role": st.sampled_from(["user", "assistant", "toolResult", "custom"])},
        optional={"content": st.one_of(_prose, _json), "toolCallId": _text, "isError": _json},
    )
    pi_event = st.fixed_dictionaries(
        {"type": _field(st.sampled_from(["before_agent_start", "agent_end"]))},
        optional={
            "prompt": _field(_prose),
            "messages": _field(st.lists(message, max_size=5)),
            "compactionEntry": _field(st.fixed_dictionaries({"summary": _field(_prose)})),
        },
    )
    return st.fixed_dictionaries(
        {"hook_event_name": _field(st.sampled_from(NATIVE_EVENTS))},
        optional={
            "session_id": _field(st.text(min_size=1, max_size=40)),
            "cwd": _field(st.sampled_from(["/tmp", "", "/x"])),
            "transcript_path": _field(st.sampled_from(transcripts)),
            "prompt": _field(_prose),
            "prompt_id": _field(_text),
            "turn_id": _field(_text),
            "compact_summary": _field(_prose),
            "source": _field(st.sampled_from(["compact", "x"])),
            "stop_hook_active": _field(st.booleans()),
            "last_assistant_message": _field(_text),
            "prompt_response": _field(_text),
            "timestamp": _field(_text),
            "agent_id": st.none(),
            "event": _field(pi_event),
            "session_file": _field(st.sampled_from(transcripts)),
            "model": _json,
        },
    )


def inputs(transcripts: list[str]) -> st.SearchStrategy[tuple[bytes, str | None, str | None]]:
    from cli.hooks.adapters import ADAPTER_NAMES

    junk = st.one_of(_generic(), _native(transcripts), _json)

    def encode(value: Any, ascii_only: bool, breakage: int, where: int) -> bytes:
        raw = json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", errors="surrogatepass")
        if breakage == 1 and raw:  # invalid UTF-8 inside
            cut = where % len(raw)
            return raw[:cut] + b"\xff\xc0\x80\xed\xa0\x80" + raw[cut:]
        if breakage == 2:  # truncated
            return raw[: where % (len(raw) + 1)]
        return raw

    def encoded(payload: st.SearchStrategy[Any]) -> st.SearchStrategy[bytes]:
        return st.builds(
            encode, payload, st.booleans(), st.sampled_from([0, 0, 0, 0, 0, 0, 1, 2]), st.integers(0, 10**9)
        )

    event = st.sampled_from([None, *EVENTS, "bogus", "UserPromptSubmit", "Stop"])
    adapter = st.sampled_from([None, None, None, *ADAPTER_NAMES])
    # Well-formed payloads (every field of its type, the event named consistently) reach the
    # handlers; junk exercises the refusals.
    generic = st.sampled_from(EVENTS).flatmap(
        lambda name: st.tuples(encoded(_generic(_typed, name)), st.just(name), st.sampled_from([None, "generic"]))
    )
    native = st.tuples(encoded(_native(transcripts, _typed)), st.just(None), adapter)
    other = st.tuples(st.one_of(encoded(junk), _deep), event, adapter)
    return st.one_of(generic, generic, native, native, other)


def hostile_transcripts(directory: Path) -> list[str]:
    """Transcript files as an agent (or an attacker) might leave them."""
    directory.mkdir(parents=True, exist_ok=True)
    lines = [
        json.dumps(
            {
                "type": "user",
                "message": {"role": "user", "content": "remember that the port is 5433"},
                "promptId": "p1",
                "uuid": "u1",
            }
        ),
        json.dumps({"type": "user", "message": {"role": "user", "content": "\udc00" * 10}}),
        '{"type": "user", "message": ' + "[" * 5_000,
        json.dumps(
            {"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "t", "input": "x" * 50_000}]}}
        ),
        "not json at all \x00",
        json.dumps([1, 2, 3]),
        json.dumps({"type": "summary", "summary": "a" * 60_000}),
        json.dumps({"role": "user", "content": "before_agent_start " + "é" * 1_000}),
    ]
    hostile = directory / "hostile.jsonl"
    hostile.write_text("\n".join(lines * 50) + '\n{"type": "user", "mess', encoding="utf-8", errors="surrogatepass")
    empty = directory / "empty.jsonl"
    empty.write_bytes(b"")
    binary = directory / "binary.jsonl"
    binary.write_bytes(bytes(range(256)) * 100)
    return [str(hostile), str(empty), str(binary), str(directory), "/nonexistent/t.jsonl", "/dev/zero", ""]
