"""`memevo doctor`'s model checks for a CLI provider: the CLI found (its absolute path and
version), its headless flags accepted (read from its ``--help``), whether it is logged in
where the CLI offers a check that spends nothing (``claude auth status``, ``codex login
status``), and with ``--check-model`` one tiny real call through the CLI. Each run is
bounded, under memevo's model-call marker, with the CLI's stderr discarded; nothing of its
login is read by memevo."""

from __future__ import annotations

import json
import subprocess
import time
from typing import Any

from memory_core import model_providers
from memory_core.config import Settings
from memory_core.records import ErrorCode
from memory_core.reports.health import ERROR, OK, WARN, make_check
from workers.model_call import ModelCallError
from workers.providers import CLI_MODULES, complete_with_cli
from workers.providers.process import cli_environment

PROBE_SECONDS = 20.0
CHECK_SECONDS = 60.0
HELP_ARGS = {model_providers.CODEX: ("exec", "--help")}
LOGIN_ARGS = {
    model_providers.CLAUDE_CODE: ("auth", "status", "--json"),
    model_providers.CODEX: ("login", "status"),
}


def _run(argv: list[str], *, both: bool = False) -> subprocess.CompletedProcess[str] | None:
    """``argv`` bounded; ``both`` reads stderr too (Pi prints its version and help there)."""
    try:
        return subprocess.run(
            argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if both else subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            text=True,
            timeout=PROBE_SECONDS,
            env=cli_environment(),
            start_new_session=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None


def cli_model_check(settings: Settings) -> dict[str, Any]:
    """The configured CLI provider's model check (no model call)."""
    provider = settings.provider or ""
    title = model_providers.TITLES[provider]
    cli = title if title.endswith("CLI") else f"{title} CLI"
    name = settings.model_command or model_providers.COMMANDS[provider]
    details: dict[str, Any] = {"provider": provider, "model": settings.cli_model, "command": None, "version": None}
    path = settings.cli_command()
    if path is None:
        return make_check(
            "model",
            ERROR,
            f"{cli} `{name}` not found: captured sources are waiting for a model",
            f"install {title} (`{name}` on the worker's PATH), or export MEMEVO_MODEL_COMMAND=/absolute/path/to/{name}",
            **details,
        )
    details["command"] = path
    version = _run([path, "--version"], both=True)
    if version is None or version.returncode != 0:
        return make_check(
            "model", ERROR, f"{cli} at {path} does not run (`--version` failed)", f"{path} --version", **details
        )
    details["version"] = (version.stdout.strip().splitlines() or ["?"])[0][:120]
    helped = _run([path, *HELP_ARGS.get(provider, ("--help",))], both=True)
    text = helped.stdout if helped is not None else ""
    missing = [flag for flag in CLI_MODULES[provider].FLAGS if flag not in text]
    if missing:
        return make_check(
            "model",
            ERROR,
            f"{cli} {details['version']} at {path} lacks the headless flags memevo needs: {', '.join(missing)}",
            f"upgrade {title}",
            **details,
        )
    model = settings.cli_model or f"{title}'s own default model"
    summary = f"{cli} {details['version']} at {path}, model {model}"
    login = _logged_in(provider, path)
    details["logged_in"] = login
    if login is False:
        return make_check(
            "model",
            WARN,
            f"{summary}: not logged in, so every attempt will fail",
            f"{name} {'login' if provider != model_providers.CLAUDE_CODE else 'auth login'}  # log in once",
            **details,
        )
    return make_check("model", OK, summary, **details)


def _logged_in(provider: str, path: str) -> bool | None:
    """Whether the CLI says it is logged in (``None``: it offers no check that spends nothing)."""
    args = LOGIN_ARGS.get(provider)
    if args is None:
        return None
    done = _run([path, *args])
    if done is None:
        return None
    if provider == model_providers.CLAUDE_CODE:
        try:
            status = json.loads(done.stdout)
        except ValueError:
            return None
        return bool(status.get("loggedIn")) if isinstance(status, dict) else None
    return done.returncode == 0


def cli_call_check(settings: Settings) -> dict[str, Any]:
    """One tiny real call through the CLI (not counted in the daily budget)."""
    probe = settings.model_copy(update={"attempt_seconds": min(settings.attempt_seconds, CHECK_SECONDS)})
    messages = [
        {"role": "system", "content": 'Answer with this JSON and nothing else: {"claims": []}'},
        {"role": "user", "content": "Reply now."},
    ]
    started = time.monotonic()
    try:
        completion = complete_with_cli(probe, messages)
    except ModelCallError as exc:
        took = round(time.monotonic() - started, 2)
        if exc.code in (ErrorCode.OUTPUT_LIMIT, ErrorCode.INVALID_OUTPUT):
            return make_check("model call", OK, f"answered in {took:.2f} s ({exc.description})", seconds=took)
        return make_check(
            "model call",
            ERROR,
            f"the call through the CLI failed: {exc.description} ({exc.code.value}, {exc.reason})",
            "memevo doctor  # see the model check above; run the CLI once by hand to log in",
            seconds=took,
            error_code=exc.code.value,
        )
    took = round(time.monotonic() - started, 2)
    return make_check(
        "model call",
        OK,
        f"{completion.model} answered through the CLI in {took:.2f} s",
        seconds=took,
        model=completion.model,
    )
