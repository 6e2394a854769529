"""`memevo ui`: a local web page to see, search, review and correct the memory (docs/ui.md)."""

from __future__ import annotations

import click

from cli.context import settings
from cli.ui.server import DEFAULT_PORT


@click.command("ui")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=DEFAULT_PORT,
    show_default=True,
    help="TCP port on 127.0.0.1 (0 picks a free one).",
)
@click.option("--no-browser", is_flag=True, help="Print the address only; do not open a browser.")
def ui_command(port: int, no_browser: bool) -> None:
    """Serve a web page on 127.0.0.1 until stopped (Ctrl-C): memories, review, queue,
    learning log, injections and charts.

    The printed address carries a fresh token; opening it once signs the browser in (a
    cookie for this start only). Other hosts, other sites and other local pages are refused.
    Buttons are the same controls as the CLI, each recorded and undoable.
    """
    from cli.ui.server import make_ui_server, serve_ui

    cfg = settings()
    server = make_ui_server(port, cfg.home, cfg)
    click.echo(f"memevo ui: open {server.url}")
    click.echo("memevo ui: Ctrl-C stops it; the address works until then", err=True)
    if not no_browser:
        import webbrowser

        try:
            webbrowser.open(server.url)
        except Exception:  # no browser here: the printed address still works
            pass
    serve_ui(server)


COMMANDS = [ui_command]
