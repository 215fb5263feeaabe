"""What a plain repository's files answer without a git process: where it is, and its HEAD.

Each reader answers only where its answer is provably git's and returns ``None`` (ask git)
everywhere else; ``tests/integration/test_discover.py`` compares them with git layout by layout.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

_HEX = re.compile(rb"[0-9a-f]{40}")


#: Variables that change where git looks for the repository or how it reads it: with any set, ask git.
_DISCOVERY_ENV = (
    "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY", "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG", "SUDO_UID",
)
_SECTION = re.compile(rb"\s*\[([^\]\\]*)\]\s*")
#: The ``[core]`` lines ``git init`` writes that do not bear on where the work tree is.
_PLAIN_CORE = re.compile(rb"\s*(repositoryformatversion\s*=\s*0|bare\s*=\s*false|"
                         rb"(filemode|logallrefupdates|ignorecase|precomposeunicode|symlinks)\s*=\s*\w+)?\s*", re.I)
_HEAD = re.compile(rb"(ref: refs/[^\s]+|[0-9a-f]{40})\n?")


def plain_top_level(start: Path) -> tuple[Path, Path] | None:
    """What :func:`discover` asks ``git rev-parse`` for, read from the files when ``start`` is the
    top level of a plain repository, so opening one starts no process; ``None``: ask git.

    Plain means every case where git's answer is (real path of ``start``, its ``.git``): no
    variable that moves or configures discovery; ``.git`` a real folder (no gitfile, no symlink)
    that git accepts as a repository (a valid ``HEAD`` file, ``objects/`` and ``refs/``, no
    ``commondir``); both owned by this user (git's safe.directory check passes); and a ``config``
    whose ``[core]`` has only the lines ``git init`` writes, format 0 and not bare (no
    ``core.worktree``, no includes, no extensions).
    Anything else, however harmless, goes to git."""
    if any(name in os.environ for name in _DISCOVERY_ENV):
        return None
    top = Path(os.path.realpath(start))
    git_dir = top / ".git"
    try:
        owners = {os.lstat(top).st_uid, os.lstat(git_dir).st_uid}
        if owners != {os.geteuid()} or not stat.S_ISDIR(os.lstat(git_dir).st_mode):
            return None
        if not ((git_dir / "objects").is_dir() and (git_dir / "refs").is_dir()):
            return None
        if os.path.lexists(git_dir / "commondir") or not stat.S_ISREG(os.lstat(git_dir / "HEAD").st_mode):
            return None
        head = (git_dir / "HEAD").read_bytes()
        config = (git_dir / "config").read_bytes()
    except OSError:
        return None
    if not _HEAD.fullmatch(head) or not plain_config(config):
        return None
    return top, git_dir


def plain_config(config: bytes) -> bool:
    """Whether a repository's ``config`` says nothing that moves its work tree: ``[core]`` holds only
    :data:`_PLAIN_CORE` lines, there is no include and no extension, and no line continues on the
    next (other sections, ``[user]`` or ``[merge "memfs"]``, do not bear on discovery)."""
    section = b""
    for line in config.splitlines():
        if line.rstrip().endswith(b"\\"):
            return False
        if line.lstrip().startswith(b"["):
            header = _SECTION.fullmatch(line)
            if header is None:
                return False
            section = header.group(1).strip().lower()
            if section.startswith((b"include", b"extensions")):
                return False
        elif section.startswith(b"core") and not _PLAIN_CORE.fullmatch(line):
            return False
    return True


def head_from_files(git_dir: Path) -> str | None:
    """What ``git rev-parse --verify -q HEAD`` prints (``""`` when HEAD names no commit yet), read
    from the files; ``None``: ask git. Answers when the refs are git's files backend (a plain
    config) and HEAD is a commit id or names a branch whose loose file is a commit id, or that is
    absent from ``refs/`` and then found in (or absent from) ``packed-refs``; like git, it does not
    check the object exists. In a linked work tree HEAD is its own and the config and branches are
    the common directory's (``commondir``). The one reader of HEAD from the files: every cache
    keyed by HEAD asks it on every read and write, through :meth:`Base.head`."""
    try:
        common = _plain_common(git_dir)
        if common is None:
            return None
        head = _head_file(git_dir)
    except (OSError, UnicodeDecodeError):
        return None
    if _HEX.fullmatch(head):
        return head.decode()
    if not _BRANCH_HEAD.fullmatch(head):
        return None
    try:
        ref = head.removeprefix(b"ref: ").decode()
    except UnicodeDecodeError:
        return None
    return _read_ref(common, ref)


def ref_from_files(git_dir: Path, ref: str) -> str | None:
    """The id ``ref`` (a full name of a branch or remote-tracking branch: ``refs/heads/…``,
    ``refs/remotes/…``) holds as git's files say it, ``""`` when there is no such ref; ``None``:
    ask git (not the files backend, a symbolic or broken ref, any other name). Like
    :func:`head_from_files`, it does not check the object exists."""
    if not ref.startswith(("refs/heads/", "refs/remotes/")) or "\\" in ref or ".." in ref:
        return None
    try:
        common = _plain_common(git_dir)
    except (OSError, UnicodeDecodeError):
        return None
    return None if common is None else _read_ref(common, ref)


def ref_names_from_files(git_dir: Path, prefix: str) -> set[str] | None:
    """Every name git's files may hold a ref by under ``prefix`` (``refs/…/``): each file below its
    loose folder and each ``packed-refs`` line; ``None``: ask git (not the files backend, not
    readable). A superset of what ``git for-each-ref PREFIX`` lists (a stray file counts), so an
    empty answer is git's: no ref there."""
    if not prefix.startswith("refs/") or not prefix.endswith("/") or ".." in prefix:
        return None
    found: set[str] = set()
    try:
        common = _plain_common(git_dir)
        if common is None:
            return None
        for folder, folders, files in os.walk(common / prefix, onerror=_raise):
            if any(os.path.islink(os.path.join(folder, name)) for name in folders):
                return None  # git lists the refs below it; os.walk would not enter it
            found.update(Path(folder, name).relative_to(common).as_posix() for name in files)
        packed = common / "packed-refs"
        lines = packed.read_bytes().splitlines() if os.path.lexists(packed) else []
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    found.update(os.fsdecode(name) for _, _, name in (line.partition(b" ") for line in lines)
                 if name.startswith(prefix.encode()))
    return found


