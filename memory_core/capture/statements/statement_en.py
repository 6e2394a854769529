"""English sentence rules for :mod:`memory_core.capture.statements.statements`.

A sentence is lowercased and split into word tokens (contractions expanded: "don't" ->
"do not"); the rules are word sets and short phrases over those tokens, plus a handful of
short ASCII regular expressions (tokenizer, quotes, gerund frames). :func:`classify` returns
``(kind, reason)``: a kind when the sentence states a standing requirement, preference,
decision or convention (or an explicit "remember that …" fact), else ``None`` with the
reason it was rejected. ``HEADER`` marks a line that introduces a list ("remember this:").

This module holds the order of the checks and the rejections (recall, question, reported
speech, labels, explicit cues, leading frames); the tokenizer is in ``statement_en_tokens``,
the statement forms (preference, decision, directive, habit …) in ``statement_en_forms``,
and the word tables in ``statement_en_words`` and ``statement_en_kinds``.
"""

from __future__ import annotations

from memory_core.capture.statements.statement_en_forms import (
    conditional_form,
    decision_form,
    directive_form,
    preference_form,
)
from memory_core.capture.statements.statement_en_kinds import (
    DEICTIC_WORDS,
    FAILURE_NOUNS,
    LABELS,
    RULE_HEADER_NOUNS,
)
from memory_core.capture.statements.statement_en_practice import (
    convention_form,
    failure_predicate,
    habit_form,
    narration_form,
)
from memory_core.capture.statements.statement_en_tokens import (
    deictic_word,
    has_phrase,
    standing_marker,
    starts_with,
    strip_fillers,
    tokenize,
    without_quotes,
)
from memory_core.capture.statements.statement_en_words import (
    AUX_QUESTION,
    CHATTER,
    CUE_PUNCT,
    CUES,
    FRAME_FIRST,
    HEDGES,
    PLURAL_REPORTERS,
    PRONOUNS,
    PUNCT,
    QUESTION_STARTS,
    QUOTE_TOKEN,
    RECALL_NOUNS,
    RECALL_PHRASES,
    RECALL_STARTS,
    REPORT_VERBS,
    SCOPE_FRAMES,
    STANDING_FRAMES,
)
from memory_core.capture.statements.statement_text import HEADER, Verdict


def classify(sentence: str) -> Verdict:
    """``(kind, reason)`` for one English sentence; see the module docstring."""
    text, quoted = without_quotes(sentence)
    raw_lower = text.strip().lower()
    toks = strip_fillers(tokenize(raw_lower))
    words = [t for t in toks if t not in PUNCT]
    if quoted and len([w for w in words if w != QUOTE_TOKEN]) < 2:
        return None, "quote: the sentence is quoted text"
    if not words:
        return None, "chatter: no content words"
    if all(w in CHATTER for w in words):
        return None, "chatter: acknowledgement or small talk"
    if len(words) < 2:
        return None, "too short: a single word"
    pad = " " + " ".join(toks) + " "
    if _recall(toks, pad):
        return None, "recall request: asks what was said or decided before"
    cue = _cue(toks)
    if cue is not None:
        return _cue_verdict(*cue)
    question = _question(toks, pad)
    if question:
        polite = _polite_standing_request(toks)
        return polite if polite is not None else (None, question)
    reported = _reported(toks, pad)
    if reported:
        return None, reported
    label = _label(raw_lower)
    if label:
        return label
    if raw_lower.endswith((":", "：")) and any(t in RULE_HEADER_NOUNS for t in toks):
        return HEADER, "rule header introducing a list"
    verdict = _forms(toks, pad)
    if verdict[0] is None and verdict[1].startswith(("no statement form", "problem report")):
        for i, tok in enumerate(toks[:-2]):
            if (tok == ";" or (tok == "," and toks[i + 1] == "so")) and i > 1:
                rest = toks[i + 2 :] if tok == "," else toks[i + 1 :]
                kind, reason = directive_form(rest, " " + " ".join(rest) + " ", None, ignore_deictic=True) or (None, "")
                if kind is not None:
                    return kind, f"consequence clause: {reason}"
    return verdict


def is_recall(sentence: str) -> bool:
    toks = strip_fillers(tokenize(sentence.lower()))
    return _recall(toks, " " + " ".join(toks) + " ")


# --- rejections ----------------------------------------------------------------------------


def _recall(toks: list[str], pad: str) -> bool:
    if has_phrase(pad, RECALL_PHRASES) and ("?" in toks or not has_phrase(pad, ("you remember",))):
        return True
    if any(pad.startswith(f" {start} ") for start in RECALL_STARTS):
        return True
    # "what is our branch naming convention"
    if (
        len(toks) >= 3
        and toks[0] == "what"
        and toks[1] in ("is", "was", "are", "were")
        and toks[2] in ("our", "my", "the")
    ):
        return any(t in RECALL_NOUNS for t in toks[3:7])
    return False


def _question(toks: list[str], pad: str) -> str | None:
    if toks[-1] == "?":
        return "question: ends with '?'"
    first, second = toks[0], toks[1] if len(toks) > 1 else ""
    if first in QUESTION_STARTS:
        return f"question: starts with {first!r}"
    if first in AUX_QUESTION and second in PRONOUNS:
        return f"question: starts with {first + ' ' + second!r}"
    if first in ("maybe", "perhaps") or has_phrase(pad, HEDGES):
        return "question: hedged or uncertain"
    return None


