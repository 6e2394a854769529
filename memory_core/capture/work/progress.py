"""Completed-work observations: one bounded ``progress`` source from a turn's tool results.

A turn becomes a progress source only when all of these hold:

* the user asked for work (:func:`work_request`): a message that is not a question, or a
  polite request phrased as one ("can you run the tests?"); a lookup in memory is not work;
* at least one *linked* operation (its result names its call id) is recognised work
  (:mod:`memory_core.capture.work.work_operations`): a commit, push, merge, test run, build,
  install, process run or file change. Pure lookups never qualify;
* memevo's own commands and tools, and any operation whose input or output mentions the
  state directory, are left out first, so memevo never learns from looking at itself.

What is kept is bounded: at most :data:`MAX_OBSERVATIONS` operations, the most important
ones (commits, pushes and merges, then test/build/process results, then installs, then
file changes, routine inspection last; a failure before a success of the same rank, then
the later one), shown in the order they ran. Each operation's input is at most
:data:`OPERATION_BYTES` and its output at most :data:`OUTPUT_BYTES`, head and tail kept (a
failure shows at the end); the whole source stays within :data:`SOURCE_BYTES`, dropping the
least important observations if it must. The text says how many were left out and whether
the turn finished: ``completion: interrupted`` when the final response failed, and then no
assistant report, because observed operations are evidence, not proof that the task is done.

This module decides and orders what is kept; :mod:`memory_core.capture.work.progress_text`
clips it and writes the text (its limits and :func:`clip_middle_bytes` are importable from
here too).

Everything here is the standard library: it runs in the per-turn hook.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from memory_core.capture.work.progress_text import (
    COMPLETED,
    INTERRUPTED,
    Observation,
    Resource,
    clean,
    clip_middle_bytes,
    render,
)
from memory_core.capture.work.progress_text import HEAD_SHARE as HEAD_SHARE
from memory_core.capture.work.progress_text import REPORT_BYTES as REPORT_BYTES
from memory_core.capture.work.progress_text import REQUEST_BYTES as REQUEST_BYTES
from memory_core.capture.work.progress_text import RESOURCE_BYTES as RESOURCE_BYTES
from memory_core.ids import sha256_hex

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from typing import Protocol

MAX_OBSERVATIONS = 8
OPERATION_BYTES = 1_024
OUTPUT_BYTES = 2_048
SOURCE_BYTES = 28_000
MAX_RESOURCES = 16
MAX_TOPIC_MESSAGES = 4

# Skip reasons (also shown by `memevo learning`).
NO_WORK_REQUEST = "no_work_request"
QUESTION = "question"
NO_WORK_OPERATION = "no_work_operation"
NO_LINKED_RESULT = "no_linked_result"
EXCLUDED = "excluded"


if TYPE_CHECKING:  # what the hook event's operations offer; a type only

    class OperationLike(Protocol):
        """One tool call and its result, as the hook event carries it."""

        @property
        def tool(self) -> str: ...
        @property
        def input(self) -> str: ...
        @property
        def output(self) -> str: ...
        @property
        def status(self) -> str: ...
        @property
        def call_id(self) -> str | None: ...
        @property
        def result_id(self) -> str | None: ...


# Record classes are tuples written out, not ``typing.NamedTuple`` (which compiles code for each
# class on every hook start and needs ``typing``; docs/hooks.md, "Cost").
class ProgressPlan(
    tuple[str, str, str, tuple[str, ...], tuple[Observation, ...], int, int, int, str, tuple[Resource, ...]]
):
    """A progress source ready to capture (once targets are nominated)."""

    __slots__ = ()

    def __new__(
        cls,
        text: str,
        identity: str,
        request: str,
        topics: tuple[str, ...],
        observations: tuple[Observation, ...],
        omitted: int,
        excluded: int,
        unlinked: int,
        completion: str,
        resources: tuple[Resource, ...],
    ) -> ProgressPlan:
        return tuple.__new__(
            cls, (text, identity, request, topics, observations, omitted, excluded, unlinked, completion, resources)
        )

    def __getnewargs__(self) -> tuple[object, ...]:
        return tuple(self)

    @property
    def text(self) -> str:
        return self[0]

    @property
    def identity(self) -> str:
        return self[1]

    @property
    def request(self) -> str:
        return self[2]

    @property
    def topics(self) -> tuple[str, ...]:
        return self[3]

    @property
    def observations(self) -> tuple[Observation, ...]:
        return self[4]

    @property
    def omitted(self) -> int:
        return self[5]

    @property
    def excluded(self) -> int:
        return self[6]

    @property
    def unlinked(self) -> int:
        return self[7]

    @property
    def completion(self) -> str:
        return self[8]

    @property
    def resources(self) -> tuple[Resource, ...]:
        return self[9]


class ProgressSkip(tuple[str]):
    """Why a turn is not a progress source."""

    __slots__ = ()

    def __new__(cls, reason: str) -> ProgressSkip:
        return tuple.__new__(cls, (reason,))

    def __getnewargs__(self) -> tuple[object, ...]:
        return tuple(self)

    @property
    def reason(self) -> str:
        return self[0]


# -- the user's request ------------------------------------------------------------------------

_POLITE = re.compile(
    r"(?i)^\s*(?:please|pls|kindly|can you|could you|would you|will you|can we|could we|shall we|"
    r"would you mind|mind|let's|lets|go ahead|now)\b"
)
_ZH_POLITE = re.compile(r"^\s*(?:请|帮我|帮忙|麻烦|能不能帮|能否帮|可以帮|你能帮|你可以帮|现在)")
_QUESTION_END = re.compile(r"(?:[?？]|吗[。.！!]?|呢[。.]?)\s*$")
_MEMORY_LOOKUP = re.compile(
    r"(?i)\b(?:do|did) you (?:still )?remember\b|\bwhat do you (?:remember|know) about\b|"
    r"\bwhat did (?:we|i) (?:decide|say|agree)\b|还记得|记得.{0,40}吗|之前.{0,20}(?:说|决定).{0,20}什么"
)


def is_question(text: str) -> bool:
    """A message that asks rather than requests (a memory lookup is always a question)."""
    stripped = text.strip()
    if _MEMORY_LOOKUP.search(stripped):
        return True
    return bool(_QUESTION_END.search(stripped)) and not (_POLITE.match(stripped) or _ZH_POLITE.match(stripped))


def work_request(messages: Sequence[str]) -> str | None:
    """The latest message of the turn that asks for work, or ``None``."""
    for text in reversed(messages):
        if text.strip() and not is_question(text):
            return text.strip()
    return None


# -- selecting and bounding observations ---------------------------------------------------------


def _linked(op: OperationLike) -> bool:
    return bool(op.call_id) and op.call_id == op.result_id


def _state_markers(state_dir: Path | None) -> tuple[str, ...]:
    if state_dir is None:
        return ()
    forms = {str(state_dir), os.path.realpath(state_dir), os.path.abspath(state_dir)}
    home = os.path.expanduser("~")
    for form in list(forms):
        if home not in ("", "/") and form.startswith(home + os.sep):
            forms.add("~" + form[len(home) :])
    return tuple(sorted(f.rstrip("/") for f in forms if f.rstrip("/")))


def _touches(op: OperationLike, markers: tuple[str, ...]) -> bool:
    return any(m in op.input or m in op.output for m in markers)


def _observation(position: int, op: OperationLike, category: str) -> Observation:
    operation = clip_middle_bytes(f"{op.tool}: {clean(op.input)}", OPERATION_BYTES, head_share=0.6)
    return Observation(
        position=position,
        tool=op.tool,
        category=category,
        status=op.status,
        operation=operation,
        output=clip_middle_bytes(clean(op.output), OUTPUT_BYTES),
        failed=op.status != "ok",
    )


def _rank(observation: Observation) -> tuple[int, int, int]:
    return observation.importance, int(observation.failed), observation.position


def select(observations: Sequence[Observation], limit: int = MAX_OBSERVATIONS) -> list[Observation]:
    """The ``limit`` most important observations, in the order they ran."""
    kept = sorted(observations, key=_rank, reverse=True)[:limit]
    return sorted(kept, key=lambda o: o.position)


# -- resources ----------------------------------------------------------------------------------

_CD_IN_TEXT = re.compile(r"(?:^|[\s;&|(`])cd\s+([^\s;&|)`]+)")
_GIT_C_IN_TEXT = re.compile(r"\bgit\s+-C\s+([^\s;&|)`]+)")


def checkout_root(path: str, max_depth: int = 40) -> str | None:
    """The nearest directory at or above ``path`` holding ``.git``, if any."""
    current = path if os.path.isdir(path) else os.path.dirname(path)
    for _ in range(max_depth):
        if not current:
            return None
        try:
            if os.path.exists(os.path.join(current, ".git")):
                return current
        except OSError:
            return None
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent
    return None


def _resource(how: str, raw: str, cwd: str, markers: tuple[str, ...]) -> Resource | None:
    text = raw.strip().strip("'\"")
    if not text or text == "-":
        return None
    expanded = os.path.expanduser(text)
    if not os.path.isabs(expanded):
        if how == "mentioned" or not cwd:
            return None
        expanded = os.path.join(cwd, expanded)
    path = os.path.normpath(expanded)
    if any(path == m or path.startswith(m.rstrip("/") + "/") for m in markers if m.startswith("/")):
        return None
    root = checkout_root(path)
    if root is not None:
        return Resource(how, path, root, True)
    directory = path if (how != "file" or os.path.isdir(path)) else os.path.dirname(path)
    return Resource(how, path, directory, False)


def resources_of(
    messages: Sequence[str], readings: Sequence[tuple[str, str]], cwd: str, markers: tuple[str, ...] = ()
) -> tuple[Resource, ...]:
    """Explicit resources: ``cd``/``git -C`` and paths in the user's words, and the directories
    and files operations named in their *input*. The working directory alone is none."""
    from memory_core.capture.work.work_operations import absolute_paths

    unique: dict[tuple[str, str], Resource] = {}

    def named(how: str, raw: str, base: str) -> bool:
        """Keep one resource; True once :data:`MAX_RESOURCES` are found (the rest is not read:
        a turn can name thousands of files, and each costs a look for its checkout)."""
        resource = _resource(how, raw, base, markers)
        if resource is not None:
            unique.setdefault((resource.how, resource.path), resource)
        return len(unique) >= MAX_RESOURCES

    def scan() -> None:
        for text in messages:
            for how, pattern in (("cd", _CD_IN_TEXT), ("git -C", _GIT_C_IN_TEXT)):
                for match in pattern.finditer(text):
                    if named(how, match.group(1), ""):
                        return
            for path in absolute_paths(text):
                if named("mentioned", path, ""):
                    return
        for how, raw in readings:
            if named(how, raw, cwd):
                return

    scan()
    return tuple(unique.values())


# -- the plan -----------------------------------------------------------------------------------


def plan_progress(
    messages: Sequence[str],
    operations: Sequence[OperationLike],
    *,
    final_message: str | None,
    ended_in_error: bool,
    cwd: str = "",
    state_dir: Path | None = None,
) -> ProgressPlan | ProgressSkip:
    """A bounded progress source for this turn, or why there is none.

    ``messages`` are the user's own messages of the turn (feedback messages already taken
    out), oldest first; ``operations`` the turn's tool calls in the order they were made.
    """
    request = work_request(messages)
    if request is None:
        asked = any(m.strip() and is_question(m) for m in messages)
        return ProgressSkip(QUESTION if asked else NO_WORK_REQUEST)
    if not operations:  # what the loop below concludes for none, without loading their reader
        return ProgressSkip(NO_WORK_OPERATION)
    from memory_core.capture.work.work_operations import IMPORTANCE, read_operation

    markers = _state_markers(state_dir)
    candidates: list[Observation] = []
    directories: list[tuple[str, str]] = []
    excluded = unlinked = 0
    excluded_work = unlinked_work = False
    call_ids: list[str] = []
    for position, op in enumerate(operations):
        reading = read_operation(op.tool, op.input)
        if reading.own or _touches(op, markers):
            excluded += 1
            excluded_work = True
            continue
        directories.extend(reading.directories)
        if not _linked(op):
            unlinked += 1
            unlinked_work = unlinked_work or reading.is_work
            continue
        call_ids.append(str(op.call_id))
        # Ranked by category, status and position only: the texts are cleaned (redaction is
        # the costly part) for the kept few, so a turn of thousands of calls stays cheap.
        candidates.append(Observation(position, op.tool, reading.category, op.status, "", "", op.status != "ok"))
    if not any(IMPORTANCE[o.category] > IMPORTANCE["inspect"] for o in candidates):
        if excluded_work:
            return ProgressSkip(EXCLUDED)
        return ProgressSkip(NO_LINKED_RESULT if unlinked_work else NO_WORK_OPERATION)
    completion = INTERRUPTED if ended_in_error else COMPLETED
    report = None if ended_in_error or not final_message else final_message
    topics = tuple(m.strip() for m in messages if m.strip() and not is_question(m))[-MAX_TOPIC_MESSAGES:]
    resources = resources_of(topics, directories, cwd, markers)
    kept = [_observation(o.position, operations[o.position], o.category) for o in select(candidates)]
    text = render(request, kept, resources, completion, report, len(candidates), excluded, unlinked)
    while len(text.encode("utf-8")) > SOURCE_BYTES and len(kept) > 1:
        weakest = min(kept, key=_rank)  # the whole source must fit: drop the least important
        kept = [o for o in kept if o is not weakest]
        text = render(request, kept, resources, completion, report, len(candidates), excluded, unlinked)
    identity = sha256_hex("\x00".join([request, *call_ids]).encode("utf-8"))[:32]
    return ProgressPlan(
        text=text,
        identity=identity,
        request=request,
        topics=topics,
        observations=tuple(kept),
        omitted=len(candidates) - len(kept),
        excluded=excluded,
        unlinked=unlinked,
        completion=completion,
        resources=resources,
    )
