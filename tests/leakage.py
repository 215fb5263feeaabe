"""A repository of many scopes with near-miss names, and randomized requests against it.

Scopes differ by one character or one segment (``user:U5``, ``user:U50``, ``user:U5/project:P8``,
``user:U5/project:P80``...). Every memory carries its scope's unique token in its body and its
scope's slug in its path, and every memory of every scope shares the same ordinary words, so a
request for any scope *matches* every other scope's memories; only the scope boundary keeps
them out. :func:`leaks` says which other scope's token or path an answer shows.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass

from memfs import MemoryRepo
from memfs.policy.recall import ScopeRule

USERS = ("U5", "U50", "U500", "U6")
PROJECTS = ("P8", "P80", "P800")
SCOPES = tuple(
    [f"user:{u}" for u in USERS] + [f"user:{u}/project:{p}" for u in USERS for p in PROJECTS]
)
WORDS = ("release", "notes", "deploy", "freeze", "budget", "meeting", "language", "English", "Chinese",
         "B17", "rollback", "migration", "on-call", "holiday", "spare", "key", "发布", "会议")
PER_SCOPE = 4


def slug(scope: str) -> str:
    return scope.replace("user:", "u").replace("/project:", "-p").lower()


def token(scope: str) -> str:
    """The word only ``scope``'s memories contain (``zqu5p80zq``: no analyzer splits it)."""
    return f"zq{slug(scope).replace('-', '')}zq"


def path(scope: str, n: int) -> str:
    return f"notes/{slug(scope)}-{n}.md"


def build(repo: MemoryRepo) -> None:
    """PER_SCOPE memories in every scope, one commit, and the search index built (once: the
    tests' copies of the repository bring it along)."""
    rng = random.Random(5)
    with repo.store.transaction("setup", reason="leakage corpus") as tx:
        for scope in SCOPES:
            for n in range(PER_SCOPE):
                body = " ".join(rng.sample(WORDS, 6)) + f" {token(scope)} memory {n}\n"
                fields = {"type": "fact", "scope": scope, "source": f"conversation:{slug(scope)}#{n}",
                          "description": f"about {' '.join(rng.sample(WORDS, 2))}"}
                tx.write(path(scope, n), fields=fields, body=body)
    repo.search("release", scope=SCOPES[0])


def allowed(scope: str, inherit: bool) -> set[str]:
    return set(ScopeRule(scope, inherit).scopes or ())


def leaks(text: str, scope: str, inherit: bool) -> list[str]:
    """The other scopes' tokens and paths ``text`` shows (empty: nothing leaked)."""
    ok = allowed(scope, inherit)
    found = []
    for other in SCOPES:
        if other in ok:
            continue
        if token(other) in text:
            found.append(token(other))
        found += [path(other, n) for n in range(PER_SCOPE) if path(other, n) in text]
    return found


def without_echo(text: str, request: Request) -> str:
    """``text`` without what the request itself said (the query and its terms, the task, the path
    it named): a caller is not told anything by hearing its own words back."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = None
    if isinstance(data, dict):
        for key in ("query", "terms", "task"):
            data.pop(key, None)
        text = json.dumps(data, ensure_ascii=False)
    return text.replace(request.target, "<the path asked for>")


@dataclass(frozen=True)
class Request:
    """One randomized request: what to ask (``kind``), in which session, with which words or path."""

    kind: str
    scope: str
    inherit: bool
    words: str
    target: str


KINDS = ("search", "search-explain", "context", "view-file", "view-listing", "log", "show", "history")


def requests(
    count: int, seed: int, kinds: tuple[str, ...] = KINDS, scopes: tuple[str, ...] = SCOPES
) -> Iterator[Request]:
    """``count`` requests: a random session scope, random words (ordinary ones, and other
    scopes' tokens to tempt the index), a random path (often another scope's)."""
    rng = random.Random(seed)
    for _ in range(count):
        scope = rng.choice(scopes)
        other = rng.choice(SCOPES)
        words = " ".join(rng.sample(WORDS, rng.randint(1, 4)) + rng.sample([token(other), token(scope)], 1))
        target = path(other, rng.randrange(PER_SCOPE))
        yield Request(rng.choice(kinds), scope, rng.random() < 0.3, words, target)
