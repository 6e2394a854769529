"""`memevo`: the console script's entry.

``memevo hook …`` runs on every agent event, so it starts without click: the hook entry
(:mod:`cli.hooks.entry`) handles the command lines agents are configured with and leaves
everything else (``--help``, a mistake) to the click group. Every other command goes to the
group in :mod:`cli.group`, which loads commands lazily. The group's names (``cli``,
``COMMAND_MODULES``, ``MemevoGroup`` …) are also readable here, loaded on first use.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cli.group import COMMAND_MODULES, MemevoGroup, _commands_of, cli, discover_commands

_GROUP_NAMES = frozenset({"COMMAND_MODULES", "MemevoGroup", "_commands_of", "cli", "discover_commands"})
__all__ = ["COMMAND_MODULES", "MemevoGroup", "_commands_of", "cli", "discover_commands", "main"]


def main() -> None:
    """Console-script entry point."""
    args = sys.argv[1:]
    if args[:1] == ["hook"]:
        from cli import regex_cache
        from cli.hooks.deferred_modules import HOOK_DEFERRED, defer

        for name in HOOK_DEFERRED:  # before anything imports them
            defer(name)
        regex_cache.preload()  # before any module compiles its patterns
        from cli.hooks.entry import main as hook_main

        handled = hook_main(args[1:])
        regex_cache.save()
        if handled:
            sys.exit(0)
    from cli.group import cli

    cli.main(prog_name="memevo", args=args)


def __getattr__(name: str) -> object:
    """The click group's names, imported on first use (a hook never asks for them)."""
    if name not in _GROUP_NAMES:  # also what the import system probes for (``__path__`` …)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from cli import group

    return getattr(group, name)
