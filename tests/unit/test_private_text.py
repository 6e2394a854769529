"""Text marked ``<private>`` is removed before anything keeps it (memory_core.privacy.private_text)."""

from __future__ import annotations

import pytest

from memory_core.privacy.private_text import has_private, strip_private
from memory_core.privacy.sanitize import sanitize_text


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("use port 5433 <private>my bank pin is 1234</private> on staging", "use port 5433  on staging"),
        ("a<private>b</private>c", "a c"),
        ("<PRIVATE>upper</PRIVATE>rest", "rest"),
        ("mixed <Private >x</ private> case", "mixed  case"),
        ("keep this <private>and drop the rest\nof the message", "keep this "),
        ("<private>all of it</private>", ""),
        ("  <private>\nall\n</private>\n", ""),
        ("two <private>a</private> and <private>b</private> parts", "two  and  parts"),
        ("stray closing </private> tag", "stray closing  tag"),
        ("no tags at all", "no tags at all"),
        ("html <b>stays</b>", "html <b>stays</b>"),
        ("nested <private>a <private>b</private> c", "nested  c"),
    ],
)
def test_private_parts_are_removed(text: str, kept: str) -> None:
    assert strip_private(text) == kept


def test_a_text_without_tags_is_returned_as_it_is() -> None:
    text = "plain text"
    assert strip_private(text) is text
    assert not has_private(text) and has_private("x <PRIVATE> y")


def test_removal_is_linear_on_hostile_input() -> None:
    # Many openings without a closing tag, and many closings: one pass each.
    assert strip_private("<private>" * 50_000 + "x") == ""
    assert strip_private("</private>" * 50_000 + "x") == "x"
    assert strip_private("<" * 200_000) == "<" * 200_000


def test_sanitize_removes_private_parts_before_clipping_and_redaction() -> None:
    secret_tail = "<private>" + "s" * 40_000 + "</private>"
    assert sanitize_text("remember that builds use node 20 " + secret_tail) == "remember that builds use node 20"
    # An opening tag the cap would otherwise cut from its text still removes it.
    long_public = "p" * 31_990
    assert "s" not in sanitize_text(long_public + "<private>" + "s" * 100)


def test_a_json_payload_loses_its_private_parts_everywhere() -> None:
    import json

    from memory_core.privacy.private_text import strip_private_json

    raw = json.dumps({"user_messages": ["keep <PRIVATE>pin 4242</PRIVATE> this"], "n": 1, "x": {"y": "<private>z"}})
    assert json.loads(strip_private_json(raw.encode())) == {"user_messages": ["keep  this"], "n": 1, "x": {"y": ""}}
    escaped = b'{"summary": "a \\u003cprivate\\u003esecret\\u003c/private\\u003e b"}'
    assert json.loads(strip_private_json(escaped)) == {"summary": "a  b"}
    for untouched in (b'{"a": "nothing here"}', b"not json <private>x"):
        assert strip_private_json(untouched) is untouched
