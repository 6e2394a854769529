"""Features of a text for the recall index: lowercase words and CJK character bigrams."""

from __future__ import annotations

import re
from collections import Counter

_WORD = re.compile(r"[a-z0-9][a-z0-9_.-]*[a-z0-9]|[a-z0-9]")
_CJK_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")


def features(text: str) -> Counter[str]:
    """Term frequencies of the text's features."""
    lowered = text.lower()
    counts: Counter[str] = Counter(_WORD.findall(lowered))
    for run in _CJK_RUN.findall(lowered):
        if len(run) == 1:
            counts[run] += 1
        for i in range(len(run) - 1):
            counts[run[i : i + 2]] += 1
    return counts
