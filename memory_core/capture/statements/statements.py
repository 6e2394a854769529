"""Which user messages state a standing requirement, preference, decision or convention.

A small, explainable classifier (patterns plus features, no model call) run by the
``turn_end`` hook on the user's own messages only. It answers, for one message, whether
it holds a statement worth remembering (``kind``), why or why not (``reason``) and which of
the user's words are captured (``text``). See ``docs/statements.md``.

Work is bounded: only the first :data:`MAX_SCAN_CHARS` characters and at most
:data:`MAX_UNITS` sentences of a message are looked at, and a sentence longer than
:data:`MAX_UNIT_CHARS` is not a statement. Fenced code, quoted (``>``) lines, pasted logs
and code-like lines are skipped; a message that is mostly such text is not classified.

The rules per sentence live in ``statement_en`` and ``statement_zh``; this module splits a
message into sentences, picks the language and assembles the decision.
"""

from __future__ import annotations

import re
from types import ModuleType

from memory_core.capture.statements import statement_en
from memory_core.capture.statements.statement_reference import refers_back
from memory_core.capture.statements.statement_text import HEADER, fold

MAX_SCAN_CHARS = 8_192
MAX_UNITS = 48
MAX_UNIT_CHARS = 400
NONPROSE_SHARE = 0.6  # more pasted text than this (and at least NONPROSE_MIN chars): skipped
NONPROSE_MIN = 80

KINDS = ("requirement", "preference", "decision", "convention", "fact")


class SentenceDecision:
    """One sentence (or list item) of a message, ``text[start:end]``, and how it was classified."""

    __slots__ = ("start", "end", "kind", "reason")

    def __init__(self, start: int, end: int, kind: str | None, reason: str) -> None:
        self.start, self.end, self.kind, self.reason = start, end, kind, reason

    def __repr__(self) -> str:
        return f"SentenceDecision({self.start}, {self.end}, {self.kind!r}, {self.reason!r})"


class StatementDecision:
    """The verdict for a whole message.

    ``kind`` is one of :data:`KINDS` when the message holds a statement (of its first such
    sentence), else ``None``; ``reason`` names the rule that fired or why nothing did;
    ``text`` is the captured part of the message in the user's own words ('' if none);
    ``sentences`` are the per-sentence decisions; ``scanned_chars`` is how much was read.
    """

    __slots__ = ("kind", "reason", "text", "sentences", "scanned_chars")

    def __init__(
        self,
        kind: str | None,
        reason: str,
        text: str = "",
        sentences: tuple[SentenceDecision, ...] = (),
        scanned_chars: int = 0,
    ) -> None:
        self.kind, self.reason, self.text = kind, reason, text
        self.sentences, self.scanned_chars = sentences, scanned_chars

    @property
    def captured(self) -> bool:
        return self.kind is not None

    def __repr__(self) -> str:
        return f"StatementDecision(kind={self.kind!r}, reason={self.reason!r}, text={self.text!r})"


class _Unit:
    __slots__ = ("start", "end", "item", "block")

    def __init__(self, start: int, end: int, item: bool, block: int) -> None:
        self.start, self.end = start, end
        self.item = item  # a list item ("- …", "1. …")
        self.block = block  # units separated by a blank or skipped line are in different blocks


# The text is matched after folding (see _FOLD), so every pattern here is ASCII. A full-width
# 。！？ becomes U+E000 (a private-use character) and ends a sentence without a following space.
_FOLD = (
    ("。", "\ue000"),
    ("！", "\ue000"),
    ("？", "\ue000"),
    ("•", "*"),
    ("、", ","),
    ("（", "("),
    ("）", ")"),
    ("＞", ">"),
)
_LIST_MARK = re.compile(r"\s*(?:[-*+]|\d{1,3}[.),]|\(\d{1,3}\))\s+")
# A sentence ends at . ! ? followed by a space, or right after a folded 。！？.
_SENTENCE_END = re.compile(r"[.!?]+(?=\s)|\ue000+")
# Lines that are not prose typed by the user: logs, stack traces, shell, diff and test output.
_LOG_PREFIXES = (
    "Traceback (most recent call last)",
    "npm ERR!",
    "npm WARN",
    "$ ",
    ">>> ",
    "+++ ",
    "--- ",
    "@@ ",
    "diff --git",
    "===",
    "---",
    "***",
    "___",
    "E  ",
    "[INFO]",
    "[DEBUG]",
    "[WARN",
    "[ERROR]",
    "[FATAL]",
    "[TRACE]",
    "[CRITICAL]",
    "[NOTICE]",
    "error: ",
    "error[",
    "warning: ",
    "warning[",
    "at ",
    'File "',
    "│",
    "├",
    "└",
    "┌",
)
_LOG_LEVELS = frozenset(
    ("INFO", "DEBUG", "WARN", "WARNING", "ERROR", "FATAL", "TRACE", "CRITICAL", "PASSED", "FAILED", "SKIPPED")
)
_LOG_LINE = re.compile(
    r"\[?\d{4}-\d\d-\d\d[T ]\d|\[?\d\d?:\d\d:\d\d|[A-Za-z_][\w.]*(?:Error|Exception|Warning)(?::|$)"
    r"|\d+ passed\b"
)
_CODE_LINE = re.compile(
    r"def \w+\(|class \w+[(:{]|(?:async )?function\b[^(]*\(|func \w+\(|fn \w+[(<]"
    r"|(?:pub|public|private|protected) (?:fn|static|class|void|int|final|struct|enum)\b"
    r"|(?:package|import) [\w.]+(?: as \w+)?;?$|from [\w.]+ import |return(?: [\w.()\[\]\"']+)?;?$"
    r"|(?:const|let|var) \w+\s*=|#include|@\w+\(|[{}\[\]()];?$|[\w.\[\]]+\s*[-+*/]?=\s*\S"
    r"|</?[\w-]+(?:\s[^>]*)?>$"
)
_DROP_CODE_CHARS = str.maketrans("", "", "{}[]<>=;$|\\&#@^~*/_`")
_NOT_ALNUM = re.compile(r"[\W_]+")
_JOINABLE_GAP = re.compile(r"[\s\-*•+\d.)、]*")
_LATIN_WORD = re.compile(r"[A-Za-z]+")


