"""The topic a follow-up request carries from the previous one of its session.

"commit the login fix", then "now push it": the second request has no words of its own to
name the project state it updates, so nomination (:mod:`.progress_targets`) found nothing
and the push was never learned. A request carries the previous request's topic when it continues
the conversation's subject as recall reads a follow-up
(:func:`memory_core.text.follow_up.continues_subject`: nothing topical, no subject word, or
short and saying "it"), or when it names nothing beyond the words of any progress report
(push, commit, test, 推送 …). Never across a reset ("new topic", "换个话题").

The previous requests are those of the session's progress sources, newest first: the
request line each one recorded (sanitized, as stored).
"""

from __future__ import annotations

from collections.abc import Sequence

from memory_core.capture.intake import captured_texts

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from memory_core.store.engines.dbapi import DbConn

# How many earlier requests of the session are looked at (recall replays as many texts).
MAX_EARLIER = 6
_REQUEST = "request: "


def earlier_requests(conn: DbConn, agent: str, session_id: str | None, limit: int = MAX_EARLIER) -> list[str]:
    """The requests of the session's last ``limit`` progress sources, oldest first."""
    if not session_id:
        return []
    found = []
    for text in captured_texts(conn, agent, session_id, "progress", limit=limit):
        line = next((line for line in text.splitlines() if line.startswith(_REQUEST)), None)
        if line is not None and line[len(_REQUEST) :].strip():
            found.append(line[len(_REQUEST) :].strip())
    found.reverse()
    return found


def carried_topic(request: str, own_topics: Sequence[str], earlier: Sequence[str]) -> str | None:
    """The earlier request whose topic ``request`` continues, or ``None`` when it names its own."""
    if not earlier:
        return None
    from memory_core.capture.work.progress_targets import subject_features
    from memory_core.text.follow_up import continues_subject
    from memory_core.text.vocabulary import RESET

    if RESET.search(request):
        return None
    if any(subject_features(text) for text in own_topics) and not continues_subject(request):
        return None
    return next((text for text in reversed(earlier) if subject_features(text)), None)
