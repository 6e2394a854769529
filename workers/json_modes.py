"""How a model server is asked for JSON, in the spellings servers understand, and how a
server says it does not understand one.

The modes, strongest first (``auto`` tries them in this order, within one attempt):

- ``schema``: ``response_format: {"type": "json_schema", "json_schema": {…}}``, OpenAI's
  spelling, also read by LM Studio, vLLM, llama.cpp's ``llama-server`` and Ollama's
  OpenAI-compatible endpoint (``/v1``, where it becomes Ollama's ``format``).
- ``object_schema``: ``response_format: {"type": "json_object", "schema": {…}}``, the
  spelling of llama-cpp-python's server (which answers the first one with HTTP 500) and
  llama.cpp's.
- ``guided_json``: ``guided_json: {…}`` beside the messages, vLLM's own field (its older
  releases know no ``json_schema`` type).
- ``object``: ``response_format: {"type": "json_object"}``, any JSON object.
- ``off``: no constraint; the prompt alone asks for the JSON.

The schema is always :func:`~memory_core.consolidation.contract.response_schema`, which
carries the validator's limits, so a server that decodes under it cannot write an answer the
validator rejects.
"""

from __future__ import annotations

import re
from typing import Any

from memory_core.consolidation.contract import response_schema
from memory_core.jobs.model_state import JSON_MODES

SCHEMA_NAME = "memevo_claims"
# What a server error says when the parameter it refuses is the one that asks for JSON:
# FastAPI/pydantic servers name it ("body.response_format.type: Input should be 'text' or
# 'json_object'"), others the schema or the grammar they failed to build from it.
_REFUSAL_WORDS = re.compile(
    rb"response_format|json_schema|json_object|guided_json|structured output|grammar|schema", re.IGNORECASE
)
# HTTP statuses that refuse a request as malformed: with a JSON mode in it, that mode is the
# likely cause, so the next one is tried (the last one's error stands when all are refused).
_REFUSED_STATUSES = frozenset({400, 422})

DESCRIPTIONS = {
    "schema": "response_format json_schema (OpenAI's spelling)",
    "object_schema": "response_format json_object with a schema (llama.cpp's spelling)",
    "guided_json": "guided_json (vLLM's spelling)",
    "object": "response_format json_object (any JSON object)",
    "off": "no JSON constraint (the prompt alone)",
}


def modes_from(first: str, fallback: bool) -> tuple[str, ...]:
    """The modes to try: ``first`` and, with ``fallback``, every weaker one after it."""
    if first not in JSON_MODES:
        raise ValueError(f"unknown JSON mode {first!r}")
    return JSON_MODES[JSON_MODES.index(first) :] if fallback else (first,)


def request_fields(json_mode: str) -> dict[str, Any]:
    """The request fields that ask for ``json_mode`` (none for ``off``)."""
    if json_mode == "schema":
        return {
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": SCHEMA_NAME, "strict": True, "schema": response_schema()},
            }
        }
    if json_mode == "object_schema":
        return {"response_format": {"type": "json_object", "schema": response_schema()}}
    if json_mode == "guided_json":
        return {"guided_json": response_schema()}
    if json_mode == "object":
        return {"response_format": {"type": "json_object"}}
    if json_mode == "off":
        return {}
    raise ValueError(f"unknown JSON mode {json_mode!r}")


def refused(json_mode: str, status: int, body: bytes) -> bool:
    """Whether an error answer to a request in ``json_mode`` refuses the way it asked for
    JSON: HTTP 400 or 422, or a server error whose body names it. ``body`` is read here
    and nowhere else: it is never stored or logged."""
    if json_mode == "off":
        return False
    if status in _REFUSED_STATUSES:
        return True
    return status >= 500 and _REFUSAL_WORDS.search(body) is not None
