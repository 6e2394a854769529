"""Chinese sentence rules for :mod:`memory_core.capture.statements.statements`.

Chinese has no spaces to split words on, so the features are marker words found in the
sentence (whitespace removed, punctuation folded to ASCII): "以后", "每次", "必须", "不要",
"吗" … Marker lists are tuples searched with ``str.find``; only a few structural patterns
are regular expressions (see ``statement_text``). :func:`classify` returns ``(kind,
reason)`` like the English rules; the order of the checks is the explanation: recall,
explicit cue, question, quote, chatter, preference, decision, rule (strong modal,
prohibition, standing marker), narration, complaint, convention, one-off task. The feature
finders (standing marker, prohibition, modal, preference …) are in ``statement_zh_features``
and the marker tables and patterns themselves in ``statement_zh_words``.
"""

from __future__ import annotations

from memory_core.capture.statements.statement_text import HEADER, TO_ASCII, Verdict, any_of, ends_with, fold
from memory_core.capture.statements.statement_zh_features import (
    convention_marker,
    decision_marker,
    deictic_marker,
    failure_marker,
    past_marker,
    past_verb,
    preference_marker,
    prohibition_marker,
    standing_marker,
    topic_comment,
    weak_modal,
)
from memory_core.capture.statements.statement_zh_words import (
    A_NOT_A,
    CHATTER,
    COLON_CUES,
    CONCESSIVES,
    CUES,
    DEFERRAL,
    FILLER_PUNCT,
    FILLERS,
    FREE_FILLERS,
    HEADER_NOUNS,
    HEDGES,
    INTERROGATIVES,
    LABEL_KINDS,
    LIST_LEADS,
    NEG_CHATTER,
    ONE_OFF,
    ONLY,
    POLICY_STARTS,
    POLITE_TAGS,
    QUESTION_ENDS,
    QUESTION_STARTS,
    QUOTE_MARK,
    QUOTED,
    RECALL,
    RECALL_SAID,
    REPORT_PLACES,
    REPORT_VERBS,
    REPORTERS,
    SCOPES,
    SPACE,
    STANDING_EACH,
    STRONG,
    TASK_STARTS,
    TRAILING,
)


def classify(sentence: str) -> Verdict:
    """``(kind, reason)`` for one Chinese sentence; see the module docstring."""
    quoted_only, text = _prepare(sentence)
    if quoted_only:
        return None, "quote: the sentence is quoted text"
    core = text.rstrip(TRAILING)
    if not core or _is_chatter(core):
        return None, "chatter: acknowledgement or small talk"
    if len(core) < 3:
        return None, "too short: fewer than three characters"
    if _recall(core):
        return None, "recall request: asks what was said or decided before"
    cue = _cue(core)
    if cue is not None:
        return cue
    question = _question(core)
    if question:
        asked = core.rstrip("?")
        polite = ends_with(asked, POLITE_TAGS)
        if polite and standing_marker(core):
            kind, reason = _forms(asked[: -len(polite)])
            if kind is not None:
                return kind, f"polite standing request: {reason}"
        return None, question
    reported = _reported(core)
    if reported:
        return None, f"quote: reported words ({reported!r})"
    if text.endswith(":") and any_of(text[-10:], HEADER_NOUNS):
        return HEADER, "rule header introducing a list"
    if core[2:3] == ":" and core[:2] in LABEL_KINDS:
        kind = LABEL_KINDS[core[:2]]
        return kind, f"{kind}: labelled {core[:2]!r}"
    return _forms(core)


def is_recall(sentence: str) -> bool:
    return _recall(SPACE.sub("", fold(sentence, TO_ASCII)))


# --- preparing ---------------------------------------------------------------------------


