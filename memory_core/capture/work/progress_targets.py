"""Which remembered project states a progress source may update: the nominated targets.

Nominated are at most :data:`MAX_TARGETS` claims that are active, unpinned ``project_state``
claims of the capture's project (its origin and the path origins recorded as its aliases,
memory_core.store.tables.origin_aliases; replacement authority never crosses projects; a state gone
dormant for recall still counts, a forgotten or conflicted one does not) and that the turn
names, in one of three ways:

* **a qualified path**: a path the claim states is a resource of the turn (``cd``,
  ``git -C``, a file an operation read or wrote, a path the user wrote) or encloses one, or
  lies inside a real checkout root one of them belongs to;
* **a bare project name**: the claim names a resource's checkout (or directory) by its
  basename as a word, e.g. ``memevo`` for ``/work/memevo``;
* **a topic**: the claim shares a subject word with the user's request, beyond the
  generic words of any progress report (commit, push, test, done, pending …).

The working directory alone is no evidence, and tool output is never read here. A claim
that states an absolute path with the basename of a resource but somewhere else (another
clone of the same project) cannot qualify through its name or a topic. States that are
still pending ("not pushed yet", "待完成") come first, then the strength of the match, then
the most recently updated.

Only states the current person may see are nominated (their own and the team's shared
ones, memory_core.store.schema.owners.visible_clause): another member's personal state is never
offered to this person's model.

Standard library only: nomination runs in the per-turn hook.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Sequence

from memory_core.capture.work.progress import Resource
from memory_core.store.engines.dbapi import DbConn, is_postgres
from memory_core.store.tables.origin_aliases import project_origins

MAX_TARGETS = 8
POOL_LIMIT = 2_000  # newest project states of the origin considered
QUALIFIED, BARE_NAME, TOPIC = 3, 2, 1

_PENDING = re.compile(
    r"(?i)\b(?:not(?:\s+yet)?\s+(?:been\s+)?(?:committed|pushed|merged|done|finished|deployed|released|fixed|"
    r"passing|complete|completed|tested|reviewed|built|installed|started|implemented)|pending|todo|to-do|to do|"
    r"in progress|wip|unfinished|incomplete|outstanding|remaining|blocked|failing|fails|failed|broken|not yet|"
    r"yet to|still needs?|needs? to|awaiting|waiting|uncommitted|unpushed|unmerged|open)\b"
    r"|未提交|未推送|未完成|尚未|还没|还未|待(?:完成|提交|推送|处理|修复|合并)|进行中|失败|阻塞|没有提交|没有推送"
)
_GENERIC_WORDS = """
commit commits committed committing push pushed pushing merge merged merging test tests tested testing
build builds built building install installed installing run runs ran running fix fixes fixed fixing
change changes changed update updates updated work works worked working done pending finish finished
complete completed completion project projects repo repos repository branch branches file files code
status state progress yet still need needs needed step steps task tasks feature features now then next
current latest new old start started stop stopped try tried again last first pass passes passed passing
fail fails failed failing failure success successful error errors check checks checked please also result
results remote origin main master local changes upstream release released deploy deployed ok
提交 推送 合并 测试 构建 安装 运行 修复 修改 更新 完成 状态 进度 项目 仓库 分支 文件 代码 任务 失败 成功
"""
_GENERIC_NAMES = frozenset(
    """
