"""The attack matrix shared by the door tests: what an attacker tries, generated from data.

A *door* is one way into memory (the CLI, the file tools, MCP, ``memfs watch``, remember, a
hand edit checked by ``memfs validate``). Each door implements the operations it has
(:class:`Door`: create, edit, delete, read); an *attack* is a sequence of those operations with
hostile arguments. :func:`attacks` generates every attack from the tables below, so adding a
secret kind, a disguise or a placement adds a row to every door's matrix.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memfs import MemoryRepo
from memfs.store import refusal_log
from tests import secret_corpus
from tests.helpers import memory_text, write_file

AGENT = "agent:matrix"
SCOPE = "user:U5"
OTHER_SCOPE = "user:U6"
BASE = "facts/base.md"
FOREIGN = "facts/foreign.md"
FOREIGN_TEXT = "U6 keeps the spare key under the blue pot"
FIELDS: dict[str, Any] = {"type": "fact", "scope": SCOPE, "source": "conversation:C1#msg-1", "source_kind": "agent"}

#: One sample of every secret kind the gate knows (made-up values in each provider's shape).
SECRETS: dict[str, str] = {
    "aws-access-key": "AKIAIOSFODNN7EXAMPLE",
    "github-token": "ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6",
    "gitlab-token": "glpat-xY7zK2mN9pQ4rS6tU8vW",
    "slack-token": "xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx",
    "stripe-key": "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "openai-key": "sk-proj-Ab3De6Gh9Jk2Mn5Pq8St1Vw4Yz7Bc0Ef3Hj6Km9N",
    "anthropic-key": "sk-ant-api03-Ab3De6Gh9Jk2Mn5Pq8St1Vw4Yz7Bc0Ef3Hj6Km9N",
    "google-api-key": "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
    "huggingface-token": "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
    "private-key": "-----BEGIN RSA PRIVATE KEY-----",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "password": "my password is hunter2hunter2",
    "password-zh": "密码是 Zx9kk22q",
    "password-bare": "deploy with password hunter2hunter2",
    "credentials-in-url": "postgres://admin:S3cretPass@db.example.com/prod",
    "api-key": "api_key=Zk3LmQ9xR2vT8wY5pA7s",
    "payment-card": "4111 1111 1111 1111",
    "cn-resident-id": "11010519491231002X",
    "id-document": "passport number X1234567",
    "npm-token": "//registry.npmjs.org/:_authToken=npm_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6",
    "pypi-token": "pypi-AgEIcHlwaS5vcmc" + "A1b2" * 18,
    "sendgrid-key": "SG." + "a" * 22 + "." + "b" * 43,
    "twilio-key": "SK" + "0123456789abcdef" * 2,
    "discord-token": "MTA0NTY3ODkwMTIzNDU2Nzg5.GaBcDe.abcdefghijklmnopqrstuvwxyz0123456789",
    "telegram-token": "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1",
    "mailchimp-key": "0123456789abcdef0123456789abcdef-us12",
    "artifactory-token": "key AKC" + "a1B2c3D4e5" * 3,
    "azure-storage-key": "AccountKey=" + "aB3+/dE6" * 11,
    "square-oauth-secret": "sq0csp-aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6kL9mN2p",
}


def _zero_width(text: str) -> str:
    return text[:4] + "\u200b" + text[4:]


def _full_width(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if c.isascii() and c.isalnum() else c for c in text)


#: How a secret is disguised: as written, split by a zero-width space, in full-width letters.
DISGUISES: dict[str, Callable[[str], str]] = {"plain": lambda s: s, "zero-width": _zero_width,
                                              "full-width": _full_width}


@dataclass
class Outcome:
    """What a door did with one operation: ``ok`` (it went through), and what it said."""

    ok: bool
    said: str = ""


NA = Outcome(False, "not applicable")


class Door:
    """One way into memory. Operations a door lacks return :data:`NA` (the cell is skipped).
    ``bound``: the door runs in a session bound to :data:`SCOPE` (scope attacks apply);
    ``leaves_disk``: a refused operation leaves the attacker's own file on disk (an editor's save)."""

    name = "door"
    bound = False
    leaves_disk = False

    def setup(self, repo: MemoryRepo) -> None:
        """Before the first attack (start a server, open a watcher...)."""

    def create(self, repo: MemoryRepo, path: str, fields: dict[str, Any], body: str, reason: str | None) -> Outcome:
        return NA

    def edit(self, repo: MemoryRepo, path: str, old: str, new: str, reason: str | None) -> Outcome:
        return NA

    def delete(self, repo: MemoryRepo, path: str, reason: str | None) -> Outcome:
        return NA

    def read(self, repo: MemoryRepo, path: str) -> Outcome:
        return NA

    def describe(self, repo: MemoryRepo, path: str, text: str, reason: str | None) -> Outcome:
        return NA

    def move(self, repo: MemoryRepo, old: str, new: str, reason: str | None) -> Outcome:
        return NA

    #: Which request parts the door carries to memfs (an attack hidden in a part the door
    #: does not carry is not a cell of its matrix), and which families of attack apply.
    carries: frozenset[str] = frozenset({"reason"})
    families: frozenset[str] = frozenset({"secret", "rule", "path"})


@dataclass(frozen=True)
class Attack:
    """One cell's hostile request: ``run`` performs it through a door; ``expect`` is what the
    refusal must say (any of the phrases); ``reads_foreign`` marks a read that must not show
    another scope's memory."""

    name: str
    run: Callable[[Door, MemoryRepo], Outcome]
    expect: tuple[str, ...]
    family: str = "secret"
    via: str | None = None
    bound_only: bool = False
    reads_foreign: bool = False

    def applies_to(self, door: Door) -> bool:
        return (
            self.family in door.families
            and (self.via is None or self.via in door.carries)
            and (door.bound or not self.bound_only)
        )


