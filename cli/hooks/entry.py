"""The hook's boundary and its entry without click: what `memevo hook` runs on every agent event.

Everything an agent sends crosses one boundary, :func:`run_hook`: the bytes are bounded
(:data:`MAX_STDIN_BYTES`), parsed as one JSON object, turned into normalized events by the
adapter, and every text of every event is made valid UTF-8 there, once (a lone surrogate
such as JSON ``"\\udc00"`` becomes U+FFFD), and loses what its person marked
``<private>``, before any handler stores, hashes, logs or searches it. A call whose
working directory the ``exclude`` setting names is dropped there, before its adapter runs.
The command only reads stdin and prints what :func:`run_hook` returns; the reliability
fuzzing drives :func:`run_hook` directly.

Agents run a hook on every user turn and every turn end, so :func:`main` (called by
:func:`cli.main.main` for ``memevo hook …``) handles the command lines agents are configured
with (``hook [EVENT]``, ``--agent NAME`` before or after it) without importing click; any
other command line (``--help``, a mistake) goes to the click command in
:mod:`cli.commands.hook_cmd`, which prints the same results and the same messages.
``tests/integration/test_hook_imports.py`` keeps the modules each event loads from growing.
"""

from __future__ import annotations

import json
import sys

from cli.hooks.event import HookEvent, valid_event, without_private
from cli.hooks.hook_log import log_failure as log_failure
from memory_core.errors import MemevoError, StoreError, UsageError
from memory_core.privacy.sanitize import valid_text

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

# Kept in step with cli.hooks.adapters.ADAPTER_NAMES (a test checks), so the entry need not
# import the adapters to read a command line.
ADAPTER_NAMES: tuple[str, ...] = ("generic", "claude-code", "pi", "gemini", "codex")

WARM_VARIABLE = "MEMEVO_HOOK_WARM"  # "0": a command hook never hands its call to memevo serve
MAX_STDIN_BYTES = 4_000_000


class HookRun(tuple):  # type: ignore[type-arg]
    """What one hook call prints: ``(stdout, stderr)``, ``stdout`` for the agent ('' for
    nothing), one ``stderr`` line. A plain tuple with named fields, not a ``NamedTuple``,
    whose class costs each hook process about 0.1 ms to define."""

    __slots__ = ()

    def __new__(cls, stdout: str, stderr: str) -> HookRun:
        return tuple.__new__(cls, (stdout, stderr))

    @property
    def stdout(self) -> str:
        return self[0]  # type: ignore[no-any-return]

    @property
    def stderr(self) -> str:
        return self[1]  # type: ignore[no-any-return]


def parse_payload(raw: bytes) -> dict[str, Any]:
    """One JSON object from at most :data:`MAX_STDIN_BYTES` bytes, or a :class:`UsageError`."""
    if len(raw) > MAX_STDIN_BYTES:
        raise UsageError(f"hook input is larger than {MAX_STDIN_BYTES} bytes")
    if not raw.strip():
        raise UsageError("hook input is empty; send one JSON object on stdin (see docs/hooks.md)")
    try:
        payload = json.loads(raw.decode("utf-8", errors="replace"))
    except json.JSONDecodeError as exc:
        raise UsageError(f"hook input is not JSON ({exc.msg} at line {exc.lineno}); see docs/hooks.md") from None
    except RecursionError:
        raise UsageError("hook input is nested too deeply; send one flat JSON object (see docs/hooks.md)") from None
    except ValueError:  # a number of more than 4,300 digits
        raise UsageError("hook input holds a number too long to read; see docs/hooks.md") from None
    if not isinstance(payload, dict):
        raise UsageError("hook input must be one JSON object (see docs/hooks.md)")
    return payload


def run_hook(
    raw: bytes,
    event: str | None,
    adapter: str | None,
    now: float | None = None,
    keep: Callable[[MemevoError], bool] | None = None,
) -> HookRun:
    """Handle one hook call; never raises (except on interpreter exit).

    Returns what goes to stdout and the one line for stderr; failures are also logged to
    ``logs/hooks.log`` in the state dir. ``now`` is the time of the event (default: the
    clock's now; the gateway passes the time the hook process read).
    """
    try:
        payload = parse_payload(raw)
    except MemevoError as exc:
        message = valid_text(str(exc))
        log_failure(f"{event or 'hook'}: {message}")
        return HookRun("", f"memevo hook: {message}")
    return run_payload(payload, event, adapter, now, keep, keep_spooled=True)


