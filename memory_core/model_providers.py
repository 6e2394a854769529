"""Which model the worker calls: an OpenAI-compatible server, or an agent's own CLI.

Pure data, read by the settings (memory_core.config), the worker (workers.providers) and
doctor/install. A CLI provider runs the person's agent headless for one model call, with the
agent's own login; memevo never sees that login.

Default models (used when ``MEMEVO_MODEL`` is unset) are each CLI's own alias for its cheap
tier, so a CLI upgrade moves the default with it and nothing here goes stale:

- ``claude-code``: ``haiku`` — the fastest, cheapest Claude tier; consolidation is short
  structured extraction, which it does well, and a Pro plan's limits last longest on it.
- ``codex``: none — Codex picks the model of the person's ``config.toml`` (a ChatGPT login
  may use only the models its plan offers, so a guessed name could be refused). Set
  ``MEMEVO_MODEL`` to a smaller model to save quota.
- ``gemini``: ``flash`` — Gemini CLI's alias for its current flash model: cheap, fast, and
  within the free tier's daily limits.
- ``pi``: none — Pi talks to whatever provider the person configured; its default
  model is theirs, and there is no tier name that means "cheap" across providers.

The provenance of a claim always names the model the CLI reported it ran, never these.
"""

from __future__ import annotations

OPENAI = "openai"
CLAUDE_CODE = "claude-code"
CODEX = "codex"
GEMINI = "gemini"
PI = "pi"

PROVIDERS: tuple[str, ...] = (OPENAI, CLAUDE_CODE, CODEX, GEMINI, PI)
CLI_PROVIDERS: tuple[str, ...] = (CLAUDE_CODE, CODEX, GEMINI, PI)

# The program each CLI provider runs when MEMEVO_MODEL_COMMAND is unset (looked up on PATH
# when an attempt runs, so a person's upgrade is picked up).
COMMANDS: dict[str, str] = {CLAUDE_CODE: "claude", CODEX: "codex", GEMINI: "gemini", PI: "pi"}
TITLES: dict[str, str] = {
    OPENAI: "an OpenAI-compatible server",
    CLAUDE_CODE: "Claude Code",
    CODEX: "Codex",
    GEMINI: "Gemini CLI",
    PI: "Pi",
}
DEFAULT_MODELS: dict[str, str | None] = {CLAUDE_CODE: "haiku", CODEX: None, GEMINI: "flash", PI: None}

# A subscription is the budget: at most this many consolidation calls and tokens a day.
# A busy day of coding captures about 50-150 sources; one call costs about 2,000-4,000
# tokens with the CLI's own additions (docs/operations.md, "Learning with your agent's own
# login"), so these cover such a day with room and stop a runaway long before a plan's quota.
CLI_DAILY_CALLS = 300
CLI_DAILY_TOKENS = 1_500_000
# An API key on a server is paid per token, and a first import may be thousands of sources.
HTTP_DAILY_CALLS = 5_000
HTTP_DAILY_TOKENS = 10_000_000

# The variable the worker sets for the CLI it runs; every memevo hook started under it
# returns at once (cli.main), so a consolidation never captures itself.
MODEL_CALL_MARKER = "MEMEVO_MODEL_CALL"


def is_cli_provider(provider: str | None) -> bool:
    """Whether ``provider`` runs an agent's CLI (rather than an HTTP server)."""
    return provider in CLI_PROVIDERS
