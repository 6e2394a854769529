"""``memevo serve``: a warm loopback server answering Claude Code's ``http`` hooks.

A command hook starts a Python process on every event; an ``http`` hook is one POST to a
process that is already running, its modules imported. The server answers each event with
exactly what ``memevo hook --agent claude-code`` prints for the same payload and state dir:
it runs the same boundary (:func:`cli.hooks.entry.parse_payload`, then
:func:`cli.hooks.entry.run_payload`) and answers with the bytes the command would print
(:func:`cli.hooks.entry.printed`), or ``204 No Content`` when it would print nothing.

What keeps it closed (docs/hooks.md, "The warm path"):

- it binds 127.0.0.1 only; any other host is refused before a socket is made;
- every request must carry ``Authorization: Bearer <token>`` (:mod:`cli.hooks.hook_token`),
  compared in constant time; without it: ``401`` and nothing done;
- the ``Host`` header must name the loopback address (``127.0.0.1`` or ``localhost`` with the
  port), so a web page that rebinds a name to 127.0.0.1 is refused (``403``);
- a body needs a ``Content-Length`` of at most the hook's own stdin bound (``411``, ``413``);
  a body that is not one JSON object is ``400``; at most :data:`MAX_IN_FLIGHT` requests run
  at once (``503`` beyond), and a client that stalls is dropped after :data:`READ_SECONDS`.

It is also the machine's **gateway** when the store is on PostgreSQL: a hook process never
imports a database driver, so ``memevo hook`` sends its raw input to ``POST /gateway/hook``
(:mod:`cli.hooks.gateway_client`, behind the same token and ``Host`` checks, for every agent
and event the command accepts) and prints the JSON ``{"stdout", "stderr"}`` it gets back,
which is exactly what the command would print. The server tells hooks where it listens in the
state dir's ``gateway`` file, and delivers the events hooks spooled while it was down
(:mod:`cli.hooks.spool`): when it starts, then every :data:`DRAIN_SECONDS` and after any
gateway request while the spool holds events.

It fails open like the hooks: a failure inside an event answers an empty success, so the
turn goes on, and is logged in ``logs/hooks.log`` as the command hook logs it; the client
never sees a traceback. Each request opens its own database connections (the hook code
opens and closes them per event), so requests on different threads share none.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TextIO
from urllib.parse import parse_qs, urlsplit

from cli.hooks import spool
from cli.hooks.entry import (
    ADAPTER_NAMES,
    MAX_STDIN_BYTES,
    log_failure,
    parse_payload,
    printed,
    run_hook,
    run_payload,
)
from cli.hooks.gateway_client import GATEWAY_PATH, NOW_HEADER, is_recall, remove_gateway_file, write_gateway_file
from cli.hooks.hook_token import bearer_matches
from cli.hooks.spool_drainer import DRAIN_SECONDS, SpoolDrainer
from cli.loopback_http import (
    LOOPBACK,
    LoopbackServer,
    QuietHandler,
    host_allowed,
    listen,
    serve_until_interrupted,
    stop_on_sigterm,
)
from memory_core import clock
from memory_core.clock import is_timestamp
from memory_core.errors import MemevoError, UsageError
from memory_core.privacy.sanitize import valid_text

DEFAULT_PORT = 17417
PATH_PREFIX = "/hooks/"
# The events each agent can send as http hooks, by the agent's --agent name. Claude Code
# sends every event but SessionStart (and Setup) over http; memevo answers those it installs.
HTTP_EVENTS: dict[str, tuple[str, ...]] = {
    "claude-code": ("UserPromptSubmit", "Stop", "StopFailure", "PostCompact", "SessionEnd"),
}
MAX_IN_FLIGHT = 8


def hook_path(agent: str, event: str) -> str:
    """The path an agent's ``event`` is posted to: ``/hooks/claude-code/Stop``."""
    return f"{PATH_PREFIX}{agent}/{event}"


def hook_url(agent: str, event: str, port: int) -> str:
    return f"http://{LOOPBACK}:{port}{hook_path(agent, event)}"


