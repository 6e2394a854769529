"""Whether a text states a change of something said before: "Actually let's drop the cache TTL
to 10 seconds", "we moved the book club to the second Tuesday", "switch the service to
Dramatiq", "读书会改到每月第二个周二了". Rules of the two languages' words for changing, not a
parser (:mod:`memory_core.recall.changes`)."""

from __future__ import annotations

from memory_core.lazy_pattern import lazy
from memory_core.text.tokenize import normalize

_CHANGE = lazy(
    r"^\s*(?:actually|correction|update|quick\s+update|change\s+of\s+plans?|scratch\s+that|no\s+wait)\b"
    # a thing changed for another: "switch the service to Dramatiq", "moved the club to Tuesday"
    r"|\b(?:switch(?:ed|ing)?|mov(?:e|ed|ing)|chang(?:e|ed|ing)|migrat(?:e|ed|ing)|upgrad(?:e|ed|ing)|"
    r"downgrad(?:e|ed|ing))\b[^.;!?]{0,60}?\b(?:to|from)\b"
    r"|\b(?:replac(?:e|ed|ing)|swap(?:ped|ping)?)\b[^.;!?]{0,60}?\b(?:with|for)\b"
    # a quantity set anew: "drop the cache TTL to 10 seconds" (not "raising awareness for …")
    r"|\b(?:drop(?:ped|ping)?|bump(?:ed|ing)?|rais(?:e|ed|ing)|lower(?:ed|ing)?|increas(?:e|ed|ing)|"
    r"decreas(?:e|ed|ing)|reduc(?:e|ed|ing)|cut|set)\b[^.;!?]{0,60}?\bto\s+(?:[0-9]|one|two|three|four|five|"
    r"six|seven|eight|nine|ten|half)"
    r"|\b(?:no\s+longer|not\s+anymore|from\s+now\s+on|going\s+forward|instead\s+of)\b"
    "|改(?:成|到|为|在|喝|吃|用|去|坐|骑|穿|走|住|学|做|买|开|打|看)|换成|换到|调到|调成|调整为|调整到|搬到|"
    "不再|更新一下|以后都|从现在开始|从今以后"
)


def states_change(content: str) -> bool:
    """Whether a claim's text states that something said before has changed."""
    return _CHANGE.search(normalize(content)) is not None
