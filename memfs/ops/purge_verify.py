"""What purge looks for, and where: the purged text's distinctive fragments, and every place a
repository keeps text.

**Fragments.** A partial quote gives a memory away as surely as the whole: a reason that cites
four of its words, an idempotency key made from its token, a branch named after it. So besides
the whole text, purge looks for every run of :data:`NGRAM_WORDS` words and every token of at least
:data:`MIN_TOKEN` characters (a name, a number, a key) that is *distinctive*: found in fewer than
:data:`COMMON_IN` other files of the work tree. A phrase many memories share ("in the team
vault") says nothing about this one, and looking for it would leave no purge verifiable.

**Places** (:func:`verify`): every object, reachable or not, loose or packed (blobs, commit
messages and their trailers, annotated tags with their headers, notes, stashes), the names of
all refs (loose and packed, with ``-``, ``_``, ``/`` and ``.`` read as spaces, as a branch named
after a phrase writes it), every file of the git directory outside its object store (the index,
reflogs, ``packed-refs``, scratch files, memfs's own caches there), memfs's caches under
``.memfs/``, and every file of the work tree, every other memory included.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from memfs.ops.purge_redact import normalized
from memfs.store import paths
from memfs.store.repo import Store

#: Shorter needles than this (bytes) are not looked for: they match by chance.
MIN_NEEDLE = 8
#: Words per run: every run of this many consecutive words of the text is a fragment.
NGRAM_WORDS = 3
#: A token (a word without the punctuation around it) this long or longer is a fragment.
MIN_TOKEN = 8
#: A fragment found in this many other files of the work tree is common, not distinctive.
COMMON_IN = 3
_PUNCTUATION = "\"'`.,;:!?()[]{}<>«»“”‘’"
_REF_SEPARATORS = re.compile(rb"[-_/.]+")
#: Folders of the git directory not read as files: the object store (read object by object) and
#: memfs's hooks (scripts it wrote itself).
_NOT_READ = ("objects", "hooks")


def fragments(texts: Sequence[str]) -> list[bytes]:
    """Every run of :data:`NGRAM_WORDS` words of ``texts`` (a shorter text whole) and every token
    of :data:`MIN_TOKEN` characters or more, each at least :data:`MIN_NEEDLE` bytes."""
    found: dict[bytes, None] = {}
    for text in texts:
        words = text.split()
        if len(words) <= NGRAM_WORDS:
            runs = [" ".join(words)]
        else:
            runs = [" ".join(words[i : i + NGRAM_WORDS]) for i in range(len(words) - NGRAM_WORDS + 1)]
        tokens = [t for w in words if len(t := w.strip(_PUNCTUATION)) >= MIN_TOKEN]
        found.update(dict.fromkeys(r.encode("utf-8") for r in [*runs, *tokens] if len(r.encode("utf-8")) >= MIN_NEEDLE))
    return list(found)


def distinctive(texts: Sequence[str], others: Iterable[bytes]) -> list[bytes]:
    """The :func:`fragments` of ``texts`` found in fewer than :data:`COMMON_IN` of ``others`` (the
    contents of the other files of the work tree, whitespace-normalized or not)."""
    candidates = fragments(texts)
    counts = dict.fromkeys(candidates, 0)
    for data in others:
        flat = normalized(data)
        for needle in candidates:
            if needle in flat:
                counts[needle] += 1
    return [n for n in candidates if counts[n] < COMMON_IN]


def other_files(repo: Store, exclude: Sequence[str]) -> Iterable[bytes]:
    """The contents of every file of the work tree but ``exclude`` (paths from its top)."""
    skip = set(exclude)
    for name in sorted(set(repo.git.listed_files()) - skip):
        data = _read(repo.git.workdir, name)
        if data is not None:
            yield data


def verify(repo: Store, needles: Sequence[bytes], path_pattern: re.Pattern[bytes] | None = None) -> list[str]:
    """Every place (see the module docstring) that still holds one of ``needles``, or, in a commit
    or tag object, matches ``path_pattern`` (the purged paths). Empty means clean."""
    needles = [n for n in needles if n]
    if not needles and path_pattern is None:
        return []

    def quotes(data: bytes) -> bool:
        flat = normalized(data)
        return any(n in data or n in flat for n in needles)

    found: list[str] = []
    blobs: list[str] = []
    for sha, kind, content in repo.git.objects():
        hit = quotes(content)
        if hit and kind == "blob":
            blobs.append(sha)
        elif hit:
            found.append(f"{kind} {sha}")
        elif path_pattern is not None and kind in ("commit", "tag") and path_pattern.search(content):
            found.append(f"{kind} {sha} (names the path)")
    names = repo.git.object_paths() if blobs else {}
    found += [f"blob {sha}" + (f" ({names[sha]})" if sha in names else "") for sha in blobs]
    for ref, _ in repo.git.refs("refs/"):
        spaced = _REF_SEPARATORS.sub(b" ", ref.encode("utf-8"))
        if quotes(ref.encode("utf-8")) or quotes(spaced):
            found.append(f"ref name {ref} (rename or delete it: git branch -m, git tag -d)")
    git_dir = repo.git.git_dir
    for path in _files(git_dir):
        data = _read(git_dir, path)
        if data is not None and quotes(data):
            found.append(f"git directory file {path}")
    if repo.cache_dir.is_dir():
        for path in _files(repo.cache_dir):
            data = _read(repo.cache_dir, path)
            if data is not None and quotes(data):
                found.append(f"memfs cache {paths.CACHE_DIR}/{path}")
    for name in sorted(set(repo.git.listed_files())):
        data = _read(repo.git.workdir, name)
        if data is not None and quotes(data):
            found.append(f"work tree file {name}")
    return sorted(set(found))


def _files(folder: Path) -> list[str]:
    """The regular files under ``folder`` (relative, ``/``-separated), outside :data:`_NOT_READ`."""
    out = []
    for path in folder.rglob("*"):
        rel = path.relative_to(folder).as_posix()
        if rel.split("/", 1)[0] not in _NOT_READ and path.is_file() and not path.is_symlink():
            out.append(rel)
    return sorted(out)


def _read(base: Path, name: str) -> bytes | None:
    try:
        data = paths.read_file(base, name, limit=None)
    except OSError:
        return None
    return data if isinstance(data, bytes) else None
