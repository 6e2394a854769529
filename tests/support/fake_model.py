"""A real loopback HTTP server standing in for an OpenAI-compatible chat model.

In-process::

    with FakeModelServer() as server:
        server.enqueue(Reply(content='{"claims": []}'), Reply(status=500), Reply(hang=True))
        ...  # point MEMEVO_MODEL_URL at server.base_url
        assert server.request_count == 3

As a separate process (for a worker running in another process)::

    python -m tests.support.fake_model --port-file PORT [--script replies.json]
        [--count-file COUNT] [--requests-file REQUESTS.jsonl] [--default claims|empty]
        [--default-delay SECONDS] [--reject-param NAME[.type=VALUE]]... [--behave-like SERVER]

It writes the bound port to ``--port-file`` once it is listening, keeps the number of
requests received in ``--count-file`` and appends each request body as one JSON line to
``--requests-file``. It runs until SIGTERM or SIGINT. ``--script`` is a JSON array of
reply objects with the fields of :class:`Reply`. :class:`FakeModelProcess` wraps all this.

Replies are taken from the script queue in arrival order; once it is empty, the default
reply answers with one valid claim derived from the source text in the prompt, so many
different sources yield distinct claims. Only the standard library is used.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from tests.support.loopback_server import LoopbackHandler, LoopbackServer, serve, write_atomically
from tests.support.server_behaviours import BEHAVIOURS

REPO = Path(__file__).resolve().parents[2]
COMPLETIONS_PATH = "/v1/chat/completions"


@dataclass(frozen=True)
class Reply:
    """One scripted answer.

    ``content``/``finish_reason``/``usage`` shape a normal completion (``content=None``
    uses the default content). ``status`` other than 200 sends an error body; ``body``
    sends exactly that text instead of a completion; ``delay`` waits first; ``hang``
    accepts the request and never answers; ``trickle`` sends headers and then one byte
    every ``trickle`` seconds without ever finishing; ``tool_calls`` adds a tool call to
    the message.

    What real OpenAI-compatible servers do differently: ``content_parts`` sends the
    content as that list of parts instead of a string; ``reasoning`` adds a
    ``reasoning_content`` field before the content (vLLM, llama.cpp and DeepSeek with a
    reasoning parser); ``omit_usage`` leaves ``usage`` out; ``headers`` adds response
    headers (``Retry-After`` on a 429).
    """

    content: str | None = None
    finish_reason: str | None = "stop"
    usage: dict[str, Any] | None = None  # None: estimated from the request and reply sizes
    status: int = 200
    body: str | None = None
    delay: float = 0.0
    hang: bool = False
    trickle: float | None = None
    tool_calls: bool = False
    model: str | None = None
    content_parts: list[Any] | None = None
    reasoning: str | None = None
    omit_usage: bool = False
    headers: dict[str, str] | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Reply:
        """A reply from one object of a ``--script`` file; unknown keys are an error."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown reply field(s) {unknown}; allowed: {sorted(known)}")
        return cls(**data)

    @classmethod
    def of_claims(cls, claims: list[dict[str, Any]], **extra: Any) -> Reply:
        """A normal completion whose content is ``{"claims": claims}``."""
        return cls(content=json.dumps({"claims": claims}, ensure_ascii=False), **extra)


def _fenced_blocks(text: str) -> list[str]:
    blocks, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        if re.fullmatch(r"`{3,}", lines[i]):
            fence, j = lines[i], i + 1
            while j < len(lines) and lines[j] != fence:
                j += 1
            blocks.append("\n".join(lines[i + 1 : j]))
            i = j
        i += 1
    return blocks