def route(path: str) -> tuple[str, str] | None:
    """``(agent, event)`` of a hook path, or ``None`` when the server answers no such path."""
    parts = urlsplit(path).path.split("/")
    if len(parts) != 4 or parts[0] or f"/{parts[1]}/" != PATH_PREFIX:
        return None
    agent, event = parts[2], parts[3]
    return (agent, event) if event in HTTP_EVENTS.get(agent, ()) else None


class HookServer(LoopbackServer):
    """The listening server: the token, the in-flight bound and where it notes problems."""

    label = "memevo serve"

    def __init__(self, port: int, token: str, *, log: TextIO | None = None) -> None:
        self.token = token
        self.drainer: SpoolDrainer | None = None
        super().__init__(port, HookRequestHandler, max_in_flight=MAX_IN_FLIGHT, log=log)


def make_server(host: str, port: int, token: str, *, log: TextIO | None = None) -> HookServer:
    """A :class:`HookServer` bound to ``host:port``; any host but 127.0.0.1 is a usage error."""
    if host != LOOPBACK:
        raise UsageError(f"memevo serve listens on {LOOPBACK} only, not {host!r}")
    return listen(lambda: HookServer(port, token, log=log), port)


def warm_up() -> None:
    """Import what the events need now, so the first hook is as fast as the rest."""
    import importlib

    for name in (
        "cli.hooks.adapters.claude_code",
        "cli.hooks.transcripts.stream",  # a turn end reads its turn streamed (docs/hooks.md, "Long turns")
        "cli.hooks.transcripts.keeper",
        "cli.hooks.dispatch",
        "cli.nudge",
        "workers.nudge_queue",
        "memory_core.recall.service",
        "memory_core.store.engines.database",
        "memory_core.capture.turn",
        "memory_core.capture.intake",
        "memory_core.capture.cues",
        "memory_core.capture.learning_log",
    ):
        try:
            importlib.import_module(name)
        except Exception:  # the event that needs it reports the failure
            pass


