"""Tokens of an English sentence for :mod:`memory_core.capture.statements.statement_en`.

Quotes are set aside, the lowercased sentence is split into word tokens with contractions
expanded ("don't" -> "do not") and leading fillers dropped ("ok, so …"); the small helpers
here look for a token sequence, a phrase, the first clause, a deictic word ("this", "for
now") or a standing marker ("from now on", "before committing") in them.
"""

from __future__ import annotations

from memory_core.capture.statements.statement_en_kinds import (
    CLAUSE_BREAK,
    DEICTIC_PHRASES,
    DEICTIC_THAT_NEXT,
    DEICTIC_WORDS,
    EVENT_VERBS,
)
from memory_core.capture.statements.statement_en_words import (
    DASHES,
    FILLER_FIRST,
    FREE_FILLERS,
    GERUND_FRAME,
    IS_CONTRACTED,
    PUNCT,
    PUNCT_FILLERS,
    QUOTE_TOKEN,
    QUOTED,
    SCOPE_NOUNS,
    SPECIAL_CONTRACTIONS,
    STANDING_PHRASES,
    SUFFIX_CONTRACTIONS,
    TOKEN,
    YOU_FRAME,
)
from memory_core.capture.statements.statement_text import TO_ASCII, fold


def without_quotes(sentence: str) -> tuple[str, bool]:
    text = fold(fold(sentence, TO_ASCII), DASHES).replace("`", "")
    replaced = QUOTED.sub(f" {QUOTE_TOKEN} ", text)
    return replaced, replaced != text


def tokenize(lower: str) -> list[str]:
    out: list[str] = []
    for tok in TOKEN.findall(lower):
        if len(tok) > 1:
            tok = tok.rstrip(".")
        out.extend(expand(tok))
    return out


def expand(tok: str) -> tuple[str, ...]:
    if "'" not in tok and tok not in ("cannot", "lets"):
        return (tok,)
    special = SPECIAL_CONTRACTIONS.get(tok)
    if special:
        return special
    if tok.endswith("n't"):
        return tok[:-3], "not"
    for suffix, word in SUFFIX_CONTRACTIONS:
        if tok.endswith(suffix):
            return tok[: -len(suffix)], word
    if tok.endswith("'s"):
        base = tok[:-2]
        return (base, "is") if base in IS_CONTRACTED else (base,)
    return (tok.replace("'", ""),) if "'" in tok else (tok,)


def strip_fillers(toks: list[str]) -> list[str]:
    changed = True
    while changed and toks:
        changed = False
        while toks and toks[0] in PUNCT:
            toks = toks[1:]
            changed = True
        if not toks or toks[0] not in FILLER_FIRST:
            break
        for filler in FREE_FILLERS:
            if starts_with(toks, filler) and len(toks) > len(filler):
                toks = toks[len(filler) :]
                changed = True
                break
        else:
            for filler in PUNCT_FILLERS:
                n = len(filler)
                if starts_with(toks, filler) and (len(toks) == n or toks[n] in PUNCT):
                    toks = toks[n:]
                    changed = True
                    break
    if len(toks) >= 2 and toks[-1] == "please":
        toks = toks[:-1]
    if len(toks) >= 2 and toks[-2:] in ([",", "please"], ["please", "!"]):
        toks = toks[:-2]
    if len(toks) >= 3 and toks[-3:-1] == [",", "please"]:
        toks = toks[:-3] + toks[-1:]
    return toks


def starts_with(toks: list[str], seq: tuple[str, ...]) -> bool:
    return tuple(toks[: len(seq)]) == seq


def has_phrase(pad: str, phrases: tuple[str, ...]) -> str | None:
    for phrase in phrases:
        if f" {phrase} " in pad:
            return phrase
    return None


def first_clause(toks: list[str]) -> list[str]:
    """Tokens up to the first clause break (after the first word)."""
    for i, tok in enumerate(toks[1:], 1):
        if tok in CLAUSE_BREAK:
            return toks[:i]
    return toks


def deictic_word(toks: list[str]) -> str | None:
    """A word pointing at the current work ("this", "it", "for now"), if the first clause has one."""
    clause = first_clause(toks)
    for i, tok in enumerate(clause):
        nxt = clause[i + 1] if i + 1 < len(clause) else ""
        if tok in DEICTIC_WORDS:
            return tok
        if tok == "this" and nxt not in SCOPE_NOUNS:
            return tok
        if tok == "that" and (not nxt or nxt in PUNCT or nxt in DEICTIC_THAT_NEXT):
            return tok
    return has_phrase(" " + " ".join(clause) + " ", DEICTIC_PHRASES)


def standing_marker(pad: str) -> str | None:
    found = has_phrase(pad, STANDING_PHRASES)
    if found:
        return found
    match = GERUND_FRAME.search(pad)
    if match and match.group(1) not in ("nothing", "anything", "something", "everything"):
        return match.group(0).strip()
    match = YOU_FRAME.search(pad)
    if match and match.group(1) in EVENT_VERBS:
        return match.group(0).strip()
    return None