def _polite_standing_request(toks: list[str]) -> Verdict | None:
    """ "Could you always run the formatter first?" is a standing request, not a question."""
    if len(toks) < 4 or toks[0] not in ("can", "could", "would", "will") or toks[1] != "you":
        return None
    rest = [t for t in toks[2:] if t not in ("please", "?")]
    if any(t in ("if", "whether", "why", "how", "what", "where", "which") for t in rest):
        return None
    pad = " " + " ".join(rest) + " "
    marker = standing_marker(pad)
    if not rest or not marker:
        return None
    kind, reason = _forms(rest, pad, standing=marker)
    if kind is None:
        return None
    return kind, f"polite standing request ({marker!r}): {reason}"


def _reported(toks: list[str], pad: str) -> str | None:
    if " according to " in pad:
        return "quote: reported words ('according to')"
    for i, tok in enumerate(toks[1:], 1):
        before = toks[i - 1]
        if (tok in REPORT_VERBS and before not in ("i", "we")) or (tok == "say" and before in PLURAL_REPORTERS):
            return f"quote: reported words ({before + ' ' + tok!r})"
    return None


def _label(raw_lower: str) -> Verdict | None:
    head, sep, body = raw_lower.partition(":")
    if sep and body.strip():
        word = head.strip().removesuffix("s")
        if word in LABELS:
            return LABELS[word], f"{LABELS[word]}: labelled {head.strip()!r}"
    return None


# --- explicit cues ---------------------------------------------------------------------------


def _cue(toks: list[str]) -> tuple[str, bool, list[str]] | None:
    for seq, strong in CUES:
        if starts_with(toks, seq):
            body = toks[len(seq) :]
            while body and body[0] in CUE_PUNCT:
                body = body[1:]
            if body[:1] == ["that"] and seq[-1] not in CUE_PUNCT:  # "keep in mind that …"
                body = body[1:]
            if seq == ("remember", "to"):
                body = ["to", *body]
            return " ".join(seq).replace(" :", ":").replace(" ,", ","), strong, body
    return None


def _cue_verdict(cue: str, strong: bool, body: list[str]) -> Verdict:
    words = [t for t in body if t not in PUNCT]
    if not words:
        return HEADER, f"explicit cue {cue!r} introducing a list"
    pad = " " + " ".join(body) + " "
    question = _question(body, pad)
    if question:
        return None, question
    kind, reason = _forms(body, pad) if body[0] != "to" else ("requirement", "")
    if not strong and kind is None:
        # "note: this is a hack", "remember the bug yesterday": a weak cue about the current work
        if reason.startswith("narration"):
            return None, reason
        deictic = deictic_word(body)
        if body[0] in DEICTIC_WORDS | {"this", "that"} or (deictic and not standing_marker(pad)):
            return None, f"one-off note: {cue!r} about the current work ({deictic or body[0]!r})"
    default = "requirement" if body[0] == "to" else "fact"
    return kind or default, f"explicit cue {cue!r}"


# --- statement forms ----------------------------------------------------------------------------


def _forms(toks: list[str], pad: str, standing: str | None = None) -> Verdict:
    """The statement forms, most specific first; ``standing`` is a frame found around the sentence."""
    for check in (_frame, preference_form, decision_form, conditional_form):
        verdict = check(toks, pad)
        if verdict is not None:
            return verdict
    directive = directive_form(toks, pad, standing)
    if directive is not None:
        return directive
    narration = narration_form(toks, pad)
    if narration:
        return None, narration
    habit = habit_form(toks)
    if habit is not None:
        return habit
    failure = failure_predicate(toks, pad)
    if failure:
        return None, f"failure complaint: {failure!r} describes a problem, not a rule"
    convention = convention_form(toks, pad)
    if convention is not None:
        return convention
    nouns = [t for t in toks if t in FAILURE_NOUNS]
    if nouns:
        return None, f"problem report: mentions {nouns[0]!r}"
    return None, "no statement form: not a rule, preference, decision or convention"


def _frame(toks: list[str], pad: str) -> Verdict | None:
    """A leading standing marker ("from now on, …") or scope ("in this repo, …")."""
    if toks[0] not in FRAME_FIRST:
        return None
    for frame in STANDING_FRAMES:
        if starts_with(toks, frame) and frame not in (("always",), ("never",)):
            rest = toks[len(frame) :]
            while rest and rest[0] in PUNCT:
                rest = rest[1:]
            marker = " ".join(frame)
            if not [t for t in rest if t not in PUNCT]:
                return HEADER, f"standing marker {marker!r} introducing a list"
            kind, reason = _forms(rest, " " + " ".join(rest) + " ", standing=marker)
            category = reason.split(":", 1)[0]
            if kind is None and category in ("narration", "failure complaint", "question", "quote"):
                return None, reason
            return kind or "requirement", f"standing marker {marker!r}" + (f": {reason}" if kind else "")
    for words in SCOPE_FRAMES:
        scope = " ".join(words)
        if starts_with(toks, words) and len(toks) > len(words) + 1 and toks[len(words)] == ",":
            rest = toks[len(words) + 1 :]
            rest_pad = " " + " ".join(rest) + " "
            kind, reason = _forms(rest, rest_pad)
            if kind is not None:
                return kind, f"scoped ({scope!r}): {reason}"
            if reason.startswith(("narration", "failure", "question", "quote", "one-off", "reaction")):
                return None, reason
            return "convention", f"convention: scoped statement ({scope!r})"
    return None