def _prepare(sentence: str) -> tuple[bool, str]:
    folded = fold(sentence, TO_ASCII)
    replaced = QUOTED.sub(QUOTE_MARK, folded)
    text = SPACE.sub("", replaced).replace("`", "")
    if replaced != folded and len(text.replace(QUOTE_MARK, "").strip(TRAILING)) < 3:
        return True, text
    changed = True
    while changed:
        changed = False
        for filler in FILLERS:
            if text.startswith(filler):
                rest = text[len(filler) :]
                if rest and (rest[0] in FILLER_PUNCT or filler in FREE_FILLERS) and rest.lstrip(FILLER_PUNCT):
                    text = rest.lstrip(FILLER_PUNCT)
                    changed = True
                    break
    return False, text


def _is_chatter(core: str) -> bool:
    rest = core
    while rest:
        rest = rest.lstrip(FILLER_PUNCT)
        if not rest.startswith(CHATTER):
            return not rest
        word = next(w for w in CHATTER if rest.startswith(w))
        rest = rest[len(word) :]
    return True


# --- rejections and cues ----------------------------------------------------------------


def _recall(core: str) -> bool:
    if any_of(core, RECALL) or RECALL_SAID.search(core):
        return True
    pos = core.find("记得")
    return pos >= 0 and any(p in core[pos + 2 : pos + 43] for p in ("吗", "么", "嘛"))


def _cue(core: str) -> Verdict | None:
    for cue, strong in CUES:
        start = 1 if core.startswith("请") and not cue.startswith("请") else 0
        if core.startswith(cue, start):
            return _cue_body(cue, strong, core[start + len(cue) :].lstrip(":,"))
    for cue in COLON_CUES:
        if core.startswith(cue) and core[len(cue) : len(cue) + 1] == ":":
            return _cue_body(cue, True, core[len(cue) + 1 :])
    return None


def _cue_body(cue: str, strong: bool, body: str) -> Verdict:
    if not body or (body.startswith(LIST_LEADS) and len(body) <= 6):
        return HEADER, f"explicit cue {cue!r} introducing a list"
    question = _question(body)
    if question:
        return None, question
    kind, reason = _forms(body)
    if not strong and kind is None and reason.startswith(("one-off", "narration", "failure")):
        return None, reason
    return kind or "fact", f"explicit cue {cue!r}"


def _question(core: str) -> str | None:
    if core.endswith(QUESTION_ENDS):
        return "question: ends with a question mark or particle"
    if core.startswith(QUESTION_STARTS):
        return "question: starts with an interrogative"
    asked = any_of(_without_concessive(core), INTERROGATIVES)
    if asked and not (any_of(core, STRONG) or prohibition_marker(core) or weak_modal(core)):
        return f"question: interrogative {asked!r}"
    found = any_of(core, A_NOT_A)
    if found:
        return f"question: {found!r}"
    if core.startswith(HEDGES):
        return "question: hedged or uncertain"
    return None


def _without_concessive(core: str) -> str:
    """ "不管改什么" is "whatever is changed", not a question: drop that clause's question word."""
    for word in CONCESSIVES:
        pos = core.find(word)
        if pos >= 0:
            clause = core[pos : pos + 12].split(",")[0]
            for asked in INTERROGATIVES:
                clause = clause.replace(asked, "")
            core = core[:pos] + clause + core[pos + len(core[pos : pos + 12].split(",")[0]) :]
    return core


def _reported(core: str) -> str | None:
    for verb in REPORT_VERBS:
        start = core.find(verb)
        while start >= 0:
            before, after = core[:start], core[start + len(verb) :]
            if not after.startswith(("一声", "一下")):
                stem = before
                for place in REPORT_PLACES:
                    if stem.endswith(place):
                        stem = stem[: -len(place)]
                        break
                reporter = ends_with(stem, REPORTERS)
                if reporter:
                    return before[len(stem) - len(reporter) :] + verb
            start = core.find(verb, start + 1)
    return None


# --- the forms ------------------------------------------------------------------------------


