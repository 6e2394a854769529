"""Effective configuration: defaults < ``config.toml`` in the state dir < environment.

Read only at entry points (CLI commands, the worker). Everything below receives a
:class:`Settings` object, never the environment.
"""

from __future__ import annotations

import os
import shutil
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator

from memory_core import model_providers as providers
from memory_core.errors import ConfigError
from memory_core.paths import state_home
from memory_core.privacy import exclusion
from memory_core.store.engines.backend import (
    POSTGRESQL,
    REDIS,
    Backend,
    Queue,
    parse_database_url,
    parse_queue_url,
    redact,
)

ENV_PREFIX = "MEMEVO_"
CONFIG_FILE = "config.toml"
SECRET_FIELDS = frozenset({"model_api_key"})
# Connection URLs may hold a password: shown only through backend.redact, never as given.
URL_FIELDS = frozenset({"database_url", "queue_url"})

# What each setting accepts, for error messages that say what is allowed.
ALLOWED = {
    "home": "a directory path",
    "model_url": "an http:// or https:// base URL of an OpenAI-compatible API",
    "model_provider": "openai, claude-code, codex, gemini or pi",
    "model_command": "the path of an executable file (the agent's CLI), or a program name found on PATH",
    "model": "a model name, 1-200 characters",
    "model_api_key": "an API key (environment only)",
    "attempt_seconds": "a number of seconds between 1 and 3600",
    "lease_grace_seconds": "a number of seconds between 0 and 3600",
    "max_output_tokens": "a whole number between 1 and 8192",
    "model_output_limit": "a whole number of tokens, at least 1",
    "daily_model_calls": "a whole number, at least 0",
    "daily_model_tokens": "a whole number, at least 0",
    "daily_model_cost_usd": "a number of US dollars, at least 0, or unset for no cost limit",
    "model_json_mode": "auto, schema, object_schema, guided_json, object or off",
    "first_call_seconds": "a number of seconds between 1 and 3600",
    "database_url": "postgresql://USER@HOST[:PORT]/DB, or unset for SQLite in the state dir",
    "queue_url": "redis://HOST[:PORT][/DB], or unset so the queue follows the store",
    "review_before_recall": "true or false",
    "project": (
        "a project name of 1-200 printable characters, or in config.toml a table of "
        '"PATH" = "NAME" (docs/configuration.md, Project identity)'
    ),
    "standing_digest": "on, off, or a whole number of bytes between 256 and 8192",
    "exclude": exclusion.ALLOWED,
}