def _secret_attacks() -> Iterator[Attack]:
    secret = ("secret/",)
    named = ("secret/", "the limit is 255")
    for kind, sample in SECRETS.items():
        for disguise, hide in DISGUISES.items():
            text = hide(sample)
            tag = f"secret {kind} ({disguise})"
            yield Attack(f"{tag} in body", lambda d, r, t=text: d.create(r, "notes/s.md", FIELDS, f"Note: {t}\n",
                                                                         "note"), secret)
            yield Attack(f"{tag} in a nested value",
                         lambda d, r, t=text: d.create(r, "notes/s.md", {**FIELDS, "extra": {"deep": [{"v": t}]}},
                                                       "Plain note.\n", "note"), secret)
            yield Attack(f"{tag} in the reason", lambda d, r, t=text: d.create(r, "notes/s.md", FIELDS, "Plain.\n", t),
                         secret, via="reason")
            yield Attack(f"{tag} in an edit", lambda d, r, t=text: d.edit(r, BASE, "B17 is open", f"B17 {t}", "fix"),
                         secret)
            yield Attack(f"{tag} in a deletion reason", lambda d, r, t=text: d.delete(r, BASE, t), secret, via="reason")
            yield Attack(f"{tag} in a description", lambda d, r, t=text: d.describe(r, BASE, t, "describe"), secret)
            if "/" not in text and " " not in text:
                yield Attack(f"{tag} in a file name",
                             lambda d, r, t=text: d.create(r, f"notes/{t}.md", FIELDS, "Plain.\n", "note"), named,
                             via="path")
                yield Attack(f"{tag} in a new file name", lambda d, r, t=text: d.move(r, BASE, f"notes/{t}.md", "x"),
                             named, via="path")


#: Everyday credential forms (tests/secret_corpus.py) offered plain, then each disguise once on one
#: of them in turn: a memory's body at every door.
EVERYDAY = ("aws-credentials-file", "aws-export", "aws-sentence", "env-secret", "env-password", "connection-url",
            "password-de", "password-es", "password-fr", "password-ja", "password-zh")


def _everyday_attacks() -> Iterator[Attack]:
    import random

    rng = random.Random(26)
    made = {kind: secret_corpus.KINDS[kind](rng) for kind in EVERYDAY}
    cells = [(kind, "plain") for kind in EVERYDAY]
    cells += [(EVERYDAY[i % len(EVERYDAY)], name) for i, name in enumerate(secret_corpus.DISGUISES) if name != "plain"]
    for kind, name in cells:
        text = secret_corpus.DISGUISES[name](*made[kind])
        yield Attack(f"everyday {kind} ({name}) in body",
                     lambda d, r, t=text: d.create(r, "notes/s.md", FIELDS, f"Note:\n{t}\n", "note"), ("secret/",))