def _forms(core: str) -> Verdict:
    """The statement forms for a sentence that is not a question, quote or recall request."""
    for chatter in NEG_CHATTER:
        if core.startswith(chatter):
            return None, f"chatter: {chatter!r}"
    deferral = any_of(core, DEFERRAL)
    if deferral:
        return None, f"one-off: deferral ({deferral!r}), not a standing rule"
    deictic = deictic_marker(core)
    preference = preference_marker(core)
    if preference and (preference[0] <= 4 or core[preference[0] - 1] in ",;:"):
        rest = core[preference[1] :]
        said = preference[2]
        rest_deictic = deictic_marker(rest)
        if (
            not rest
            or (rest_deictic and rest_deictic[0] == 0)
            or rest.startswith(("这样", "的"))
            or failure_marker(rest)
        ):
            return None, f"reaction: {said!r} about the current work"
        if deictic and not standing_marker(core):
            return None, f"one-off request: {said!r} refers to {deictic[1]!r}"
        return "preference", f"preference: {said!r}"
    decision = decision_marker(core)
    if decision:
        if deictic and not standing_marker(core):
            return None, f"one-off decision: refers to {deictic[1]!r}"
        return "decision", f"decision: {decision!r}"
    rule = _rule(core, deictic)
    if rule is not None:
        return rule
    past = past_marker(core)
    if past:
        return None, f"narration: past event ({past!r})"
    failure = failure_marker(core)
    if failure:
        return None, f"failure complaint: {failure!r} describes a problem, not a rule"
    convention = convention_marker(core)
    if convention and not (deictic and deictic[1] in ("这次", "这回", "一下", "刚才")):
        return "convention", f"convention: {convention!r}"
    one_off = any_of(core, ONE_OFF)
    if one_off:
        return None, f"one-off task: {one_off!r} without a standing marker"
    policy = next((word for word in POLICY_STARTS if core.startswith(word)), None)
    if policy and not deictic:
        return "requirement", f"standing instruction: {policy!r}"
    topic = topic_comment(core)
    if topic and not deictic:
        return "convention", f"convention: '{topic}…' (topic + practice)"
    weak = weak_modal(core)
    if (
        weak
        and weak[0] >= 2
        and not deictic
        and not (core.startswith("你") or (core.startswith("我") and not core.startswith("我们")))
    ):
        return "requirement", f"requirement: modal {weak[1]!r}"
    if core.startswith(TASK_STARTS):
        return None, f"one-off task: imperative {core[:2]!r} without a standing marker"
    scope = any_of(core, SCOPES)
    if scope and not deictic:
        return "convention", f"convention: scoped statement ({scope!r})"
    return None, "no statement form: not a rule, preference, decision or convention"


def _rule(core: str, deictic: tuple[int, str] | None) -> Verdict | None:
    """Strong modals, prohibitions and standing markers, checked before narration/complaints."""
    standing = standing_marker(core)
    strong = any_of(core, STRONG) or ("只有" if ONLY.search(core) else None)
    prohibition = prohibition_marker(core)
    weak = weak_modal(core)
    failure = failure_marker(core)
    if strong and not (strong.startswith("一定") and "一定是" in core):
        if deictic and not standing:
            return None, f"one-off requirement: {strong!r} refers to {deictic[1]!r}"
        return "requirement", f"requirement: {strong!r}"
    if prohibition in ("不能", "不用") and (failure or not (standing or weak)):
        prohibition = None  # "不能用" (broken) or "不用了" (no need): not a rule by themselves
    if prohibition:
        if deictic and not standing:
            return None, f"one-off instruction: {prohibition!r} refers to {deictic[1]!r}"
        return "requirement", f"prohibition: {prohibition!r}"
    if standing:
        if failure and not weak:
            return None, f"failure complaint: {failure!r} (with {standing!r})"
        past = past_verb(core)
        if past and not weak:
            return None, f"narration: past event ({past!r})"
        one_off = any_of(core, ONE_OFF)
        if one_off and not weak and standing in STANDING_EACH:
            return None, f"one-off task: {one_off!r}"
        return "requirement", f"standing rule: {standing!r}"
    return None