def event_label(payload: dict[str, Any], event: str | None) -> str:
    """How logs name a hook call: its EVENT, else the payload's native event name."""
    if event is None and isinstance(payload.get("hook_event_name"), str):
        return valid_text(payload["hook_event_name"][:64])
    return event or "hook"


def run_events(
    payload: dict[str, Any],
    event: str | None,
    adapter: str | None,
    now: float | None,
    out: list[str],
    keep_damaged: Callable[[HookEvent, float], bool] | None = None,
) -> None:
    """Carry out one parsed hook call, appending what it prints to ``out``; raises what fails
    (what :func:`run_payload` reports and the gateway's spool delivery retries).

    ``keep_damaged`` is offered each capture that finds ``memory.db`` damaged, as the adapter
    resolved it (:func:`cli.hooks.damaged_store.keep_for_restore`); the call's other captures are still offered, and
    the damage is raised once all were."""
    from cli.hooks.adapters import parse_event
    from cli.hooks.dispatch import handle_event
    from memory_core import clock
    from memory_core.paths import state_home

    home = state_home()
    if now is None:
        now = clock.now()
    if _excluded(payload.get("cwd"), home):
        return  # read no further: an excluded directory's prompt is not even stashed
    parsed = parse_event(adapter, payload, event, home=home, now=now)
    damage: Exception | None = None
    for normalized in parsed.events:
        if _excluded(normalized.cwd, home):
            continue
        # The one place hook text is made valid UTF-8 and loses what its person marked private.
        kept = without_private(valid_event(normalized))
        if kept is None:
            continue
        normalized = kept
        try:
            output = parsed.render(normalized, handle_event(normalized, home, now))
        except Exception as exc:
            from cli.hooks.damaged_store import CAPTURE_EVENTS, damaged_store

            if keep_damaged is None or damaged_store(exc) is None:
                raise
            if normalized.event in CAPTURE_EVENTS:
                keep_damaged(normalized, now)
            damage = damage or exc
            continue
        if output:
            out.append(output)
    if damage is not None:
        raise damage


def _excluded(cwd: object, home: Path) -> bool:
    """Whether ``cwd`` is a directory the ``exclude`` setting names (memory_core.privacy.exclusion)."""
    if not isinstance(cwd, str) or not cwd:
        return False
    from memory_core.privacy.exclusion import excluding_glob

    return excluding_glob(cwd, home) is not None


def run_payload(
    payload: dict[str, Any],
    event: str | None,
    adapter: str | None,
    now: float | None = None,
    keep: Callable[[MemevoError], bool] | None = None,
    *,
    keep_spooled: bool = False,
) -> HookRun:
    """Handle one hook call whose input :func:`parse_payload` has read (what :func:`run_hook`
    and ``memevo serve`` share); never raises (except on interpreter exit).

    ``keep`` (the gateway's) is offered a store that cannot be reached; when it keeps the
    event for later delivery (True), that is no failure to report. With ``keep_spooled`` a
    capture that finds ``memory.db`` damaged is kept in the spool
    (:func:`cli.hooks.damaged_store.keep_for_restore`)."""
    label = event or "hook"
    out: list[str] = []
    kept: list[HookEvent] = []

    def keep_damaged(normalized: HookEvent, when: float) -> bool:
        from cli.hooks.damaged_store import keep_for_restore

        if keep_for_restore(normalized, when):
            kept.append(normalized)
            return True
        return False

    try:
        label = event_label(payload, event)
        run_events(payload, event, adapter, now, out, keep_damaged if keep_spooled else None)
    except Exception as exc:  # fail open: the agent's turn goes on
        from cli.hooks.damaged_store import damaged_store

        damage = damaged_store(exc)
        if damage is not None:
            if kept:
                damage += f"; {'this capture waits' if len(kept) == 1 else 'these captures wait'} in spool/ "
                damage += "and the restore stores them"
            log_failure(f"{label}: {damage}")
            return HookRun("\n".join(out), f"memevo hook: {damage}")
        if isinstance(exc, MemevoError):
            if keep is not None and isinstance(exc, StoreError) and keep(exc):
                return HookRun("\n".join(out), "")
            message = valid_text(str(exc))
            log_failure(f"{label}: {message}")
            return HookRun("\n".join(out), f"memevo hook: {message}")
        import traceback

        log_failure(f"{label}: internal error", traceback.format_exc())
        return HookRun("\n".join(out), f"memevo hook: internal error ({type(exc).__name__}); details in logs/hooks.log")
    return HookRun("\n".join(out), "")