src lib libs tmp temp app apps main master test tests docs doc home work repo repos project projects code
build dist bin scripts script data config etc usr var opt users user dev tools util utils packages pkg
""".split()
)


@functools.cache
def _generic_features() -> frozenset[str]:
    from memory_core.text.tokenize import features  # only a progress source needs the tokenizer

    return frozenset(features(_GENERIC_WORDS))


def subject_features(text: str) -> set[str]:
    """Informative features of ``text`` minus generic progress words and path literals."""
    from memory_core.text.tokenize import features

    generic = _generic_features()
    return {f for f in features(text) if (len(f) >= 3 or not f.isascii()) and f not in generic and "/" not in f}


# Record classes are tuples written out, not ``typing.NamedTuple`` (which compiles code for each
# class on every hook start and needs ``typing``; docs/hooks.md, "Cost").
class Nomination(tuple[str, bool, int, float]):
    """A nominated project state and why."""

    __slots__ = ()

    def __new__(cls, memory_id: str, pending: bool, strength: int, updated_at: float) -> Nomination:
        return tuple.__new__(cls, (memory_id, pending, strength, updated_at))

    def __getnewargs__(self) -> tuple[object, ...]:
        return tuple(self)

    @property
    def memory_id(self) -> str:
        return self[0]

    @property
    def pending(self) -> bool:
        return self[1]

    @property
    def strength(self) -> int:
        return self[2]

    @property
    def updated_at(self) -> float:
        return self[3]


def is_pending(content: str) -> bool:
    """Whether a state says something is not done yet."""
    return bool(_PENDING.search(content))


def _within(path: str, ancestor: str) -> bool:
    ancestor = ancestor.rstrip("/") or "/"
    return path == ancestor or path.startswith(ancestor + "/")


def _claim_paths(text: str) -> list[str]:
    from memory_core.capture.work.work_operations import absolute_paths

    return [os.path.normpath(os.path.expanduser(p)) for p in absolute_paths(text)]


def _word_in(name: str, text: str) -> bool:
    return re.search(rf"(?<![\w./-]){re.escape(name)}(?![\w/-])", text, re.IGNORECASE) is not None


def _path_strength(paths: list[str], text: str, resources: Sequence[Resource]) -> tuple[int, bool]:
    """How a claim relates to the turn's resources, and whether it names a conflicting path."""
    strength = 0
    conflict = False
    for resource in resources:
        related = False
        for path in paths:
            if (
                _within(resource.path, path)
                or _within(resource.root, path)
                or (resource.is_checkout and _within(path, resource.root))
            ):
                strength = max(strength, QUALIFIED)
                related = True
        name = os.path.basename(resource.root.rstrip("/"))
        usable = len(name) >= 3 and name.lower() not in _GENERIC_NAMES
        same_name_elsewhere = any(os.path.basename(p.rstrip("/")) == name for p in paths) and not related
        if usable and same_name_elsewhere:
            conflict = True
        elif usable and not related and _word_in(name, text):
            strength = max(strength, BARE_NAME)
    return strength, conflict


def nominate(
    conn: DbConn,
    *,
    origin: str,
    topics: Sequence[str],
    resources: Sequence[Resource],
    limit: int = MAX_TARGETS,
) -> list[Nomination]:
    """At most ``limit`` project states of ``origin``'s project the turn names; pending first."""
    topic_features: set[str] = set()
    for text in topics:
        topic_features |= subject_features(text)
    found: list[Nomination] = []
    origins = project_origins(conn, origin)
    marks = ",".join("?" * len(origins))
    visible, owners = _visible(conn)
    rows = conn.execute(
        f"SELECT id, updated_at, body FROM memories WHERE origin IN ({marks}) AND kind='project_state' "
        f"AND status='active'{visible} ORDER BY updated_at DESC, id DESC LIMIT ?",
        (*origins, *owners, POOL_LIMIT),
    )
    for memory_id, updated_at, body in rows:
        try:
            data = json.loads(body)
        except ValueError:
            continue
        if not isinstance(data, dict) or data.get("pinned") is True or data.get("id") != memory_id:
            continue
        content = data.get("content")
        if not isinstance(content, str) or not content:
            continue
        terms = data.get("search_terms") or []
        aliases = " ".join(t for t in terms if isinstance(t, str)) if isinstance(terms, list) else ""
        text = f"{content}\n{aliases}"
        strength, conflict = _path_strength(_claim_paths(content), text, resources)
        if strength == 0 and not conflict and topic_features & subject_features(text):
            strength = TOPIC
        if strength:
            found.append(Nomination(str(memory_id), is_pending(content), strength, float(updated_at)))
    found.sort(key=lambda n: (n.pending, n.strength, n.updated_at, n.memory_id), reverse=True)
    return found[:limit]


def _visible(conn: DbConn) -> tuple[str, tuple[str, ...]]:
    """:func:`memory_core.store.schema.owners.visible_clause`, imported only on PostgreSQL: on
    SQLite every claim is the one person's, and the turn-end hook loads nothing more."""
    if not is_postgres(conn):
        return "", ()
    from memory_core.store.schema.owners import visible_clause

    return visible_clause(conn)