def classify_statement(text: str) -> StatementDecision:
    """Classify one user message; see the module docstring."""
    scanned = text[:MAX_SCAN_CHARS]
    units, prose, nonprose = _segment(fold(scanned, _FOLD))
    if nonprose >= NONPROSE_MIN and nonprose > NONPROSE_SHARE * (prose + nonprose):
        return StatementDecision(None, "pasted text: mostly log, code or quoted lines", "", (), len(scanned))
    if not units:
        reason = "pasted text: only log, code or quoted lines" if nonprose else "empty"
        return StatementDecision(None, reason, "", (), len(scanned))
    decisions = _classify_units(scanned, units)
    positive = [d for d in decisions if d.kind is not None]
    if not positive:
        return StatementDecision(None, _rejection_summary(decisions), "", tuple(decisions), len(scanned))
    first = positive[0]
    reason = first.reason if len(positive) == 1 else f"{first.reason} (+{len(positive) - 1} more)"
    captured = _captured_text(scanned, _with_referents(scanned, decisions))
    return StatementDecision(first.kind, reason, captured, tuple(decisions), len(scanned))


def is_recall_request(text: str) -> bool:
    """True when a sentence of the message asks to recall something ("do you remember …?")."""
    scanned = text[:MAX_SCAN_CHARS]
    units, _, _ = _segment(fold(scanned, _FOLD))
    for unit in units:
        sentence = scanned[unit.start : unit.end]
        if _rules_for(sentence).is_recall(sentence):
            return True
    return False


def _classify_units(text: str, units: list[_Unit]) -> list[SentenceDecision]:
    decisions: list[SentenceDecision] = []
    header: tuple[int, str, str] | None = None  # (index, default kind, header text) of an open list header
    for unit in units:
        sentence = text[unit.start : unit.end]
        if len(sentence) > MAX_UNIT_CHARS:
            kind, reason = None, f"too long: a sentence over {MAX_UNIT_CHARS} characters is not a statement"
        else:
            kind, reason = _rules_for(sentence).classify(sentence)
        if header is not None and (not unit.item or units[header[0]].block != unit.block):
            header = None
        if kind == HEADER:
            default = "fact" if "cue" in reason else "requirement"
            header = (len(decisions), default, sentence)
            decisions.append(SentenceDecision(unit.start, unit.end, None, reason))
            continue
        if header is not None and kind is None and not _blocks_list_item(reason):
            kind, reason = header[1], f"item under the header {header[2].strip()!r}"
        if header is not None and kind is not None:
            index = header[0]
            head = decisions[index]
            if head.kind is None:
                head.kind, head.reason = kind, f"header of a list: {head.reason}"
        decisions.append(SentenceDecision(unit.start, unit.end, kind, reason))
    return decisions


def _blocks_list_item(reason: str) -> bool:
    """Rejections that still hold under a list header."""
    return reason.split(":", 1)[0] in ("question", "recall request", "quote", "too short", "chatter", "too long")


def _rejection_summary(decisions: list[SentenceDecision]) -> str:
    if len(decisions) == 1:
        return decisions[0].reason
    categories: list[str] = []
    for decision in decisions:
        category = decision.reason.split(":", 1)[0]
        if category not in categories:
            categories.append(category)
    return f"no statement in {len(decisions)} sentences ({', '.join(categories[:4])})"