class HookRequestHandler(QuietHandler):
    """One request: checks in order (token, host, path, size, JSON), then the hook."""

    server: HookServer

    def do_POST(self) -> None:  # noqa: N802 (the name http.server calls)
        if not self._allowed():
            return
        if urlsplit(self.path).path == GATEWAY_PATH:
            if not self.server.slots.acquire(blocking=False):
                self._answer(503, "busy")
                return
            try:
                self._gateway()
            finally:
                self.server.slots.release()
            return
        target = route(self.path)
        if target is None:
            self._answer(404, "no such hook")
            return
        if not self.server.slots.acquire(blocking=False):
            self._answer(503, "busy")
            return
        try:
            self._hook(*target)
        finally:
            self.server.slots.release()

    def do_GET(self) -> None:  # noqa: N802
        if not self._allowed():
            return
        if urlsplit(self.path).path != "/health":
            self._answer(404, "no such path")
            return
        self._answer(200, json.dumps({"ok": True, "service": "memevo serve"}), "application/json")

    def _allowed(self) -> bool:
        if not bearer_matches(self.headers.get("Authorization"), self.server.token):
            self._answer(401, "a hook token is needed", extra={"WWW-Authenticate": "Bearer"})
            return False
        if not host_allowed(self.headers.get("Host"), self.server.port):
            self._answer(403, "wrong host")
            return False
        return True

    def _hook(self, agent: str, event: str) -> None:
        try:
            raw = self._body()
            if raw is None:
                return
            try:
                payload = parse_payload(raw)
            except UsageError as exc:
                message = valid_text(str(exc))
                log_failure(f"{event}: {message}")
                self._answer(400, message)
                return
            result = run_payload(payload, event, agent)
            if result.stderr:
                self.server.note(f"{event}: {result.stderr.removeprefix('memevo hook: ')}")
            body = printed(result.stdout)
        except MemevoError as exc:  # not expected: run_payload reports its own
            self.server.note(f"{event}: {valid_text(str(exc))}")
            body = ""
        except Exception as exc:  # fail open: the turn goes on
            import traceback

            log_failure(f"{event}: internal error in memevo serve", traceback.format_exc())
            self.server.note(f"{event}: internal error ({type(exc).__name__}); details in logs/hooks.log")
            body = ""
        if body:
            self._answer(200, body, "application/json")
        else:
            self._answer(204, "")

    def _gateway(self) -> None:
        """A command hook's call: its raw input, EVENT and ``--agent`` in, what it prints out."""
        query = parse_qs(urlsplit(self.path).query, keep_blank_values=True)
        event = query.get("event", [None])[0]
        agent = query.get("agent", [None])[0]
        if agent is not None and agent not in ADAPTER_NAMES:
            self._answer(400, f"unknown agent {agent[:64]!r}; use one of: {', '.join(ADAPTER_NAMES)}")
            return
        now: float | None = None
        given = self.headers.get(NOW_HEADER)
        if given is not None:
            try:
                now = float(given)
            except ValueError:
                now = None
            if not is_timestamp(now):
                self._answer(400, f"{NOW_HEADER} must be a UNIX timestamp")
                return
        raw = self._body()
        if raw is None:
            return
        when = now if now is not None else clock.now()

        def keep(exc: MemevoError) -> bool:
            """A capture the store cannot take now waits in the spool, as when this server is down."""
            if is_recall(raw, event) or self.server.drainer is None:
                return False
            spool.spool_event(self.server.drainer.home, raw, event, agent, when, log_failure)
            log_failure(f"{event or 'hook'}: kept in the spool until the store can be reached: {valid_text(str(exc))}")
            return True

        try:
            result = run_hook(raw, event, agent, when, keep)
            stdout, stderr = result.stdout, result.stderr
        except Exception as exc:  # fail open: the turn goes on
            import traceback

            log_failure(f"{event or 'hook'}: internal error in the gateway", traceback.format_exc())
            stdout, stderr = "", f"memevo hook: internal error ({type(exc).__name__}); details in logs/hooks.log"
        self._answer(200, json.dumps({"stdout": stdout, "stderr": stderr}), "application/json")
        drainer = self.server.drainer
        if drainer is not None and spool.pending(drainer.home):
            drainer.wake()

    def _body(self) -> bytes | None:
        """The request's body, or ``None`` once a refusal was sent."""
        length = self.declared_length()
        if length is None:
            self._answer(411, "send a Content-Length")
            return None
        if length > MAX_STDIN_BYTES:
            self._answer(413, f"hook input is larger than {MAX_STDIN_BYTES} bytes")
            return None
        return self.rfile.read(length)

    def _answer(
        self, status: int, text: str, content_type: str = "text/plain", extra: dict[str, str] | None = None
    ) -> None:
        body = text.encode("utf-8") if status != 204 else b""
        self.send_answer(status, body, {"Content-Type": f"{content_type}; charset=utf-8"} if body else {}, extra)
        if status >= 400:
            self.server.note(f"{status} {self.command} {urlsplit(self.path).path[:200]!r}")


def serve(
    port: int, token: str, home: Path, *, log: TextIO | None = None, drain_seconds: float = DRAIN_SECONDS
) -> None:
    """Listen on 127.0.0.1:``port`` until interrupted (SIGINT or SIGTERM); meanwhile the state
    dir's ``gateway`` file names the port and the spool is delivered."""
    import os

    server = make_server(LOOPBACK, port, token, log=log)
    warm_up()
    from memory_core.store.engines import pg

    pg.enable_pool()  # on PostgreSQL, requests reuse open connections (no connect per event)

    stop_on_sigterm()
    pid = os.getpid()
    try:
        write_gateway_file(home, server.port, pid)
    except OSError as exc:
        server.note(f"cannot write {home / 'gateway'} ({exc.strerror or exc}): command hooks will not find this server")
    server.drainer = SpoolDrainer(home, drain_seconds, server.note)
    server.drainer.start()
    server.note(f"listening on http://{LOOPBACK}:{server.port}{PATH_PREFIX} (state dir {home})")
    try:
        serve_until_interrupted(server)
    finally:
        remove_gateway_file(home, pid)
        server.drainer.stop()
        server.server_close()
