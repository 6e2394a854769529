"""`memevo hook [EVENT]`: the command an agent runs on each event. It always exits 0.

Everything an agent sends crosses one boundary, :func:`run_hook`: the bytes are bounded
(:data:`MAX_STDIN_BYTES`), parsed as one JSON object, turned into normalized events by the
adapter, and every text of every event is made valid UTF-8 there, once (a lone surrogate
such as JSON ``"\\udc00"`` becomes U+FFFD), before any handler stores, hashes or searches
it. The command only reads stdin and prints what :func:`run_hook` returns; the reliability
fuzzing drives :func:`run_hook` directly.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import traceback
from typing import Any, NamedTuple

import click

from cli.hooks.adapters import ADAPTER_NAMES, parse_event
from cli.hooks.event import HookEvent
from memory_core.errors import MemevoError, UsageError
from memory_core.sanitize import valid_text

MAX_STDIN_BYTES = 4_000_000


class HookRun(NamedTuple):
    """What one hook call prints: ``stdout`` for the agent ('' for nothing), one ``stderr`` line."""

    stdout: str
    stderr: str


def _log_failure(message: str, detail: str | None = None) -> None:
    """Append to logs/hooks.log in the state dir; never raises."""
    try:
        from memory_core import clock
        from memory_core.paths import state_home
        from memory_core.store.connection import ensure_private_dir

        logs = ensure_private_dir(state_home() / "logs")
        path = logs / "hooks.log"
        with open(path, "a", encoding="utf-8", errors="backslashreplace") as handle:
            handle.write(f"{clock.iso(clock.now())} {message}\n")
            if detail:
                handle.write(detail.rstrip() + "\n")
        path.chmod(0o600)
    except Exception:
        pass


class HookCommand(click.Command):
    """A command whose own command-line mistakes also fail open.

    Agents run the hook line they were configured with on every event, and some treat a
    non-zero exit as "block this turn" (exit 2 in particular), so a typo in ``--agent`` or a
    missing EVENT must be one line on stderr and exit 0, like any other bad input.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as exc:
            message = f"{exc.format_message()} (usage: memevo hook [--agent {'|'.join(ADAPTER_NAMES)}] [EVENT])"
            click.echo(f"memevo hook: {message}", err=True)
            _log_failure(message)
            ctx.exit(0)


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


def valid_event(event: HookEvent) -> HookEvent:
    """``event`` with every text made valid UTF-8: strings, tuples of strings and the text
    fields of nested event parts (operations), whatever fields an adapter fills."""
    changes = {}
    for spec in dataclasses.fields(event):
        value = getattr(event, spec.name)
        fixed = _valid_value(value)
        if fixed is not value:
            changes[spec.name] = fixed
    return dataclasses.replace(event, **changes) if changes else event


def _valid_value(value: Any) -> Any:
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, tuple):
        items = tuple(_valid_value(item) for item in value)
        return items if any(a is not b for a, b in zip(items, value, strict=True)) else value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {}
        for spec in dataclasses.fields(value):
            item = getattr(value, spec.name)
            fixed = _valid_value(item)
            if fixed is not item:
                changes[spec.name] = fixed
        return dataclasses.replace(value, **changes) if changes else value
    return value


def run_hook(raw: bytes, event: str | None, adapter: str | None) -> HookRun:
    """Handle one hook call; never raises (except on interpreter exit).

    Returns what goes to stdout and the one line for stderr; failures are also logged to
    ``logs/hooks.log`` in the state dir.
    """
    label = event or "hook"
    out: list[str] = []
    try:
        payload = parse_payload(raw)
        if event is None and isinstance(payload.get("hook_event_name"), str):
            label = valid_text(payload["hook_event_name"][:64])
        from cli.hooks.dispatch import handle_event
        from memory_core import clock
        from memory_core.paths import state_home

        home, now = state_home(), clock.now()
        parsed = parse_event(adapter, payload, event, home=home, now=now)
        for normalized in parsed.events:
            normalized = valid_event(normalized)  # the one place hook text is made valid UTF-8
            output = parsed.render(normalized, handle_event(normalized, home, now))
            if output:
                out.append(output)
    except MemevoError as exc:
        message = valid_text(str(exc))
        _log_failure(f"{label}: {message}")
        return HookRun("\n".join(out), f"memevo hook: {message}")
    except Exception as exc:  # fail open: the agent's turn goes on
        _log_failure(f"{label}: internal error", traceback.format_exc())
        return HookRun("\n".join(out), f"memevo hook: internal error ({type(exc).__name__}); "
                                       "details in logs/hooks.log")
    return HookRun("\n".join(out), "")


@click.command("hook", cls=HookCommand)
@click.argument("event", required=False)
@click.option("--agent", "adapter", type=click.Choice(ADAPTER_NAMES),
              help="Input format: detected when omitted (memevo's generic JSON has \"schema\"; an agent's "
                   "native hook JSON is recognised by its fields). `memevo install` writes it explicitly.")
def hook_command(event: str | None, adapter: str | None) -> None:
    """Handle one agent event (JSON on stdin). Fails open: always exits 0.

    EVENT is required for the generic protocol; a native payload names its own event.
    """
    try:
        raw = sys.stdin.buffer.read(MAX_STDIN_BYTES + 1)
    except (OSError, ValueError) as exc:
        raw = b""
        _log_failure(f"{event or 'hook'}: cannot read stdin ({type(exc).__name__})")
    result = run_hook(raw, valid_text(event) if event is not None else None, adapter)
    if result.stdout:
        click.echo(result.stdout)
    if result.stderr:
        click.echo(result.stderr, err=True)


COMMANDS = [hook_command]
