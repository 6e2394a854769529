"""The text of a progress source: bounded, sanitized, and honest about what it leaves out.

:func:`render` writes the source a turn's plan (:mod:`memory_core.capture.work.progress`) kept:
the request, the resources, the kept observations in the order they ran (each already
clipped by :func:`clip_middle_bytes`, head and tail), how many were omitted, excluded or
left without a result, and the completion. An interrupted turn carries no assistant report;
a finished one carries the agent's words, marked as not proof. The records it is written
from, :class:`Observation` and :class:`Resource`, are defined here and re-exported by
:mod:`memory_core.capture.work.progress`.

Everything here is the standard library: it runs in the per-turn hook.
"""

from __future__ import annotations

from collections.abc import Sequence

from memory_core.privacy.sanitize import clip_utf8, redact_secrets, strip_controls

REQUEST_BYTES = 1_536
REPORT_BYTES = 1_536
RESOURCE_BYTES = 512
HEAD_SHARE = 0.4  # of a clipped output; the rest is its tail, where failures end

COMPLETED, INTERRUPTED = "finished", "interrupted"


# Record classes are tuples written out, not ``typing.NamedTuple`` (which compiles code for each
# class on every hook start and needs ``typing``; docs/hooks.md, "Cost").
class Observation(tuple[int, str, str, str, str, str, bool]):
    """One kept operation: where it ran in the turn, what it was and what came back."""

    __slots__ = ()

    def __new__(
        cls,
        position: int,
        tool: str,
        category: str,
        status: str,
        operation: str,
        output: str,
        failed: bool,
    ) -> Observation:
        return tuple.__new__(cls, (position, tool, category, status, operation, output, failed))

    def __getnewargs__(self) -> tuple[object, ...]:
        return tuple(self)

    @property
    def position(self) -> int:
        return self[0]

    @property
    def tool(self) -> str:
        return self[1]

    @property
    def category(self) -> str:
        return self[2]

    @property
    def status(self) -> str:
        return self[3]

    @property
    def operation(self) -> str:  # "<tool>: <input>", sanitized, at most OPERATION_BYTES
        return self[4]

    @property
    def output(self) -> str:  # sanitized, at most OUTPUT_BYTES, head and tail
        return self[5]

    @property
    def failed(self) -> bool:
        return self[6]

    @property
    def importance(self) -> int:
        from memory_core.capture.work.work_operations import IMPORTANCE

        return IMPORTANCE[self.category]


class Resource(tuple[str, str, str, bool]):
    """A directory or file the user or an operation named explicitly, with its checkout root."""

    __slots__ = ()

    def __new__(cls, how: str, path: str, root: str, is_checkout: bool) -> Resource:
        return tuple.__new__(cls, (how, path, root, is_checkout))

    def __getnewargs__(self) -> tuple[object, ...]:
        return tuple(self)

    @property
    def how(self) -> str:  # "cd", "git -C", "file" or "mentioned"
        return self[0]

    @property
    def path(self) -> str:
        return self[1]

    @property
    def root(self) -> str:  # the enclosing git checkout when there is one, else the path (a file: its directory)
        return self[2]

    @property
    def is_checkout(self) -> bool:
        return self[3]


def clip_middle_bytes(text: str, max_bytes: int, head_share: float = HEAD_SHARE) -> str:
    """At most ``max_bytes`` of UTF-8: the head and the tail, with a marker saying how much went."""
    raw = text.encode("utf-8", errors="surrogatepass")
    if len(raw) <= max_bytes:
        return text
    marker = f"\n[… {len(raw) - max_bytes} bytes omitted …]\n"
    for _ in range(3):  # the marker's own length depends on the count; settle it
        room = max(max_bytes - len(marker.encode("utf-8")), 0)
        head = clip_utf8(text, int(room * head_share))
        tail = _tail_utf8(text, room - len(head.encode("utf-8", errors="surrogatepass")))
        omitted = (
            len(raw)
            - len(head.encode("utf-8", errors="surrogatepass"))
            - len(tail.encode("utf-8", errors="surrogatepass"))
        )
        marker = f"\n[… {omitted} bytes omitted …]\n"
    clipped = head + marker + tail
    return clip_utf8(clipped, max_bytes)


def _tail_utf8(text: str, max_bytes: int) -> str:
    if max_bytes <= 0:
        return ""
    raw = text.encode("utf-8", errors="surrogatepass")
    if len(raw) <= max_bytes:
        return text
    start = len(raw) - max_bytes
    while start < len(raw) and raw[start] & 0xC0 == 0x80:  # not in the middle of a character
        start += 1
    return raw[start:].decode("utf-8", errors="surrogatepass")


def clean(text: str) -> str:
    return redact_secrets(strip_controls(text)).strip()


def render(
    request: str,
    kept: Sequence[Observation],
    resources: Sequence[Resource],
    completion: str,
    report: str | None,
    total: int,
    excluded: int,
    unlinked: int,
) -> str:
    lines = [
        "Progress observation: the tool calls of one agent turn and what they returned, recorded by the host.",
        f"completion: {completion}",
        "request: " + clip_middle_bytes(clean(request), REQUEST_BYTES, head_share=0.6),
    ]
    if resources:
        described = "; ".join(
            f"{r.how} {r.path}" + (f" (checkout {r.root})" if r.is_checkout and r.root != r.path else "")
            for r in resources
        )
        lines.append("resources: " + clip_utf8(clean(described), RESOURCE_BYTES))
    notes = [f"{len(kept)} of {total} kept, in the order they ran", f"omitted {total - len(kept)} less important"]
    if excluded:
        notes.append(f"excluded {excluded} (memevo's own or touching its state directory)")
    if unlinked:
        notes.append(f"{unlinked} without a result")
    lines.append("observations: " + "; ".join(notes))
    for number, observation in enumerate(kept, 1):
        lines.append("")
        lines.append(f"[{number}] {observation.category}, {observation.status}")
        lines.append("operation: " + observation.operation)
        lines.append("output:" + ("\n" + observation.output if observation.output else " (none)"))
    lines.append("")
    if report is None:
        lines.append("assistant report: none" + (" (the final response failed)" if completion == INTERRUPTED else ""))
    else:
        lines.append(
            "assistant report (the agent's words, not proof): "
            + clip_middle_bytes(clean(report), REPORT_BYTES, head_share=0.6)
        )
    return "\n".join(lines)
