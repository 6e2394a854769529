"""`memevo serve`: the warm loopback server for Claude Code's http hooks (docs/hooks.md)."""

from __future__ import annotations

import click

from cli.hooks.http_server import DEFAULT_PORT


@click.command("serve")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=DEFAULT_PORT,
    show_default=True,
    help="TCP port on 127.0.0.1 (0 picks a free one and prints it). "
    "`memevo install claude-code --transport http --port N` must name the same.",
)
def serve_command(port: int) -> None:
    """Answer Claude Code's http hooks on 127.0.0.1 until stopped (SIGINT or SIGTERM).

    Each event gets exactly what `memevo hook --agent claude-code` prints for it. Every
    request must carry the hook token ($MEMEVO_HOOK_TOKEN, else the state dir's hook-token,
    made on first use). Optional: the command hooks stay the default.
    """
    from cli.hooks.hook_token import TokenError, hook_token
    from cli.hooks.http_server import serve
    from memory_core.errors import UsageError
    from memory_core.paths import state_home

    home = state_home()
    try:
        token = hook_token(home)
    except TokenError as exc:
        raise UsageError(str(exc)) from None
    serve(port, token, home)


COMMANDS = [serve_command]