class Settings(BaseModel):
    """Every knob memevo has. Durations are seconds."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    home: Path
    model_url: str | None = None
    # Who answers the worker's model call (memory_core.model_providers): an OpenAI-compatible
    # server (openai, the default when model_url is set) or an agent's own CLI and login.
    model_provider: Literal["openai", "claude-code", "codex", "gemini", "pi"] | None = None
    # The CLI a CLI provider runs: unset finds the provider's program on PATH at each attempt.
    model_command: str | None = Field(default=None, min_length=1, max_length=4096)
    model: str | None = Field(default=None, min_length=1, max_length=200)
    model_api_key: SecretStr | None = None
    attempt_seconds: float = Field(default=120.0, ge=1, le=3600)
    lease_grace_seconds: float = Field(default=30.0, ge=0, le=3600)
    # A worker's first call to its model (and a server still loading it) may take this
    # long: a local server loads and warms the model on it (workers/model_warmup.py).
    first_call_seconds: float = Field(default=600.0, ge=1, le=3600)
    max_output_tokens: int = Field(default=8192, ge=1, le=8192)
    model_output_limit: int | None = Field(default=None, ge=1)
    # A guard against runaway spending, not a throttle: a burst of a few thousand captured
    # sources (a first day, an import) drains the same day (docs/operations.md, budgets).
    # Unset: a subscription-safe default for a CLI provider (memory_core.model_providers).
    daily_model_calls: int = Field(default=providers.HTTP_DAILY_CALLS, ge=0)
    daily_model_tokens: int = Field(default=providers.HTTP_DAILY_TOKENS, ge=0)
    # What the calls whose provider reports a cost (Claude Code, Pi) may cost a UTC day, in
    # US dollars; unset: no cost limit, only the call and token limits (memory_core.jobs.budget).
    daily_model_cost_usd: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    # How the model is asked for JSON: auto tries the answer's JSON schema in the spellings
    # of the common servers, then plain JSON mode, then nothing, remembering what the server
    # accepted (workers/json_modes.py).
    model_json_mode: Literal["auto", "schema", "object_schema", "guided_json", "object", "off"] = "auto"
    # Where the memory lives (memory_core.store.engines.backend): unset is memory.db in the state dir
    # and huey's queue.db beside it. Kept out of repr: a URL may carry a password.
    database_url: str | None = Field(default=None, repr=False)
    queue_url: str | None = Field(default=None, repr=False)
    # Claims a model learned stay out of recall until approved in `memevo review` (docs/ui.md;
    # the hooks read it through memory_core.reports.review_gate, without these models).
    review_before_recall: bool = False
    # Names the project of captures explicitly instead of their repository's remote
    # (memory_core.project, which the hooks use to read it without these models):
    # one name, or per directory a table of path -> name, the longest enclosing path winning.
    project: str | dict[str, str] | None = None
    # The conventions given at session start (memory_core.recall.standing_setting reads it
    # for the hooks): on (1,024 bytes), off, or a bound in bytes.
    standing_digest: str = "on"
    # Directories whose sessions are never read (memory_core.privacy.exclusion reads it for the hooks).
    exclude: tuple[str, ...] = ()

    @model_validator(mode="before")
    @classmethod
    def _cli_budget(cls, values: Any) -> Any:
        # A person's plan is the budget: a CLI provider's daily caps default lower.
        if isinstance(values, dict) and providers.is_cli_provider(_lowered(values.get("model_provider"))):
            values = dict(values)
            values.setdefault("daily_model_calls", providers.CLI_DAILY_CALLS)
            values.setdefault("daily_model_tokens", providers.CLI_DAILY_TOKENS)
        return values

    @model_validator(mode="after")
    def _backend_urls(self) -> Settings:
        # Raises ConfigError (not a ValueError), which pydantic lets through unchanged, with
        # backend's own words: an unsupported scheme, or a SQLite store with a remote queue.
        self.queue  # noqa: B018  (parses both URLs)
        return self

    @property
    def backend(self) -> Backend:
        """The store these settings name: SQLite in the state dir, or a PostgreSQL database."""
        return parse_database_url(self.database_url or "", self.home)

    @property
    def queue(self) -> Queue:
        """The queue: following the store, or a Redis."""
        return parse_queue_url(self.queue_url or "", self.backend)

    @field_validator("model_json_mode", "model_provider", mode="before")
    @classmethod
    def _lower_mode(cls, value: Any) -> Any:
        return _lowered(value)

    @field_validator("model_command")
    @classmethod
    def _executable(cls, value: str | None) -> str | None:
        # A path is checked at start; a bare program name is looked up on PATH per attempt.
        if value is None or "/" not in value:
            return value
        path = Path(value).expanduser()
        if not path.is_file() or not os.access(path, os.X_OK):
            raise ValueError("not an executable file")
        return str(path.absolute())

    @field_validator("standing_digest", mode="before")
    @classmethod
    def _standing_digest(cls, value: Any) -> str:
        # As memory_core.recall.standing_setting reads it for the hooks (a test compares).
        if isinstance(value, bool):
            return "on" if value else "off"
        text = str(value).strip().lower()
        if text in ("on", "true", "yes", "1", "off", "false", "no", "0"):
            return "off" if text in ("off", "false", "no", "0") else "on"
        if not text.isdigit() or not 256 <= int(text) <= 8192:
            raise ValueError("not on, off or a number of bytes between 256 and 8192")
        return text

    @field_validator("exclude", mode="before")
    @classmethod
    def _exclude(cls, value: Any) -> tuple[str, ...]:
        # As memory_core.privacy.exclusion reads it for the hooks.
        return exclusion.parse_exclude(value)

    @field_validator("project")
    @classmethod
    def _project_names(cls, value: str | dict[str, str] | None) -> str | dict[str, str] | None:
        names = [value] if isinstance(value, str) else list((value or {}).values())
        paths = list(value) if isinstance(value, dict) else []
        if any(not _printable_name(name) for name in names) or any(not path.strip() for path in paths):
            raise ValueError("not a project name or table of paths to names")
        return value

    @field_validator("model_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if not value.startswith(("http://", "https://")) or len(value) < 8:
            raise ValueError("not an http(s) URL")
        return value.rstrip("/")

    @property
    def provider(self) -> str | None:
        """The effective provider: the one set, else ``openai`` when a model URL is set."""
        if self.model_provider is not None:
            return self.model_provider
        return providers.OPENAI if self.model_url else None

    @property
    def uses_cli(self) -> bool:
        """Whether the worker's model call runs an agent's CLI."""
        return providers.is_cli_provider(self.provider)

    @property
    def cli_model(self) -> str | None:
        """The model a CLI provider asks for: ``model``, else the provider's default."""
        if not self.uses_cli:
            return None
        return self.model or providers.DEFAULT_MODELS.get(self.provider or "")

    def cli_command(self) -> str | None:
        """The absolute path of the CLI a CLI provider runs, looked up now (``None`` when it
        is not found, or for the HTTP provider)."""
        if not self.uses_cli:
            return None
        name = self.model_command or providers.COMMANDS[self.provider or ""]
        if "/" in name:
            return name if os.path.isfile(name) and os.access(name, os.X_OK) else None
        found = shutil.which(name)
        return str(Path(found).absolute()) if found else None

    @property
    def model_configured(self) -> bool:
        """True when the worker has a model to call: a CLI provider whose CLI is found, or
        both the URL and the name of an OpenAI-compatible server."""
        if self.uses_cli:
            return self.cli_command() is not None
        return bool(self.model_url and self.model)

    def model_setup_hint(self) -> str:
        """What to set for a model, naming only what is missing."""
        if self.model_provider is None and not self.model_url and not self.model:
            return (
                "run `memevo install AGENT --learn` (or set MEMEVO_MODEL_PROVIDER=claude-code, codex, gemini or pi) "
                "to learn with your agent's own login, or set MEMEVO_MODEL_URL and MEMEVO_MODEL for an "
                "OpenAI-compatible server"
            )
        if self.uses_cli:
            name = self.model_command or providers.COMMANDS[self.provider or ""]
            return (
                f"install {providers.TITLES[self.provider or '']} so that `{name}` runs for the worker "
                "(on its PATH), or set MEMEVO_MODEL_COMMAND to the CLI's absolute path"
            )
        wanted = {
            "MEMEVO_MODEL_URL": (
                self.model_url,
                "the base URL of an OpenAI-compatible API, e.g. http://127.0.0.1:11434/v1",
            ),
            "MEMEVO_MODEL": (self.model, "the model name it serves"),
        }
        missing = [f"{name} ({what})" for name, (value, what) in wanted.items() if not value]
        return "set " + " and ".join(missing or [f"{name} ({what})" for name, (_, what) in wanted.items()])

    @property
    def lease_seconds(self) -> float:
        """A lease covers the whole attempt budget plus a grace period."""
        return self.attempt_seconds + self.lease_grace_seconds

    @property
    def output_tokens(self) -> int:
        """Output cap for one request, clamped to a smaller known model limit."""
        if self.model_output_limit is not None:
            return min(self.max_output_tokens, self.model_output_limit)
        return self.max_output_tokens

    @property
    def memory_db(self) -> Path:
        return self.home / "memory.db"

    @property
    def queue_db(self) -> Path:
        return self.home / "queue.db"

    @property
    def backups_dir(self) -> Path:
        return self.home / "backups"

    def describe(self) -> dict[str, Any]:
        """The effective configuration with secrets masked, ready for printing."""
        out: dict[str, Any] = {}
        for name in type(self).model_fields:
            value = getattr(self, name)
            if name in SECRET_FIELDS:
                out[name] = "********" if value is not None else None
            elif name in URL_FIELDS:
                out[name] = redact(value) if value else None
            elif isinstance(value, Path):
                out[name] = str(value)
            elif isinstance(value, tuple):
                out[name] = list(value)
            else:
                out[name] = value
        out["model_provider"] = self.provider
        if self.uses_cli:
            out["model"] = self.cli_model or f"{providers.TITLES[self.provider or '']}'s own default"
        out["lease_seconds"] = self.lease_seconds
        out["store"] = store_label(self.backend)
        out["queue"] = queue_label(self.queue, self.backend)
        return out