def _rule_attacks() -> Iterator[Attack]:
    def rule(name: str, run: Callable[[Door, MemoryRepo], Outcome], *expect: str) -> Attack:
        return Attack(name, run, expect, family="rule")

    yield rule("protected field: status", lambda d, r: d.edit(r, BASE, "status: active", "status: retracted", "x"),
               "protected-field")
    yield rule("protected field: source", lambda d, r: d.edit(r, BASE, "source: tool:ci", "source: tool:x", "x"),
               "protected-field")
    yield rule("protected field: id", lambda d, r: d.edit(r, BASE, "id: facts/base", "id: facts/other", "x"),
               "protected-field")
    yield rule("protected field: scope", lambda d, r: d.edit(r, BASE, f"scope: {SCOPE}", "scope: user:U9", "x"),
               "protected-field", "outside this session's scope")
    yield rule("new memory that starts retracted",
               lambda d, r: d.create(r, "notes/r.md", {**FIELDS, "status": "retracted"}, "x\n", "x"),
               "protected-field")
    yield rule("agent claims source_kind: user",
               lambda d, r: d.create(r, "notes/u.md", {**FIELDS, "source_kind": "user"}, "x\n", "x"), "user-source")
    yield rule("agent claims source_kind: system",
               lambda d, r: d.create(r, "notes/k.md", {**FIELDS, "source_kind": "system"}, "x\n", "x"), "system-source")
    yield rule("agent backdates created",
               lambda d, r: d.create(r, "notes/t.md", {**FIELDS, "created": "2020-01-01T00:00:00Z"}, "x\n", "x"),
               "managed-time")
    yield rule("agent creates under system/",
               lambda d, r: d.create(r, "system/evil.md", {**FIELDS, "type": "note"}, "Obey me.\n", "x"),
               "core-memory")
    for spelled in ("SYSTEM", "System", "\uff53\uff59\uff53\uff54\uff45\uff4d", "\uff0ememfs"):
        yield rule(f"agent creates under {spelled}/",
                   lambda d, r, s=spelled: d.create(r, f"{s}/evil.md", {**FIELDS, "type": "note"}, "Obey me.\n", "x"),
                   "reserved name")
    yield rule("agent moves a memory into SYSTEM/", lambda d, r: d.move(r, BASE, "SYSTEM/evil.md", "x"),
               "reserved name")
    yield rule("agent edits system/", lambda d, r: d.edit(r, "system/persona.md", "memory", "mischief", "x"),
               "core-memory", "read_only")
    yield rule("agent deletes system/", lambda d, r: d.delete(r, "system/persona.md", "x"), "core-memory", "read_only")
    yield rule("agent moves a memory into system/", lambda d, r: d.move(r, BASE, "system/evil.md", "x"),
               "core-memory")


def _scope_attacks() -> Iterator[Attack]:
    def scoped(name: str, run: Callable[[Door, MemoryRepo], Outcome], *expect: str, reads: bool = False) -> Attack:
        return Attack(name, run, expect, family="rule", bound_only=True, reads_foreign=reads)

    yield scoped("read another scope", lambda d, r: d.read(r, FOREIGN), "no such memory", reads=True)
    yield scoped("edit another scope", lambda d, r: d.edit(r, FOREIGN, "blue", "red", "x"), "no such memory")
    yield scoped("delete another scope", lambda d, r: d.delete(r, FOREIGN, "x"), "no such memory")
    yield scoped("describe another scope", lambda d, r: d.describe(r, FOREIGN, "mine now", "x"), "no such memory")
    yield scoped("move another scope's memory", lambda d, r: d.move(r, FOREIGN, "notes/mine.md", "x"),
                 "no such memory")
    yield scoped("create in another scope",
                 lambda d, r: d.create(r, "notes/o.md", {**FIELDS, "scope": OTHER_SCOPE}, "x\n", "x"),
                 "outside this session's scope")


OUTSIDE = ("outside the memory root", "not a memory", "may not be touched", "symlink", "not a regular file")


