"""The development data sets in ../shared/eval read as conversations: the claims a store holds
and the questions asked of it, with their gold claim keys (used by ``recall_quality.py``).

The data is read where it lies and never copied into the repository.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

DAY = 86_400.0


@dataclass
class Claim:
    content: str
    at: float
    kind: str = "fact"
    keys: set[str] = field(default_factory=set)


@dataclass
class Question:
    texts: list[str]  # user texts, oldest first; the last is the question
    gold: set[str]
    now: float
    splits: tuple[str, ...] = ()


@dataclass
class Conversation:
    claims: list[Claim]
    questions: list[Question]


def _ids(value: object) -> list[str]:
    return [p for p in re.split(r"[,; ]+", str(value).strip()) if p]


def locomo(eval_dir: Path) -> Iterator[Conversation]:
    """Observations (one claim each, keyed by dialog id) and every QA item."""
    for sample in json.loads((eval_dir / "locomo-dev.json").read_text(encoding="utf-8")):
        conv = sample["conversation"]
        claims: list[Claim] = []
        times = []
        for key, speakers in sample["observation"].items():
            session = key.removesuffix("_observation")
            stamp = datetime.strptime(conv[f"{session}_date_time"], "%I:%M %p on %d %B, %Y")
            at = stamp.replace(tzinfo=UTC).timestamp()
            times.append(at)
            for items in speakers.values():
                for text, dia in items:
                    dias = dia if isinstance(dia, list) else [dia]
                    claims.append(Claim(text, at, keys={k for d in dias for k in _ids(d)}))
        now = max(times) + DAY
        questions = []
        for qa in sample["qa"]:
            category = int(qa["category"])
            splits = (
                ("LoCoMo categories 1-4", f"LoCoMo category {category}")
                if category != 5
                else ("LoCoMo category 5 (adversarial)",)
            )
            questions.append(Question([qa["question"]], {e for x in qa["evidence"] for e in _ids(x)}, now, splits))
        yield Conversation(claims, questions)


_MEMDAILY_TIME = re.compile(r"(\d{4})年(\d{2})月(\d{2})日 \S+ (\d{2}):(\d{2})")
# Each message ends with its envelope "(消息地点 <place>, 消息时间 <time>)": where and when it
# was sent. Capture would keep that as the source's time, not as claim text, so it becomes
# the claim's timestamp here (for both systems alike).
_MEMDAILY_ENVELOPE = re.compile(r"\s*\(消息地点[^()]*\)\s*$")


def _zh_time(text: str) -> float | None:
    match = _MEMDAILY_TIME.search(text)
    if not match:
        return None
    y, mo, d, h, mi = (int(g) for g in match.groups())
    return datetime(y, mo, d, h, mi, tzinfo=UTC).timestamp()


def memdaily(eval_dir: Path) -> Iterator[Conversation]:
    """Each trajectory of user messages is one conversation with one question."""
    data = json.loads((eval_dir / "memdaily-dev.json").read_text(encoding="utf-8"))
    for kind, block in data.items():
        for scenario, trajectories in block.items():
            for event in trajectories:
                messages = event["message_list"]
                claims = [
                    Claim(_MEMDAILY_ENVELOPE.sub("", m), _zh_time(m) or 0.0, keys={str(i)})
                    for i, m in enumerate(messages)
                ]
                qa = event["QA"]
                now = _zh_time(qa.get("time", "")) or max(c.at for c in claims) + DAY
                splits = ("MemDaily", f"MemDaily {scenario}", f"MemDaily {scenario} / {kind}")
                yield Conversation(
                    claims, [Question([qa["question"]], {str(i) for i in qa["target_step_id"]}, now, splits)]
                )


def madial(eval_dir: Path, lang: str) -> Conversation:
    """The language's whole memory file as claims; each test dialogue's user turns as the query."""
    folder = eval_dir / "madial-dev" / lang
    tag = "zh" if lang == "ch" else lang
    claims: list[Claim] = []
    for line in (folder / f"MADial-Bench-{tag}-memory.json").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        [(key, item)] = json.loads(line).items()
        at = datetime.strptime(item["time"], "%Y-%m-%d").replace(tzinfo=UTC).timestamp()
        kind = "preference" if item.get("scene") in ("喜好类", "Preferences") else "fact"
        claims.append(Claim(item["event"], at, kind, {str(key)}))
    now = max(c.at for c in claims) + DAY
    questions = []
    for line in (folder / f"MADial-Bench-{tag}-dialogue-dev.json").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        dialogue = json.loads(line)
        turn = dialogue["test-turn"][0]
        users = [
            re.sub(r"^<[^>]+>:\s*", "", t).strip().strip('"')
            for t in dialogue["dialogue"][1:turn]
            if not t.startswith("<Assistant>")
        ]
        questions.append(Question(users[-6:], {str(i) for i in dialogue["relevant-id"]}, now, (f"MADial {tag}",)))
    return Conversation(claims, questions)


# DevMemBench's units: each message cut at sentence ends into pieces of at most this many
# characters (consecutive sentences share a piece while they fit; a longer sentence is cut
# at a space).
DEVMEM_PIECE = 440
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def pieces(text: str, size: int = DEVMEM_PIECE) -> list[str]:
    """``text`` cut at sentence ends into pieces of at most ``size`` characters."""
    out: list[str] = []
    current = ""
    for sentence in (s.strip() for s in _SENTENCE_END.split(text)):
        while len(sentence) > size:
            cut = sentence.rfind(" ", 0, size)
            cut = cut if cut > 0 else size
            if current:
                out.append(current)
                current = ""
            out.append(sentence[:cut])
            sentence = sentence[cut:].strip()
        if not sentence:
            continue
        if current and len(current) + 1 + len(sentence) > size:
            out.append(current)
            current = ""
        current = f"{current} {sentence}" if current else sentence
    if current:
        out.append(current)
    return out


def devmembench(eval_dir: Path) -> Conversation:
    """Every session's messages (both roles) as pieces keyed by session; every question."""
    folder = eval_dir / "devmembench"
    claims: list[Claim] = []
    for session in json.loads((folder / "sessions.json").read_text(encoding="utf-8")):
        day = datetime.strptime(session["metadata"]["date"], "%Y-%m-%d").replace(tzinfo=UTC).timestamp()
        for n, message in enumerate(session["messages"]):
            for piece in pieces(message["content"]):
                # Messages of one session keep their order within the day.
                claims.append(Claim(piece, day + 60.0 * n, keys={session["sessionId"]}))
    now = max(c.at for c in claims) + DAY
    questions = []
    for qa in json.loads((folder / "questions.json").read_text(encoding="utf-8")):
        kind = qa["questionType"]
        splits = (
            ("DevMemBench abstention",) if kind == "abstention" else ("DevMemBench answerable", f"DevMemBench {kind}")
        )
        questions.append(Question([qa["question"]], set(qa["haystackSessionIds"]), now, splits))
    return Conversation(claims, questions)