def _lowered(value: Any) -> Any:
    return value.strip().lower() if isinstance(value, str) else value


def _printable_name(name: str) -> bool:
    text = name.strip()
    return 0 < len(text) <= 200 and not any(ord(ch) < 32 or ord(ch) == 127 for ch in text)


def store_label(backend: Backend) -> str:
    """The store for people, password masked: the PostgreSQL URL, or the SQLite file."""
    if backend.kind == POSTGRESQL:
        return redact(backend.url)
    return f"SQLite {backend.path}"


def queue_label(queue: Queue, backend: Backend) -> str:
    """The queue for people, password masked."""
    if queue.kind == REDIS:
        return f"RedisHuey at {redact(queue.url)}"
    if queue.kind == POSTGRESQL:
        if queue.url == backend.url:
            return "PostgresHuey in the same database"
        return f"PostgresHuey at {redact(queue.url)}"
    path = backend.path.parent / "queue.db" if backend.path is not None else "queue.db"
    return f"SQLite {path}"


def _env_name(field: str) -> str:
    return ENV_PREFIX + field.upper()


def _read_config_file(home: Path) -> dict[str, Any]:
    path = home / CONFIG_FILE
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}; fix or remove the file") from None
    unknown = sorted(set(data) - set(Settings.model_fields) - {"home"})
    if unknown:
        raise ConfigError(
            f"{path}: unknown setting {unknown[0]!r}; allowed: "
            + ", ".join(sorted(set(Settings.model_fields) - SECRET_FIELDS - {"home"}))
        )
    if "home" in data:
        raise ConfigError(f"{path}: 'home' cannot be set in the file; use MEMEVO_HOME")
    for secret in SECRET_FIELDS & set(data):
        raise ConfigError(f"{path}: {secret} must not be stored on disk; set {_env_name(secret)} instead")
    return data