def _with_referents(text: str, decisions: list[SentenceDecision]) -> list[SentenceDecision]:
    """The statement sentences, each one that refers back ("it now listens on …") preceded
    by the sentence before it, which says what "it" is (statement_reference.py)."""
    chosen: list[SentenceDecision] = []
    for index, decision in enumerate(decisions):
        if decision.kind is None:
            continue
        before = decisions[index - 1] if index else None
        if (
            before is not None
            and before.kind is None
            and (not chosen or chosen[-1] is not before)
            and refers_back(text[decision.start : decision.end])
        ):
            chosen.append(before)
        chosen.append(decision)
    return chosen


def _captured_text(text: str, positive: list[SentenceDecision]) -> str:
    """The positive sentences in the user's words; neighbours are kept as one span."""
    spans: list[list[int]] = []
    for decision in positive:
        if spans and _JOINABLE_GAP.fullmatch(text, spans[-1][1], decision.start):
            spans[-1][1] = decision.end
        else:
            spans.append([decision.start, decision.end])
    return "\n".join(text[start:end].strip() for start, end in spans)


def _rules_for(sentence: str) -> ModuleType:
    """The Chinese rules when CJK characters outnumber Latin words, else the English ones.

    The Chinese rules are imported on the first Chinese sentence, so English-only turns
    never pay for compiling their patterns.
    """
    if sentence.isascii():
        return statement_en
    cjk = sum(1 for char in sentence if "\u3400" <= char <= "\u9fff" or "\uf900" <= char <= "\ufaff")
    if cjk >= 2 and cjk >= len(_LATIN_WORD.findall(sentence)):
        from memory_core.capture.statements import statement_zh

        return statement_zh
    return statement_en


def _segment(text: str) -> tuple[list[_Unit], int, int]:
    """Prose sentences of ``text`` (bounded by :data:`MAX_UNITS`), prose and skipped char counts."""
    units: list[_Unit] = []
    prose = nonprose = 0
    block = 0
    in_fence = False
    pos, size = 0, len(text)
    while pos < size and len(units) < MAX_UNITS:
        newline = text.find("\n", pos)
        end = size if newline < 0 else newline
        line = text[pos:end]
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            in_fence = not in_fence
            nonprose += len(stripped)
            block += 1
        elif in_fence or (stripped and _is_nonprose(line, stripped)):
            nonprose += len(stripped)
            block += 1
        elif not stripped:
            block += 1
        else:
            prose += len(stripped)
            mark = _LIST_MARK.match(line)
            offset = mark.end() if mark else len(line) - len(line.lstrip())
            _split_sentences(line, offset, pos, bool(mark), block, units)
        pos = end + 1
    return units, prose, nonprose


def _split_sentences(line: str, offset: int, base: int, item: bool, block: int, units: list[_Unit]) -> None:
    start = offset
    for match in _SENTENCE_END.finditer(line, offset):
        if len(units) >= MAX_UNITS:
            return
        if line[start : match.end()].strip():
            units.append(_trimmed(line, start, match.end(), base, item, block))
        start = match.end()
    if line[start:].strip() and len(units) < MAX_UNITS:
        units.append(_trimmed(line, start, len(line), base, item, block))


def _trimmed(line: str, start: int, end: int, base: int, item: bool, block: int) -> _Unit:
    while start < end and line[start].isspace():
        start += 1
    while end > start and line[end - 1].isspace():
        end -= 1
    return _Unit(base + start, base + end, item, block)


def _log_prefix_fits(stripped: str) -> bool:
    """``at …`` and ``File "…"`` open log lines only in their stack-trace shape."""
    if stripped.startswith("at "):
        head = stripped[3:].split("(", 1)[0]
        return stripped.endswith(")") and ":" in stripped and " " not in head.strip()
    if stripped.startswith('File "'):
        return '", line ' in stripped
    return True


def _is_nonprose(line: str, stripped: str) -> bool:
    """Quoted, indented, log-like or code-like lines (the user pasted them, not wrote them)."""
    if stripped.startswith(">") or (line.startswith(("    ", "\t")) and not _LIST_MARK.match(line)):
        return True
    if stripped.startswith(_LOG_PREFIXES) and _log_prefix_fits(stripped):
        return True
    level = stripped.split(" ", 1)[0].strip("[]:|-")
    if (
        (level in _LOG_LEVELS and stripped[len(level) : len(level) + 1] in (" ", ":", "]", "|", "-"))
        or _LOG_LINE.match(stripped)
        or _CODE_LINE.match(stripped)
    ):
        return True
    mark = _LIST_MARK.match(line)
    compact = (line[mark.end() :] if mark else stripped).replace(" ", "")
    if len(compact) < 8:
        return False
    words = len(_NOT_ALNUM.sub("", compact))
    symbols = len(compact) - len(compact.translate(_DROP_CODE_CHARS))
    return words < 0.5 * len(compact) or symbols > 0.25 * len(compact)
