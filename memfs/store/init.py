"""What makes a folder a memory repository: the starter files, and the merge driver registration.

``memfs init`` (:meth:`memfs.store.repo.Store.init`) creates the git repository if needed,
registers the merge driver in this clone's git config (:func:`prepare`), and commits whatever
starter file is missing (:func:`starter_files`: ``.memfs.toml``, ``.gitattributes``,
``.gitignore`` with ``.memfs/`` and ``.obsidian/``, ``system/persona.md``) through the one commit
path. Re-running it is safe: it adds only what is missing and commits only those files.

The merge driver has two halves. ``.gitattributes`` (committed, shared by every clone) says
``*.md merge=memfs``; the command lives in each clone's own ``.git/config`` (git never takes
commands from a repository's content). A clone without that config still merges: git falls back
to its built-in text merge for a ``merge=`` driver it does not know, so nothing breaks, the
merges are just line-based (see the README's collaboration section).
"""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

from memfs.errors import NotAMemoryRepo
from memfs.format.config import CONFIG_FILE
from memfs.format.templates import render_template
from memfs.store import gitcli

CONFIG_TEXT = """\
# This folder is a memfs memory repository. Every *.md file under it is a memory, except
# README.md files and paths listed in .memfsignore.
format = 1
"""

DRIVER = "memfs"
ATTRIBUTES_FILE = ".gitattributes"
ATTRIBUTE_LINE = "*.md merge=memfs"
_ATTRIBUTE = re.compile(r"^\*\.md\s(?:.*\s)?merge=memfs(?:\s|$)", re.MULTILINE)

GITATTRIBUTES_TEXT = f"""\
# memfs memory files: Markdown with YAML frontmatter.
*.md text diff=markdown
# Merge memories by frontmatter field semantics. Each clone needs 'memfs install-merge-driver'
# (git config is per clone); without it git falls back to its plain text merge.
{ATTRIBUTE_LINE}
"""

GITIGNORE_LINE = ".memfs/"
#: Also ignored: Obsidian's settings and workspace state (``.obsidian/``), rewritten on every
#: click in a vault that is also a memory repository; memfs never reads it.
GITIGNORE_LINES = (GITIGNORE_LINE, ".obsidian/")


def default_driver_command() -> str:
    """The driver command git runs: this Python's ``-m memfs``, so it works without ``memfs`` on PATH."""
    return f"{shlex.quote(sys.executable)} -m memfs merge-driver %O %A %B %P --marker-size %L"


def configure_merge_driver(git: gitcli.Git, command: str | None = None) -> str:
    """Set ``merge.memfs.*`` in this clone's git config (the driver line before the name: git
    refuses to merge at all with a named driver that has no command)."""
    command = command or default_driver_command()
    git.config_set(f"merge.{DRIVER}.driver", command)
    git.config_set(f"merge.{DRIVER}.name", "memfs: merge memory files by frontmatter field semantics")
    return command


def merge_driver_configured(git: gitcli.Git) -> bool:
    return bool(git.config_get(f"merge.{DRIVER}.driver"))


def attributes_text(existing: str) -> str | None:
    """``existing`` .gitattributes text with the driver line added, or ``None`` if it is there."""
    if _ATTRIBUTE.search(existing):
        return None
    prefix = existing if not existing or existing.endswith("\n") else existing + "\n"
    return prefix + ATTRIBUTE_LINE + "\n"


def prepare(directory: Path) -> gitcli.Git:
    """The git repository ``directory`` is in (created, with branch ``main``, if there is none),
    with the merge driver registered in its config."""
    directory.mkdir(parents=True, exist_ok=True)
    try:
        top, git_dir = gitcli.discover(directory)
        git = gitcli.Git(top, git_dir)
    except NotAMemoryRepo:
        git = gitcli.create(directory)
    configure_merge_driver(git)
    return git


def starter_files(root: Path) -> dict[str, bytes]:
    """Root-relative path -> bytes of each starter file that is missing (``.gitignore`` gains the
    ``.memfs/`` line if it lacks it)."""
    wanted: dict[str, bytes] = {CONFIG_FILE: CONFIG_TEXT.encode(), ATTRIBUTES_FILE: GITATTRIBUTES_TEXT.encode()}
    gitignore = root / ".gitignore"
    lines = gitignore.read_text(encoding="utf-8").splitlines() if gitignore.exists() else []
    missing = [line for line in GITIGNORE_LINES if line not in lines and line.rstrip("/") not in lines]
    if missing:
        wanted[".gitignore"] = ("\n".join([*lines, *missing]) + "\n").encode()
    system = root / "system"
    if not system.exists() or not any(system.glob("*.md")):
        fields = {
            "id": "persona",
            "source": "memfs:init",
            "source_kind": "system",
            "description": "Who the agent is and how it uses this memory",
        }
        wanted["system/persona.md"] = render_template("system", "system/persona.md", fields)
    return {rel: data for rel, data in wanted.items() if rel == ".gitignore" or not (root / rel).exists()}


#: Continuous-integration set-ups ``memfs init --ci`` writes: name -> (template, where it goes).
CI = {"github": ("ci/github.yml", ".github/workflows/memfs.yml"), "gitlab": ("ci/gitlab.yml", ".gitlab-ci.yml")}


def ci_file(kind: str) -> tuple[str, bytes]:
    """(path from the top of the git work tree, bytes) of the CI workflow ``kind``."""
    from memfs.errors import UsageError
    from memfs.format.templates import data_dir

    if kind not in CI:
        raise UsageError(f"{kind!r}: memfs writes CI set-ups for {', '.join(CI)}", param="ci")
    template, dest = CI[kind]
    return dest, (data_dir("templates") / template).read_bytes()

