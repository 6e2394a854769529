"""The Claude Code prompt hook's modules define no named tuples or protocol classes at import.

Defining a ``typing.NamedTuple`` costs about 0.3 ms (a ``Protocol`` about 0.1 ms) of every
hook process that imports its module, and the prompt hook runs on every user turn; their
records are :class:`cli.hooks.event.Frozen` instead and the protocols exist for type
checking only (docs/hooks.md, "Cost").
"""

from __future__ import annotations

import importlib
import pickle

import pytest

from cli.hooks.event import Frozen

PROMPT_PATH = (
    "cli.hooks.adapters.claude_code",
    "cli.hooks.adapters.native",
    "cli.hooks.session_stash",
    "cli.hooks.transcripts.claude_code",
    "cli.hooks.transcripts.common",
)


@pytest.mark.parametrize("name", PROMPT_PATH)
def test_no_named_tuple_or_protocol_is_defined(name: str) -> None:
    module = importlib.import_module(name)
    defined = [v for v in vars(module).values() if isinstance(v, type) and v.__module__ == name]
    assert not [c.__name__ for c in defined if issubclass(c, tuple)]
    assert not [c.__name__ for c in defined if getattr(c, "_is_protocol", False)]


def test_the_records_compare_and_pickle_by_value() -> None:
    from cli.hooks.session_stash import StashedPrompt
    from cli.hooks.transcripts.claude_code import UserTurn
    from cli.hooks.transcripts.common import Turn

    for record in (
        StashedPrompt("p", None, "d", 1.0),
        UserTurn("hi", "id"),
        Turn(("hi",), (), None, False),
    ):
        assert isinstance(record, Frozen)
        assert pickle.loads(pickle.dumps(record)) == record
        with pytest.raises(AttributeError):
            record.text = "x"  # type: ignore[attr-defined]
    assert UserTurn("hi", "id") == UserTurn("hi", "id") != UserTurn("hi", None)
