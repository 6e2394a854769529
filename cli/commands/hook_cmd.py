"""`memevo hook [EVENT]`: the command an agent runs on each event. It always exits 0."""

from __future__ import annotations

import json
import sys
import traceback

import click

from cli.hooks.adapters import ADAPTER_NAMES, parse_event
from memory_core.errors import MemevoError, UsageError

MAX_STDIN_BYTES = 4_000_000


def _log_failure(message: str, detail: str | None = None) -> None:
    """Append to logs/hooks.log in the state dir; never raises."""
    try:
        from memory_core import clock
        from memory_core.paths import state_home
        from memory_core.store.connection import ensure_private_dir

        logs = ensure_private_dir(state_home() / "logs")
        path = logs / "hooks.log"
        with open(path, "a", encoding="utf-8") as handle:
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


def _read_payload() -> dict:
    raw = sys.stdin.buffer.read(MAX_STDIN_BYTES + 1)
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
    if not isinstance(payload, dict):
        raise UsageError("hook input must be one JSON object (see docs/hooks.md)")
    return payload


@click.command("hook", cls=HookCommand)
@click.argument("event", required=False)
@click.option("--agent", "adapter", type=click.Choice(ADAPTER_NAMES),
              help="Input format: detected when omitted (memevo's generic JSON has \"schema\", "
                   "Claude Code's native hook JSON has \"hook_event_name\").")
def hook_command(event: str | None, adapter: str | None) -> None:
    """Handle one agent event (JSON on stdin). Fails open: always exits 0.

    EVENT is required for the generic protocol; a native payload names its own event.
    """
    label = event or "hook"
    try:
        payload = _read_payload()
        if event is None and isinstance(payload.get("hook_event_name"), str):
            label = payload["hook_event_name"][:64]
        from cli.hooks.dispatch import handle_event
        from memory_core import clock
        from memory_core.paths import state_home

        home, now = state_home(), clock.now()
        parsed = parse_event(adapter, payload, event, home=home, now=now)
        for normalized in parsed.events:
            output = parsed.render(normalized, handle_event(normalized, home, now))
            if output:
                click.echo(output)
    except MemevoError as exc:
        click.echo(f"memevo hook: {exc}", err=True)
        _log_failure(f"{label}: {exc}")
    except Exception as exc:  # fail open: the agent's turn goes on
        click.echo(f"memevo hook: internal error ({type(exc).__name__}); details in logs/hooks.log",
                   err=True)
        _log_failure(f"{label}: internal error", traceback.format_exc())


COMMANDS = [hook_command]
