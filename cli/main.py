"""`memevo`: the console script's entry.

``memevo hook …`` runs on every agent event, so it starts without click: the hook entry
(:mod:`cli.hooks.entry`) handles the command lines agents are configured with and leaves
everything else (``--help``, a mistake) to the click group. Every other command goes to the
group in :mod:`cli.group`, which loads commands lazily. The group's names (``cli``,
``COMMAND_MODULES``, ``MemevoGroup`` …) are also readable here, loaded on first use.

The console script runs :func:`run`: :func:`main`, and a hook process then ends at once
(docs/hooks.md, "Cost").
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cli.group import COMMAND_MODULES, MemevoGroup, _commands_of, cli, discover_commands

_GROUP_NAMES = frozenset({"COMMAND_MODULES", "MemevoGroup", "_commands_of", "cli", "discover_commands"})
__all__ = ["COMMAND_MODULES", "MemevoGroup", "_commands_of", "cli", "discover_commands", "main", "run"]


_hook_handled = False  # set by main() once the hook entry has printed its result
_ends_with_exit = False  # set by run() for a hook: the process ends with os._exit
# memory_core.model_providers.MODEL_CALL_MARKER, spelt out: a hook imports nothing it can avoid
# (a test keeps the two equal).
MODEL_CALL_MARKER = "MEMEVO_MODEL_CALL"


def run() -> None:
    """Console-script entry point: :func:`main`; a hook process then ends without tearing the
    interpreter down.

    A hook process is short and its work bounded, and agents start one on every event. It runs
    without the cyclic garbage collector (reference counting frees what it makes; the
    collections would only walk the imported modules' objects again and again), and once the
    hook entry has printed its result and every file and database it opened is closed, it
    leaves with :func:`os._exit` after flushing its output, skipping the interpreter's
    teardown: about a tenth of a hook's own instructions (docs/hooks.md, "Cost"). Any other
    outcome (another command, a command line left to click, a failure) exits as usual."""
    hook = sys.argv[1:2] == ["hook"]
    if hook:
        import gc

        gc.disable()
        global _ends_with_exit
        _ends_with_exit = True
    try:
        main()
    except SystemExit as exc:
        if hook and _hook_handled and exc.code in (None, 0) and _flushed():
            import os

            _start_folds()
            os._exit(0)
        raise
    finally:  # any other way out: the connections kept for os._exit are closed for real
        keeping = sys.modules.get("memory_core.store.engines.close_checkpoint")
        if hook and keeping is not None:
            _start_folds()
            keeping.release_kept_connections()


def _start_folds() -> None:
    """The WAL folds this hook found due, each in a detached process of its own (close_checkpoint)."""
    keeping = sys.modules.get("memory_core.store.engines.close_checkpoint")
    if keeping is not None:
        from memory_core import clock

        keeping.start_wanted_folds(clock.now())


def _flushed() -> bool:
    """Whether stdout and stderr took everything written to them."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return False
    return True


def main() -> None:
    """Run the command line in :data:`sys.argv` (the console script runs it through :func:`run`)."""
    args = sys.argv[1:]
    if args[:1] == ["hook"]:
        import os

        if os.environ.get(MODEL_CALL_MARKER):
            # Run by an agent that memevo's worker started as its model: nothing of a
            # consolidation is ever captured, recalled or logged (docs/hooks.md).
            global _hook_handled
            _hook_handled = True
            sys.exit(0)
        from cli import module_cache

        module_cache.preload()  # before the hook imports its modules (the next two included)
        from cli import regex_cache
        from cli.hooks.deferred_modules import HOOK_DEFERRED, defer

        for name in HOOK_DEFERRED:  # before anything imports them
            defer(name)
        if _ends_with_exit:  # its database connections are left to the process's end
            from memory_core.store.engines.close_checkpoint import keep_connections_until_exit

            keep_connections_until_exit()
        regex_cache.preload()  # before any module compiles its patterns
        from cli.hooks.entry import main as hook_main

        handled = hook_main(args[1:])
        regex_cache.save()
        module_cache.save()
        if handled:
            _hook_handled = True
            sys.exit(0)
    from cli.group import cli

    cli.main(prog_name="memevo", args=args)


def __getattr__(name: str) -> object:
    """The click group's names, imported on first use (a hook never asks for them)."""
    if name not in _GROUP_NAMES:  # also what the import system probes for (``__path__`` …)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from cli import group

    return getattr(group, name)