def load_settings(env: Mapping[str, str] | None = None) -> Settings:
    """Build the effective settings from the environment and the optional config file."""
    env = os.environ if env is None else env
    home = state_home(env)
    values: dict[str, Any] = _read_config_file(home)
    origin = {name: f"{home / CONFIG_FILE}: {name}" for name in values}
    for name in Settings.model_fields:
        if name == "home":
            continue
        # Surrounding whitespace is never meant (a stray space in an env file); a blank
        # value is unset, so "MEMEVO_MODEL= " cannot name a model or send a blank key.
        raw = (env.get(_env_name(name)) or "").strip()
        if raw:
            values[name] = raw
            origin[name] = _env_name(name)
    values["home"] = home
    try:
        return Settings(**values)
    except ConfigError as exc:
        # backend names the environment variable; say so when the value came from the file.
        from_file = sorted(origin[name] for name in URL_FIELDS & set(origin) if not origin[name].startswith(ENV_PREFIX))
        raise ConfigError(f"{exc}" + (f" (set in {', '.join(from_file)})" if from_file else "")) from None
    except ValidationError as exc:
        first = exc.errors()[0]
        field = str(first["loc"][0]) if first["loc"] else "?"
        where = origin.get(field, _env_name(field))
        if field in SECRET_FIELDS:
            shown = "<hidden>"
        elif field in URL_FIELDS:
            shown = repr(redact(str(values.get(field))))
        else:
            shown = repr(values.get(field))
        raise ConfigError(f"invalid setting {where}={shown}: expected {ALLOWED.get(field, 'a valid value')}") from None
