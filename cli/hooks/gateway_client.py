"""The hook's side of the gateway: on a PostgreSQL machine a hook hands its event to ``memevo serve``.

A hook process must never import a database driver (``import psycopg`` alone costs about
three times the whole SQLite hook), so on a machine whose store is PostgreSQL the warm
``memevo serve`` of the same state dir is its only database client: the hook sends the raw
payload, the event, the adapter name and the time of the event to ``POST /gateway/hook``
over loopback, with a raw socket (``http.client`` costs more to import than the rest of the
exchange), and prints exactly what the gateway answers.

The gateway is found with no configuration: ``memevo serve`` writes :data:`GATEWAY_FILE`
(``"PORT PID"``, mode 0600) in the state dir while it listens, and the hook sends the hook
token (``$MEMEVO_HOOK_TOKEN``, else the state dir's ``hook-token``, as
:mod:`cli.hooks.hook_token` reads it) and a loopback ``Host``.

When the gateway is down or does not answer in time, the hook fails open: a recall event
(one that prints context) prints nothing, within :data:`RECALL_SECONDS`; any other event
may store a source, so it is spooled (:mod:`cli.hooks.spool`) for the gateway to deliver
once it is back. :func:`probe` says whether the gateway answers, for doctor.
"""

from __future__ import annotations

import os
import socket
import time

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from pathlib import Path

    from cli.hooks.spool import Log

GATEWAY_FILE = "gateway"
GATEWAY_PATH = "/gateway/hook"
NOW_HEADER = "X-Memevo-Now"
LOOPBACK = "127.0.0.1"
CONNECT_SECONDS = 0.25  # loopback answers in well under a millisecond; a refused port at once
RECALL_SECONDS = 0.8  # the whole exchange of a recall, so the hook process ends within 1 s
CAPTURE_SECONDS = 5.0  # a capture may wait for a write; past this it is spooled (delivery dedupes)
# On SQLite the hook can always do the work itself, so it waits for a warm server only briefly.
WARM_RECALL_SECONDS = 0.15
WARM_CAPTURE_SECONDS = 1.0
TOKEN_VARIABLE = "MEMEVO_HOOK_TOKEN"  # as cli.hooks.hook_token (a test checks)
TOKEN_FILE = "hook-token"
MAX_ANSWER_BYTES = 8_000_000
# The events that print context (recall), by every name a hook can be given: the generic
# event and each agent's native name. Every other event may store a source.
RECALL_EVENTS = frozenset({"user_prompt", "UserPromptSubmit", "BeforeAgent", "before_agent_start"})


class GatewayDown(Exception):
    """The gateway cannot be reached or gave no usable answer; the message says why."""


def gateway_file(home: Path) -> Path:
    return home / GATEWAY_FILE


def write_gateway_file(home: Path, port: int, pid: int) -> None:
    """Record where this state dir's gateway listens (atomically, mode 0600)."""
    from memory_core.paths import private_temp_file
    from memory_core.store.engines.connection import ensure_private_dir

    ensure_private_dir(home)
    fd, temp = private_temp_file(home, f".{GATEWAY_FILE}.")
    try:
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(f"{port} {pid}\n")
        os.replace(temp, gateway_file(home))
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


def remove_gateway_file(home: Path, pid: int) -> None:
    """Remove the gateway file if it still names process ``pid`` (a newer server keeps its own)."""
    found = read_gateway(home)
    if found is not None and found[1] == pid:
        try:
            os.unlink(gateway_file(home))
        except OSError:
            pass


def read_gateway(home: Path) -> tuple[int, int] | None:
    """``(port, pid)`` from the gateway file, or ``None`` when there is none or it is unreadable."""
    try:
        with open(gateway_file(home), "rb") as handle:
            fields = handle.read(64).split()
        port, pid = int(fields[0]), int(fields[1])
    except (OSError, ValueError, IndexError):
        return None
    return (port, pid) if 0 < port < 65536 and pid > 0 else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: not our server
        return False
    return True