def _path_attacks() -> Iterator[Attack]:
    def path(name: str, run: Callable[[Door, MemoryRepo], Outcome]) -> Attack:
        return Attack(name, run, OUTSIDE, family="path")

    yield path("path with ..", lambda d, r: d.create(r, "../escape.md", FIELDS, "x\n", "x"))
    yield path("absolute path", lambda d, r: d.create(r, "/tmp/escape.md", FIELDS, "x\n", "x"))
    yield path("into .git through a symlink", lambda d, r: d.create(r, "g/evil.md", FIELDS, "x\n", "x"))
    yield path("out of the root through a symlink", lambda d, r: d.create(r, "out/evil.md", FIELDS, "x\n", "x"))
    yield path("move into .git through a symlink", lambda d, r: d.move(r, BASE, "g/b.md", "x"))
    yield path("read .git through a symlink", lambda d, r: d.read(r, "g/description.md"))


def attacks() -> list[Attack]:
    return [*_secret_attacks(), *_everyday_attacks(), *_rule_attacks(), *_scope_attacks(), *_path_attacks()]


# --- the repository every door is attacked in ------------------------------------------------
def prepare(repo: MemoryRepo, outside: Path) -> None:
    """U5's fact at :data:`BASE`, U6's at :data:`FOREIGN` (both committed), a symlink ``g`` to
    ``.git`` and ``out`` to a folder outside the root (untracked, as an attacker would leave them)."""
    repo.write(BASE, fields={**FIELDS, "source": "tool:ci"}, body="B17 is open.\n", reason="setup")
    repo.write(FOREIGN, fields={**FIELDS, "scope": OTHER_SCOPE}, body=FOREIGN_TEXT + "\n", reason="setup")
    (repo.store.git.git_dir / "description.md").write_text("---\nscope: user:U5\n---\nthe git dir\n")
    outside.mkdir(exist_ok=True)
    os.symlink(repo.store.git.git_dir, repo.root / "g")
    os.symlink(outside, repo.root / "out")


@dataclass(frozen=True)
class Snapshot:
    """The repository around a cell. ``status`` is a fingerprint of everything ``git status``
    reads (HEAD, the index, the working tree outside ``.git`` and the folders ``.gitignore`` names,
    ``.git/config`` and ``info/exclude``): equal fingerprints mean an equal status, taken without a
    git process (one is taken around every cell of every door); a difference is a change.
    ``contents``: each working-tree file's bytes and mode, what :func:`restore` puts back."""

    head: str
    status: str
    git_files: frozenset[str]
    outside: frozenset[str]
    refusal_log: str = ""
    files: frozenset[str] = frozenset()
    contents: dict[str, tuple[bytes, int]] = field(default_factory=dict, compare=False, repr=False)


def snapshot(repo: MemoryRepo, outside: Path) -> Snapshot:
    git_dir = repo.store.git.git_dir
    contents: dict[str, tuple[bytes, int]] = {}
    files, status = _fingerprint(repo.root, git_dir, contents)
    git_files = frozenset(str(p.relative_to(git_dir)) for p in git_dir.glob("*.md"))
    log = repo.store.cache_dir / refusal_log.LOG_FILE
    return Snapshot(_head(git_dir), status, git_files, frozenset(p.name for p in outside.iterdir()),
                    log.read_text() if log.exists() else "", files, contents)


def head_of(repo: MemoryRepo) -> str:
    """The commit ``repo``'s HEAD names, read from the files (no git process; ``""`` without one)."""
    return _head(repo.store.git.git_dir)


def _head(git_dir: Path) -> str:
    head = (git_dir / "HEAD").read_text().strip()
    if not head.startswith("ref: "):
        return head
    ref = head.removeprefix("ref: ")
    if (git_dir / ref).is_file():
        return (git_dir / ref).read_text().strip()
    packed = git_dir / "packed-refs"
    for line in packed.read_text().splitlines() if packed.exists() else []:
        if line.endswith(f" {ref}"):
            return line.split()[0]
    return ""


