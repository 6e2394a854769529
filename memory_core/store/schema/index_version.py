"""Which tokenizer version the persisted index was built with, readable without loading
the tokenizer (every store open checks it)."""

from __future__ import annotations

from memory_core.store.engines.dbapi import DbConn

# Bump when the features a text yields change; stores rebuild their index once on open.
INDEX_VERSION = 15  # 3: tokens cut at MAX_TOKEN_CHARS (memory_core.text.tokenize)
# 4: personal-detail concepts (age, height, education ...) and more Chinese filler
# 5: value classes beside a value that states an attribute (a colour, an amount of money)
# 6: ports after a host and e-mail addresses as value classes, stricter money and colours
# 7: times of day and dates (=when) beside the time and date they state; cheap and dear as the cost;
#    names given with 叫, named, called (=name); movie/film
# 8: an amount in 块 before no noun it counts is money (=cost)
# 9: Chinese words holding a particle's or a pronoun's character kept whole (吉他, 跟踪, 酒吧)
# 10: an English word in -ship is its base's (membership: member) when the base has 5 letters or more
# 11: an occupation (=job), a level of schooling (=education), a height (=height) and an English age (=age)
#     beside the value that states one; a wedding and a marriage one concept (~wedding)
# 12: Chinese measure words after a count or a demonstrative are filler (那家, 一辆); a calendar unit
#     after digits is a word of its own (2021年买: 年, 买) and a date's number drops its leading zero;
#     brands (=brand) and distances (=distance); a measure with its unit in letters is also its number
# 13: a language named without the word (=language): a human one, or a programming one as code names it
# 14: where a person comes from (=hometown): 来自, 老家在, a province's people, "is from", "grew up in"
# 15: a car by its maker (=car), a database by its name (=database); a bare Chinese amount after the word
#     of a price, a rent or of spending is money (花了四百多, 房租四千五); a name written as another
#     person's owner marked (^name: 王建国的妻子, Tom's wife); "as a <occupation>" a job


def index_version(conn: DbConn) -> int | None:
    """The tokenizer version the index was built with (``None`` before the first claim)."""
    row = conn.execute("SELECT tf FROM postings WHERE feature='' AND memory_id='' AND field='version'").fetchone()
    return None if row is None else int(row[0])