def read_token(home: Path) -> str | None:
    """The hook token as ``memevo serve`` reads it, without making one (none: no server ran)."""
    given = (os.environ.get(TOKEN_VARIABLE) or "").strip()
    if given:
        return given
    try:
        with open(home / TOKEN_FILE, "rb") as handle:
            text = handle.read(256).strip().decode("utf-8", "replace")
    except OSError:
        return None
    return text or None


def is_recall(raw: bytes, event: str | None) -> bool:
    """Whether the event prints context (recall) rather than possibly storing a source: by the
    command line's EVENT, else by the payload's ``hook_event_name``."""
    if event is not None:
        return event in RECALL_EVENTS
    if not any(name.encode() in raw for name in RECALL_EVENTS):
        return False
    import json

    try:
        payload = json.loads(raw.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return False
    return isinstance(payload, dict) and payload.get("hook_event_name") in RECALL_EVENTS


def exchange(
    home: Path,
    method: str,
    target: str,
    body: bytes = b"",
    headers: tuple[tuple[str, str], ...] = (),
    *,
    seconds: float = RECALL_SECONDS,
) -> tuple[int, bytes]:
    """One HTTP/1.0 request to this state dir's gateway: ``(status, body)``, or
    :class:`GatewayDown` within about ``seconds``."""
    deadline = time.monotonic() + seconds
    found = read_gateway(home)
    if found is None:
        raise GatewayDown(f"no {GATEWAY_FILE} file in the state dir: memevo serve is not running")
    port, pid = found
    if not _alive(pid):
        raise GatewayDown(f"memevo serve (pid {pid}) is not running")
    token = read_token(home)
    if token is None:
        raise GatewayDown(f"no hook token ({TOKEN_FILE} in the state dir or ${TOKEN_VARIABLE})")
    lines = [
        f"{method} {target} HTTP/1.0",
        f"Host: {LOOPBACK}:{port}",
        f"Authorization: Bearer {token}",
        f"Content-Length: {len(body)}",
        *(f"{name}: {value}" for name, value in headers),
    ]
    request = ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8") + body
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.settimeout(min(CONNECT_SECONDS, seconds))
        sock.connect((LOOPBACK, port))
        sock.settimeout(max(deadline - time.monotonic(), 0.001))
        sock.sendall(request)
        chunks = []
        size = 0
        while True:
            sock.settimeout(max(deadline - time.monotonic(), 0.001))
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_ANSWER_BYTES:
                raise GatewayDown("the answer is too large")
    except TimeoutError:
        raise GatewayDown(f"no answer from 127.0.0.1:{port} within {seconds:g} s") from None
    except OSError as exc:
        raise GatewayDown(f"cannot reach 127.0.0.1:{port}: {exc.strerror or exc}") from None
    finally:
        sock.close()
    return _response(b"".join(chunks))


def _response(data: bytes) -> tuple[int, bytes]:
    head, sep, body = data.partition(b"\r\n\r\n")
    status_line, _, header_text = head.partition(b"\r\n")
    parts = status_line.split(None, 2)
    if not sep or len(parts) < 2 or not parts[0].startswith(b"HTTP/") or not parts[1].isdigit():
        raise GatewayDown("the answer is not HTTP")
    for line in header_text.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length" and value.strip().isdigit() and int(value) != len(body):
            raise GatewayDown("the answer was cut short")
    return int(parts[1]), body


def gateway_target(event: str | None, adapter: str | None) -> str:
    from urllib.parse import quote

    query = []
    if event is not None:
        query.append("event=" + quote(event, safe=""))
    if adapter is not None:
        query.append("agent=" + quote(adapter, safe=""))
    return GATEWAY_PATH + ("?" + "&".join(query) if query else "")


def forward(
    home: Path, raw: bytes, event: str | None, adapter: str | None, now: float, *, seconds: float
) -> tuple[str, str]:
    """What the gateway answers for one hook call, or :class:`GatewayDown`."""
    status, body = exchange(
        home,
        "POST",
        gateway_target(event, adapter),
        raw,
        (("Content-Type", "application/octet-stream"), (NOW_HEADER, repr(now))),
        seconds=seconds,
    )
    if status != 200:
        detail = body[:200].decode("utf-8", "replace").strip()
        raise GatewayDown(f"memevo serve answered {status}{': ' + detail if detail else ''}")
    import json

    try:
        answer = json.loads(body.decode("utf-8"))
        stdout, stderr = answer["stdout"], answer["stderr"]
    except (ValueError, KeyError, TypeError):
        raise GatewayDown("the answer is not the gateway's JSON") from None
    if not isinstance(stdout, str) or not isinstance(stderr, str):
        raise GatewayDown("the answer is not the gateway's JSON")
    return stdout, stderr


def run_through_gateway(
    home: Path, raw: bytes, event: str | None, adapter: str | None, log_failure: Log
) -> tuple[str, str]:
    """One hook call on a PostgreSQL machine: the gateway's answer; when it is down, nothing for a
    recall and a spooled event for anything else: ``(stdout, stderr)``. Never raises (except on
    interpreter exit); ``log_failure`` is the hook log's writer."""
    from memory_core import clock

    now = clock.now()
    label = event or "hook"
    try:
        recall = is_recall(raw, event)
        try:
            return forward(home, raw, event, adapter, now, seconds=RECALL_SECONDS if recall else CAPTURE_SECONDS)
        except GatewayDown as exc:
            why = str(exc)
        if recall:
            log_failure(f"{label}: no recall: the gateway is down ({why}); start `memevo serve`")
            return "", ""
        from cli.hooks.spool import excluded_payload, spool_event

        if excluded_payload(home, raw):
            return "", ""  # its delivery would capture nothing: nothing of it waits on disk
        spool_event(home, raw, event, adapter, now, log_failure)
        log_failure(f"{label}: spooled for memevo serve ({why})")
        return "", ""
    except Exception as exc:  # fail open: the agent's turn goes on
        import traceback

        log_failure(f"{label}: internal error on the way to the gateway", traceback.format_exc())
        return "", f"memevo hook: internal error ({type(exc).__name__}); details in logs/hooks.log"


def try_warm_server(home: Path, raw: bytes, event: str | None, adapter: str | None) -> tuple[str, str] | None:
    """One hook call on a SQLite machine where ``memevo serve`` runs: the warm server's answer
    ``(stdout, stderr)``, or ``None`` when it does not answer within :data:`WARM_RECALL_SECONDS`
    (a recall) or :data:`WARM_CAPTURE_SECONDS` (anything else), and the hook does the work
    itself. A capture done twice that way (the server was slow, not dead) is one source:
    capture dedupes by deterministic ids. Never raises."""
    try:
        from memory_core import clock

        seconds = WARM_RECALL_SECONDS if is_recall(raw, event) else WARM_CAPTURE_SECONDS
        return forward(home, raw, event, adapter, clock.now(), seconds=seconds)
    except Exception:  # GatewayDown, or anything unexpected: the hook's own path is the answer
        return None


def probe(home: Path, *, seconds: float = 1.0) -> tuple[bool, str]:
    """Whether this state dir's gateway answers: ``(True, "memevo serve answers on 127.0.0.1:PORT")``
    or ``(False, why)``; for doctor. Never raises."""
    try:
        status, body = exchange(home, "GET", "/health", seconds=seconds)
    except GatewayDown as exc:
        return False, str(exc)
    except Exception as exc:
        return False, f"cannot ask memevo serve: {type(exc).__name__}: {exc}"
    found = read_gateway(home)
    where = f"127.0.0.1:{found[0]}" if found else "loopback"
    if status == 200 and b"memevo serve" in body:
        return True, f"memevo serve answers on {where}"
    if status == 401:
        return False, f"memevo serve on {where} refuses the hook token; restart it with the same MEMEVO_HOOK_TOKEN"
    return False, f"the server on {where} answered {status}, not as memevo serve"