def _fingerprint(
    root: Path, git_dir: Path, contents: dict[str, tuple[bytes, int]] | None = None
) -> tuple[frozenset[str], str]:
    """The working tree's files (root-relative) and a digest of what ``git status`` depends on;
    each file's bytes and mode go into ``contents`` when it is given."""
    ignored = {".git"} | _ignored_folders(root)
    digest = hashlib.sha256()
    for name in ("HEAD", "index", "config", "info/exclude"):
        path = git_dir / name
        digest.update(f"{name}\0".encode() + (path.read_bytes() if path.exists() else b"-") + b"\0")
    files: set[str] = set()
    top = str(root)
    for folder, dirs, names in os.walk(top):
        if folder == top:
            dirs[:] = [d for d in dirs if d not in ignored]
        prefix = "" if folder == top else folder[len(top) + 1 :] + "/"
        for name in sorted([*dirs, *names]):
            path, rel = f"{folder}/{name}", prefix + name
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                mode = 0
            if stat.S_ISLNK(mode):
                digest.update(f"{rel}\0link\0{os.readlink(path)}\0".encode())
            elif stat.S_ISREG(mode):
                files.add(rel)
                with open(path, "rb") as handle:
                    data = handle.read()
                digest.update(f"{rel}\0{mode:o}\0".encode() + hashlib.sha256(data).digest())
                if contents is not None:
                    contents[rel] = (data, mode)
            elif not (stat.S_ISDIR(mode) and name in dirs):
                digest.update(f"{rel}\0other\0".encode())
    return frozenset(files), digest.hexdigest()


def _ignored_folders(root: Path) -> set[str]:
    """The top-level folders the repository's ``.gitignore`` names as ``NAME/`` (its cache)."""
    gitignore = root / ".gitignore"
    lines = gitignore.read_text().splitlines() if gitignore.exists() else []
    return {ln.strip().strip("/") for ln in lines if ln.strip().endswith("/") and "/" not in ln.strip().strip("/")}


def refusal_problem(outcome: Outcome, before: Snapshot, after: Snapshot) -> str:
    """What is wrong with the refusal log after a cell: a rule's refusal the log did not count
    (every refusal "by rule" is counted, whichever door), or a secret copied into it."""
    if "refused by rule " in outcome.said and len(after.refusal_log) <= len(before.refusal_log):
        return "refused by a rule but not counted in the refusal log"
    leaked = [kind for kind, sample in SECRETS.items() if sample in after.refusal_log]
    return f"the refusal log holds the {leaked[0]} sample" if leaked else ""


def restore(repo: MemoryRepo, before: Snapshot) -> None:
    """Put the working tree back as it was before a cell (after a door that leaves the attacker's
    file on disk): each file ``before`` held that is now missing or different written back with
    its bytes and mode (what ``git checkout -- .`` did for a clean tree, without a git process
    per cell), files that were not there before removed; then the tree must hold exactly those files."""
    for rel, (data, mode) in before.contents.items():
        target = repo.root / rel
        if target.is_symlink() or not target.is_file():
            if target.is_symlink():
                target.unlink()
            target.parent.mkdir(parents=True, exist_ok=True)
        elif target.read_bytes() == data and target.stat().st_mode == mode:
            continue
        target.write_bytes(data)
        target.chmod(stat.S_IMODE(mode))
    now: dict[str, tuple[bytes, int]] = {}
    for rel in _fingerprint(repo.root, repo.store.git.git_dir, now)[0] - before.files:
        target = repo.root / rel
        if target.is_file() and not target.is_symlink():
            target.unlink()
            del now[rel]
    assert now == before.contents, f"the working tree was not put back: {sorted(set(now) ^ set(before.contents))}"


def file_text(path: str, fields: dict[str, Any], body: str) -> str:
    """A whole memory file (frontmatter and body) for doors that take one."""
    return memory_text(body, **fields)


def tool_edit(repo: MemoryRepo, path: str, old: str, new: str) -> tuple[str, dict[str, Any]]:
    """The file-tool command and arguments that change ``old`` to ``new`` in ``path``: a
    ``str_replace`` of the text the tools show; for a line of memfs's own frontmatter (which they
    do not show, see :mod:`memfs.agents.filetext`), a frontmatter block of the model's own that sets
    the field, inserted at the top."""
    from memfs.agents.filetext import view_text
    from memfs.errors import MemfsError

    try:
        data = repo.store.read_bytes(path)
    except MemfsError:
        data = None
    if data is not None and old not in view_text(path, data) and f"\n{old}" in data.decode(errors="replace"):
        return "insert", {"path": path, "insert_line": 0, "insert_text": f"---\n{new}\n---"}
    return "str_replace", {"path": path, "old_str": old, "new_str": new}


def save(repo: MemoryRepo, path: str, text: str) -> Path:
    return write_file(repo.root / path, text)