def read_input(event: str | None) -> bytes:
    """Stdin, at most one byte more than :data:`MAX_STDIN_BYTES` (b"" when it cannot be read)."""
    try:
        return sys.stdin.buffer.read(MAX_STDIN_BYTES + 1)
    except (OSError, ValueError) as exc:
        log_failure(f"{event or 'hook'}: cannot read stdin ({type(exc).__name__})")
        return b""


def handle(event: str | None, adapter: str | None) -> HookRun:
    """One hook call from stdin: what the click command and :func:`main` print. On a machine
    whose store is PostgreSQL the call goes to the gateway (:mod:`cli.hooks.gateway_client`):
    a hook process never opens that database itself; on SQLite it goes to a running ``memevo
    serve`` when one answers quickly (the warm path), else the hook does the work itself."""
    raw = read_input(event)
    event = valid_text(event) if event is not None else None
    found = store_home()
    if found is not None:
        home, on_postgres = found
        if on_postgres:
            from cli.hooks.gateway_client import run_through_gateway

            return HookRun(*run_through_gateway(home, raw, event, adapter, log_failure))
        if warm_path_open(home):
            from cli.hooks.gateway_client import try_warm_server

            answered = try_warm_server(home, raw, event, adapter)
            if answered is not None:
                return HookRun(*answered)
    return run_hook(raw, event, adapter)


def store_home() -> tuple[Path, bool] | None:
    """The state dir and whether its store is on PostgreSQL (hooks then go through ``memevo
    serve``): an environment variable and, only when it exists, ``config.toml``. ``None`` when
    the configuration cannot be read: the hook then reports it as before."""
    try:
        from memory_core.paths import state_home
        from memory_core.store.engines.backend import POSTGRESQL, resolve

        home = state_home()
        return home, resolve(home).kind == POSTGRESQL
    except Exception:
        return None


def gateway_home() -> Path | None:
    """The state dir when its store is on PostgreSQL, else ``None`` (:func:`store_home`)."""
    found = store_home()
    return found[0] if found is not None and found[1] else None


def warm_path_open(home: Path) -> bool:
    """Whether a ``memevo serve`` of this SQLite state dir may be running (its ``gateway`` file
    exists; one ``stat``) and the warm path is not turned off: the hook then hands the call to
    the warm server and does the work itself only when that server does not answer quickly
    (docs/hooks.md, "The warm path for command hooks")."""
    import os

    return os.environ.get(WARM_VARIABLE) != "0" and os.path.exists(home / "gateway")


def parse_argv(args: list[str]) -> tuple[str | None, str | None] | None:
    """``(event, adapter)`` from the arguments after ``hook``, or ``None`` for any command line
    this entry leaves to click (help, an unknown option, a missing or unknown ``--agent``
    value, a second EVENT, ``--``)."""
    event: str | None = None
    adapter: str | None = None
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--agent" or arg.startswith("--agent="):
            if adapter is not None:
                return None
            if arg == "--agent":
                if i + 1 >= len(args):
                    return None
                i += 1
                adapter = args[i]
            else:
                adapter = arg.removeprefix("--agent=")
            if adapter not in ADAPTER_NAMES:
                return None
        elif arg.startswith("-") or not arg or event is not None:
            return None
        else:
            event = arg
        i += 1
    return event, adapter


def printed(text: str) -> str:
    """What :func:`_echo` writes for ``text``: as ``click.echo`` prints to a pipe, one line,
    terminal escapes removed ("" for nothing). ``memevo serve`` answers with the same."""
    if not text:
        return ""
    if "\x1b" in text:
        import re

        text = re.sub(r"\033\[[;?0-9]*[a-zA-Z]", "", text)
    return text + "\n"


def _echo(text: str, stream: Any) -> None:
    """Print as ``click.echo`` does to a pipe: one line, flushed, terminal escapes removed."""
    stream.write(printed(text) or "\n")
    stream.flush()


def main(args: list[str]) -> bool:
    """Run ``memevo hook`` with ``args`` (what follows ``hook``) when this entry can read them;
    ``False`` leaves the command line to click. The process then exits 0, as the click command."""
    parsed = parse_argv(args)
    if parsed is None:
        return False
    result = handle(*parsed)
    try:
        if result.stdout:
            _echo(result.stdout, sys.stdout)
        if result.stderr:
            _echo(result.stderr, sys.stderr)
    except BrokenPipeError:  # as click: the reader went away
        sys.exit(1)
    return True
