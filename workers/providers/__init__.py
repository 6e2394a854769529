"""The worker's one model seam: :func:`complete` sends the consolidation prompt to the
configured provider (memory_core.model_providers) and returns a
:class:`~workers.model_call.Completion`, or raises
:class:`~workers.model_call.ModelCallError` with the same codes for every provider.

``openai`` is the HTTP client (:mod:`workers.model_client`, unchanged). Each CLI provider is
one module (``claude_code``, ``codex``, ``gemini``, ``pi``) with ``command()`` (the argument
list and environment of one headless call) and ``read()`` (its output, strictly); the run
itself (:mod:`workers.providers.process`) is shared: one process group in a session of its
own, killed whole at the deadline, stdout capped, stderr discarded.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

from memory_core import model_providers
from memory_core.config import Settings
from memory_core.records import ErrorCode, Reason
from workers import model_client
from workers.model_call import Completion, ModelCallError
from workers.providers import claude_code, codex, gemini, pi
from workers.providers.common import split_messages
from workers.providers.process import call_directory, cli_environment, run_cli, shared_call_directory

CLI_MODULES: dict[str, ModuleType] = {
    model_providers.CLAUDE_CODE: claude_code,
    model_providers.CODEX: codex,
    model_providers.GEMINI: gemini,
    model_providers.PI: pi,
}


def complete(
    settings: Settings, messages: list[dict[str, str]], *, json_mode: str = "off", fallback: bool = False
) -> Completion:
    """One model call through the configured provider, within ``settings.attempt_seconds``."""
    if not settings.uses_cli:
        return model_client.complete(settings, messages, json_mode=json_mode, fallback=fallback)
    return complete_with_cli(settings, messages)


def complete_with_cli(settings: Settings, messages: list[dict[str, str]]) -> Completion:
    """One headless run of the provider's CLI: the system prompt replaces the CLI's own,
    the rest goes on stdin."""
    module = CLI_MODULES[settings.provider or ""]
    program = settings.cli_command()
    if program is None:
        raise ModelCallError(
            ErrorCode.UNAVAILABLE,
            f"the {model_providers.TITLES[settings.provider or '']} CLI was not found; {settings.model_setup_hint()}",
            reason=Reason.CLI_MISSING,
        )
    system, user = split_messages(messages)
    started = time.monotonic()
    directories = (
        shared_call_directory(settings.provider or "", settings.attempt_seconds)
        if module is gemini
        else _one_directory()
    )
    with directories as (workdir, files):
        argv, extra = module.command(settings, program, system, files)
        env = cli_environment(extra)
        remaining = max(0.0, settings.attempt_seconds - (time.monotonic() - started))
        try:
            result = run_cli(argv, stdin_text=user, env=env, cwd=workdir, seconds=remaining)
        finally:
            if module is gemini:
                gemini.remove_session(files, env)
        completion: Completion = module.read(settings, result)
        return completion


@contextlib.contextmanager
def _one_directory() -> Iterator[tuple[Path, Path]]:
    """A fresh private directory: an empty working directory and one for the call's files."""
    with call_directory() as path:
        work, files = path / "work", path / "files"
        work.mkdir(mode=0o700)
        files.mkdir(mode=0o700)
        yield work, files