def _raise(error: OSError) -> None:
    """``os.walk``'s error handler: a folder it cannot list (or one that is absent) is raised,
    except an absent top, which simply holds no ref."""
    if not isinstance(error, FileNotFoundError):
        raise error


#: Where git looks for a short name besides ``refs/heads/``: a branch whose short name also names
#: one of these is printed longer by ``git symbolic-ref --short`` (``heads/NAME``).
_AMBIGUOUS = ("{}", "refs/{}", "refs/tags/{}", "refs/remotes/{}", "refs/remotes/{}/HEAD")


def branch_from_files(git_dir: Path) -> str | None:
    """What ``git symbolic-ref -q --short HEAD`` prints (``""`` on a detached HEAD), read from the
    files; ``None``: ask git. Answers when HEAD is a commit id, or names a branch of git's files
    backend (a plain config) whose short name names nothing else git would also find by it (a
    tag, a remote, a file in the git directory: :data:`_AMBIGUOUS`, loose or packed), where git
    prints the short name as it is."""
    try:
        common = _plain_common(git_dir)
        if common is None:
            return None
        head = _head_file(git_dir)
        if _HEX.fullmatch(head):
            return ""
        if not _BRANCH_HEAD.fullmatch(head):
            return None
        name = head.removeprefix(b"ref: refs/heads/").decode()
        others = [form.format(name) for form in _AMBIGUOUS]
        if not name or any(os.path.lexists(place / other) for other in others for place in (git_dir, common)):
            return None
        packed = common / "packed-refs"
        listed = packed.read_bytes().splitlines() if os.path.lexists(packed) else []
    except (OSError, UnicodeDecodeError):
        return None
    wanted = {other.encode() for other in others}
    if any(line.partition(b" ")[2] in wanted for line in listed):
        return None
    return name


#: A HEAD naming a branch as the files may answer for it: no whitespace (git trims it from the
#: end, so ``main `` would be read as ``main``), no backslash, no ``..``.
_BRANCH_HEAD = re.compile(rb"ref: refs/heads/(?!.*\.\.)[^\s\\]+")


def _head_file(git_dir: Path) -> bytes:
    """HEAD's content without its final newlines. Raises :class:`OSError` when HEAD is not a regular
    file: a symlink ``HEAD -> refs/heads/main`` is a symbolic ref to git, not the id it leads to."""
    head = git_dir / "HEAD"
    if not stat.S_ISREG(os.lstat(head).st_mode):
        raise OSError(f"{head} is not a regular file")
    return head.read_bytes().rstrip(b"\n")


def _plain_common(git_dir: Path) -> Path | None:
    """The common directory when the refs are git's files backend (a plain config), else ``None``.
    Raises :class:`OSError`."""
    common = git_dir
    if os.path.lexists(git_dir / "commondir"):
        common = git_dir / (git_dir / "commondir").read_text(encoding="ascii").strip()
    return common if plain_config((common / "config").read_bytes()) else None


def _read_ref(common: Path, ref: str) -> str | None:
    """``ref``'s id from its loose file, else from ``packed-refs`` (``""``: in neither); ``None``
    when the loose file is not a plain id (symbolic, broken, a folder) or cannot be read."""
    try:
        loose = common / ref
        if os.path.lexists(loose):
            sha = loose.read_bytes().rstrip(b"\n") if stat.S_ISREG(os.lstat(loose).st_mode) else b""
            return sha.decode() if _HEX.fullmatch(sha) else None
        packed = common / "packed-refs"
        lines = packed.read_bytes().splitlines() if os.path.lexists(packed) else []
    except (OSError, UnicodeDecodeError):
        return None
    for line in lines:
        sha, _, name = line.partition(b" ")
        if name == ref.encode() and _HEX.fullmatch(sha):
            return sha.decode()
    return ""
