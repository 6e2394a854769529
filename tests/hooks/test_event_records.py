"""The hook event and its operations are immutable records (plain classes, not dataclasses),
and the prompt stash hashes as hashlib does without loading it."""

from __future__ import annotations

import copy
import hashlib
import pickle
from pathlib import Path

import pytest

from cli.hooks.event import HookEvent, HookInputError, Operation
from cli.hooks.session_stash import prompt_digest, sha256_hex, stash_path


def test_events_compare_hash_and_show_by_their_fields() -> None:
    op = Operation("Bash", input="ls", call_id="c1", result_id="c1")
    a = HookEvent("turn_end", session_id="s", user_messages=("hi",), operations=(op,))
    b = HookEvent("turn_end", "generic", "s", "", None, ("hi",), None, (Operation("Bash", "ls", "", "ok", "c1", "c1"),))
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != HookEvent("turn_end", session_id="t", user_messages=("hi",), operations=(op,))
    assert op != ("Bash", "ls", "", "ok", "c1", "c1")  # a record, not a tuple
    assert repr(op) == "Operation(tool='Bash', input='ls', output='', status='ok', call_id='c1', result_id='c1')"
    assert a.fields[0] == "event" and a.values()[5] == ("hi",)


def test_events_cannot_be_changed_in_place() -> None:
    event = HookEvent("user_prompt", prompt="x")
    with pytest.raises(AttributeError):
        event.prompt = "y"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del event.prompt  # type: ignore[misc]
    assert event.prompt == "x"


def test_replace_checks_the_new_values_as_a_new_event_does() -> None:
    event = HookEvent("user_prompt", prompt="x")
    assert event.replace(prompt="y") == HookEvent("user_prompt", prompt="y")
    with pytest.raises(HookInputError):
        event.replace(event="nonsense")
    with pytest.raises(TypeError, match="no field 'promt'"):
        event.replace(promt="y")


def test_events_copy_and_pickle() -> None:
    event = HookEvent("turn_end", user_messages=("a",), operations=(Operation("Read"),), ended_in_error=True)
    assert copy.copy(event) == event
    assert copy.deepcopy(event) == event
    assert pickle.loads(pickle.dumps(event)) == event


def test_invalid_fields_are_refused_at_construction() -> None:
    with pytest.raises(HookInputError, match="event must be one of"):
        HookEvent("nope")
    with pytest.raises(HookInputError, match="operation status"):
        Operation("Bash", status="maybe")


@pytest.mark.parametrize("data", [b"", b"abc", "会话 \u2603".encode(), bytes(range(256)) * 40])
def test_the_stash_hash_is_sha256(data: bytes) -> None:
    assert sha256_hex(data) == hashlib.sha256(data).hexdigest()


def test_stash_names_and_digests_are_unchanged(tmp_path: Path) -> None:
    assert stash_path(tmp_path, "s-1").name == hashlib.sha256(b"s-1").hexdigest()[:24] + ".json"
    assert prompt_digest("  hi \n") == hashlib.sha256(b"hi").hexdigest()[:32]
