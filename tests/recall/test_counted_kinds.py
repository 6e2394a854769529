"""The kind of thing a question counts ("有几个地方…", "how many places …") is what its
answers are, not a detail each answer must name (memory_core.text.query_features)."""

from __future__ import annotations

import pytest

from memory_core.recall.service import recall
from memory_core.text.query_features import query_terms
from tests.support.times import NOW


@pytest.mark.parametrize(
    ("text", "feature", "attribute"),
    [
        ("有几个地方在西湖区？", "~location", False),
        ("附近有几处地方可以停车？", "~location", False),
        # an amount or the values asked, not a count: still the detail asked
        ("装修要多少费用？", "~cost", True),
        ("billing 项目用了哪些端口？", "~port", True),
        # counted in one clause, asked in another
        ("how many colours are in the brand guide, and what colour is the logo?", "~color", True),
        ("how many places did we visit in Paris?", "~location", False),
        ("有几个版本还在用Python 2？", "~version", False),
        # named after the count, not counted: still the detail asked
        ("有几个活动的地点在广东广州？", "~location", True),
        ("外婆家的地址是什么？", "~address", True),
        ("what port does the billing API use?", "~port", True),
    ],
)
def test_the_counted_kind_is_no_attribute(text: str, feature: str, attribute: bool) -> None:
    term = next(t for t in query_terms(text) if t.feature == feature)
    assert term.attribute is attribute


def test_places_counted_are_found_by_their_addresses(add, reader) -> None:
    claims = [
        add(text)
        for text in (
            "外婆家的地址是杭州市西湖区湖滨路3号。",
            "外婆家的人均消费是80元。",
            "乐刻健身的地址是杭州市滨江区江南大道588号。",
            "晓风书屋的地址是杭州市西湖区体育场路。",
        )
    ]
    found = recall(reader.conn, "有几个地方在西湖区？", now=NOW).claims
    assert {c.memory_id for c in found} == {claims[0].id, claims[3].id}


def test_the_counting_pattern_is_one_string_in_every_process() -> None:
    # A pattern built from a set in the set's order changes with the hash seed: every hook
    # process then compiled it anew and added it to the regex cache (cli/regex_cache.py).
    import subprocess
    import sys

    from tests.support.processes import REPO

    code = "from memory_core.text.query_features import _counting; print(_counting().pattern)"
    patterns = {
        subprocess.run(
            [sys.executable, "-c", code],
            cwd=REPO,
            env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(patterns) == 1 and "地方" in next(iter(patterns))