def claims_from_prompt(request: dict[str, Any]) -> str:
    """Default content: one valid claim naming the source text (the first fenced block of
    the last user message); a progress prompt gets a ``project_state`` replacing the first
    nominated id."""
    user = ""
    for message in request.get("messages", []):
        if isinstance(message, dict) and message.get("role") == "user":
            user = str(message.get("content", ""))
    blocks = _fenced_blocks(user)
    source = " ".join((blocks[0] if blocks else user).split())[:300] or "(empty source)"
    claim: dict[str, Any] = {"kind": "fact", "content": f"Noted: {source}"}
    nominated = re.search(r"^Nominated ids: ([0-9a-f]{24})", user, re.MULTILINE)
    if nominated:
        claim = {"kind": "project_state", "content": f"Now: {source}", "replaces": nominated.group(1)}
    return json.dumps({"claims": [claim]}, ensure_ascii=False)


def empty_claims(request: dict[str, Any]) -> str:
    """Default content that learns nothing."""
    return '{"claims": []}'


DEFAULTS: dict[str, Callable[[dict[str, Any]], str]] = {"claims": claims_from_prompt, "empty": empty_claims}


class FakeModelServer(LoopbackServer):
    """A threaded loopback server answering ``POST /v1/chat/completions``."""

    thread_name = "fake-model"

    def __init__(
        self,
        script: Iterable[Reply] = (),
        *,
        default: Callable[[dict[str, Any]], str] = claims_from_prompt,
        default_delay: float = 0.0,
        port: int = 0,
        count_file: Path | None = None,
        requests_file: Path | None = None,
        reject_params: Iterable[str] = (),
        behave_like: str | None = None,
    ) -> None:
        """``behave_like`` names one of :data:`BEHAVIOURS`: the server then refuses requests
        the way that server does (status and error body) before any scripted reply is used.
        ``reject_params`` makes the server answer 400 to a request carrying one of these
        parameters, the way strict servers refuse what they do not know, before any
        scripted reply is used: ``"response_format"`` refuses it in any form,
        ``"response_format.type=json_object"`` only that type (LM Studio's refusal)."""
        super().__init__(_make_handler, port=port)
        self._queue: deque[Reply] = deque(script)
        self._reject_params = tuple(reject_params)
        self._behaviour = BEHAVIOURS[behave_like] if behave_like else None
        self._default = default
        self._default_delay = default_delay
        self._count = 0
        self._requests: list[dict[str, Any]] = []
        self._headers: list[dict[str, str]] = []
        self._count_file = count_file
        self._requests_file = requests_file
        if count_file is not None:
            write_atomically(count_file, "0")

    @property
    def base_url(self) -> str:
        """What ``MEMEVO_MODEL_URL`` should be set to."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def request_count(self) -> int:
        """Completion requests received so far (counted on arrival, before replying)."""
        with self._lock:
            return self._count

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Parsed bodies of the completion requests received so far."""
        with self._lock:
            return list(self._requests)

    @property
    def request_headers(self) -> list[dict[str, str]]:
        """HTTP headers of the completion requests received so far (names lower-cased)."""
        with self._lock:
            return [dict(h) for h in self._headers]

    def enqueue(self, *replies: Reply) -> None:
        """Add scripted replies, used in order before the default."""
        with self._lock:
            self._queue.extend(replies)

    def rejects(self, request: dict[str, Any]) -> str | None:
        """The rejected parameter a request carries, if any (see ``reject_params``)."""
        for rule in self._reject_params:
            name, _, wanted = rule.partition(".type=")
            if name not in request:
                continue
            value = request[name]
            if not wanted or (isinstance(value, dict) and value.get("type") == wanted):
                return name
        return None

    def refusal(self, request: dict[str, Any]) -> tuple[int, bytes] | None:
        """The status and body a request gets from ``behave_like``'s server, if it refuses it."""
        return self._behaviour(request) if self._behaviour is not None else None

    def _record(self, body: dict[str, Any], headers: dict[str, str], consume: bool = True) -> tuple[int, Reply | None]:
        """Count and log one request; return its number and the next scripted reply."""
        with self._lock:
            self._count += 1
            self._requests.append(body)
            self._headers.append(headers)
            if self._count_file is not None:
                write_atomically(self._count_file, str(self._count))
            if self._requests_file is not None:
                with self._requests_file.open("a", encoding="utf-8") as out:
                    out.write(json.dumps(body, ensure_ascii=False) + "\n")
            return self._count, (self._queue.popleft() if self._queue and consume else None)

    def _completion(self, number: int, request: dict[str, Any], raw: bytes, reply: Reply) -> bytes:
        content = reply.content if reply.content is not None else self._default(request)
        message: dict[str, Any] = {"role": "assistant"}
        if reply.reasoning is not None:
            message["reasoning_content"] = reply.reasoning  # before the content, as vLLM sends it
        message["content"] = reply.content_parts if reply.content_parts is not None else content
        if reply.tool_calls:
            message["content"] = None
            message["tool_calls"] = [
                {"id": "call_1", "type": "function", "function": {"name": "write_file", "arguments": "{}"}}
            ]
        usage = reply.usage
        if usage is None:
            usage = {"prompt_tokens": len(raw) // 4, "completion_tokens": max(1, len(content) // 4)}
        usage = {**usage, "total_tokens": sum(v for v in usage.values() if isinstance(v, int))}
        choice: dict[str, Any] = {"index": 0, "message": message}
        if reply.finish_reason is not None:
            choice["finish_reason"] = reply.finish_reason
        body = {
            "id": f"chatcmpl-fake-{number}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": reply.model or request.get("model") or "fake-model",
            "choices": [choice],
            "usage": usage,
        }
        if reply.omit_usage:
            del body["usage"]
        return json.dumps(body, ensure_ascii=False).encode("utf-8")


TEST_KEY = "sk-testkeyvalue0123456789abcdef"  # a model API key of the right shape, never a real one


def point_at(server: FakeModelServer, monkeypatch: Any, model_name: str = "fake-model") -> None:
    """Point the settings of this test (``monkeypatch``: pytest's) at ``server``."""
    monkeypatch.setenv("MEMEVO_MODEL_URL", server.base_url)
    monkeypatch.setenv("MEMEVO_MODEL", model_name)
    monkeypatch.setenv("MEMEVO_MODEL_API_KEY", TEST_KEY)


def _make_handler(server: FakeModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(LoopbackHandler):
        def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
            self.send(status, body, headers=headers)

        def do_POST(self) -> None:
            raw = self.read_body()
            if self.path != COMPLETIONS_PATH:
                self._send(404, b'{"error": {"message": "not found"}}')
                return
            try:
                request = json.loads(raw)
            except ValueError:
                self._send(400, b'{"error": {"message": "request body is not JSON"}}')
                return
            headers = self.lower_headers()
            rejected = server.rejects(request) if isinstance(request, dict) else None
            refusal = server.refusal(request) if isinstance(request, dict) and rejected is None else None
            number, scripted = server._record(request, headers, consume=rejected is None and refusal is None)
            if refusal is not None:
                self._send(*refusal)
                return
            if rejected is not None:
                self._send(
                    400,
                    json.dumps(
                        {"error": {"message": f"unsupported parameter: {rejected}", "type": "invalid_request_error"}}
                    ).encode("utf-8"),
                )
                return
            reply = scripted or Reply(delay=server._default_delay)
            if reply.hang:
                server.stopping.wait()
                self.close_connection = True
                return
            if reply.delay and server.stopping.wait(reply.delay):
                return
            if reply.trickle is not None:
                self._trickle(reply.trickle)
                return
            if reply.body is not None:
                self._send(reply.status, reply.body.encode("utf-8"), reply.headers)
            elif reply.status != 200:
                self._send(reply.status, b'{"error": {"message": "scripted failure", "type": "fake"}}', reply.headers)
            else:
                self._send(200, server._completion(number, request, raw, reply), reply.headers)

        def _trickle(self, every: float) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(10**9))
            self.end_headers()
            self.close_connection = True
            try:
                while not server.stopping.wait(every):
                    self.wfile.write(b" ")
                    self.wfile.flush()
            except OSError:
                pass  # the client gave up, which is the point

    return Handler


class FakeModelProcess:
    """Runs the fake server as its own process and reads its counters from files."""

    def __init__(
        self,
        workdir: Path,
        script: Iterable[Reply | dict[str, Any]] = (),
        *,
        default: str = "claims",
        default_delay: float = 0.0,
        reject_params: Iterable[str] = (),
        behave_like: str | None = None,
    ) -> None:
        self.workdir = workdir
        self.port_file = workdir / "fake-model.port"
        self.count_file = workdir / "fake-model.count"
        self.requests_file = workdir / "fake-model.requests.jsonl"
        self.script_file = workdir / "fake-model.script.json"
        replies = [r if isinstance(r, dict) else _reply_dict(r) for r in script]
        self.script_file.write_text(json.dumps(replies), encoding="utf-8")
        self.args = [
            sys.executable,
            "-m",
            "tests.support.fake_model",
            "--port-file",
            str(self.port_file),
            "--script",
            str(self.script_file),
            "--count-file",
            str(self.count_file),
            "--requests-file",
            str(self.requests_file),
            "--default",
            default,
            "--default-delay",
            str(default_delay),
        ]
        for rule in reject_params:
            self.args += ["--reject-param", rule]
        if behave_like:
            self.args += ["--behave-like", behave_like]
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0

    def start(self, timeout: float = 15.0) -> FakeModelProcess:
        """Launch and wait until it is listening."""
        self.port_file.unlink(missing_ok=True)
        self.process = subprocess.Popen(self.args, cwd=str(REPO))
        deadline = time.monotonic() + timeout
        while not self.port_file.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("fake model server did not start")
            time.sleep(0.02)
        self.port = int(self.port_file.read_text(encoding="utf-8"))
        return self

    @property
    def base_url(self) -> str:
        """What ``MEMEVO_MODEL_URL`` should be set to."""
        return f"http://127.0.0.1:{self.port}/v1"

    def request_count(self) -> int:
        """Completion requests the server has received so far."""
        try:
            return int(self.count_file.read_text(encoding="utf-8") or 0)
        except FileNotFoundError:
            return 0

    def requests(self) -> list[dict[str, Any]]:
        """Parsed bodies of the requests received so far."""
        if not self.requests_file.exists():
            return []
        lines = self.requests_file.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    def stop(self) -> None:
        """Terminate the server process (it exits promptly even with hanging requests)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self) -> FakeModelProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _reply_dict(reply: Reply) -> dict[str, Any]:
    return {f.name: getattr(reply, f.name) for f in fields(Reply)}


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: serve until SIGTERM/SIGINT."""
    parser = argparse.ArgumentParser(prog="python -m tests.support.fake_model", description=__doc__.split("\n")[0])
    parser.add_argument("--port-file", type=Path, required=True, help="write the bound port here once listening")
    parser.add_argument("--port", type=int, default=0, help="port to bind (default: any free port)")
    parser.add_argument("--script", type=Path, help="JSON array of scripted replies, used in order")
    parser.add_argument("--count-file", type=Path, help="keep the number of requests received here")
    parser.add_argument("--requests-file", type=Path, help="append each request body here as a JSON line")
    parser.add_argument(
        "--default",
        choices=sorted(DEFAULTS),
        default="claims",
        help="reply content once the script is used up (default: claims)",
    )
    parser.add_argument("--default-delay", type=float, default=0.0, help="seconds to wait before a default reply")
    parser.add_argument(
        "--reject-param",
        action="append",
        default=[],
        help="answer 400 to requests carrying this parameter (name or name.type=value)",
    )
    parser.add_argument("--behave-like", choices=sorted(BEHAVIOURS), help="refuse requests the way this server does")
    args = parser.parse_args(argv)
    script = []
    if args.script is not None:
        script = [Reply.from_dict(item) for item in json.loads(args.script.read_text(encoding="utf-8"))]
    server = FakeModelServer(
        script,
        default=DEFAULTS[args.default],
        default_delay=args.default_delay,
        port=args.port,
        count_file=args.count_file,
        requests_file=args.requests_file,
        reject_params=args.reject_param,
        behave_like=args.behave_like,
    )
    return serve(server, args.port_file)


if __name__ == "__main__":
    sys.exit(main())
