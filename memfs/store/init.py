"""``memfs init``: make a folder a memory repository (creating the git repository if needed).

Re-running it is safe: it adds only what is missing and commits only those files.
"""

from __future__ import annotations

from pathlib import Path

from memfs.errors import NotAMemoryRepo
from memfs.format.templates import render_template
from memfs.store import atomic, gitcli
from memfs.store.commits import Message

CONFIG_TEXT = """\
# This folder is a memfs memory repository (https://github.com/memfs). Every *.md file under
# it is a memory, except README.md files and paths listed in .memfsignore.
format = 1
"""

GITATTRIBUTES_TEXT = """\
# memfs memory files: Markdown with YAML frontmatter.
*.md text diff=markdown
# Merge memories by frontmatter field semantics. Each clone needs 'memfs install-merge-driver'
# (git config is per clone); without it git falls back to its plain text merge.
*.md merge=memfs
"""

GITIGNORE_LINE = ".memfs/"


def _ensure_git(directory: Path, actor: str) -> gitcli.Git:
    directory.mkdir(parents=True, exist_ok=True)
    try:
        top, git_dir = gitcli.discover(directory)
    except NotAMemoryRepo:
        gitcli.run_in(directory, "init", "-q")
        gitcli.run_in(directory, "symbolic-ref", "HEAD", "refs/heads/main")
        top, git_dir = gitcli.discover(directory)
    return gitcli.Git(top, git_dir)


def _starter_files(root: Path) -> dict[Path, bytes]:
    """The files a fresh memory root needs, minus those already present."""
    wanted: dict[Path, bytes] = {
        root / ".memfs.toml": CONFIG_TEXT.encode(),
        root / ".gitattributes": GITATTRIBUTES_TEXT.encode(),
    }
    gitignore = root / ".gitignore"
    lines = gitignore.read_text(encoding="utf-8").splitlines() if gitignore.exists() else []
    if GITIGNORE_LINE not in lines and ".memfs" not in lines:
        wanted[gitignore] = ("\n".join([*lines, GITIGNORE_LINE]) + "\n").encode()
    system = root / "system"
    if not system.exists() or not any(system.glob("*.md")):
        wanted[system / "persona.md"] = render_template(
            "system",
            "system/persona.md",
            {
                "id": "persona",
                "source": "memfs:init",
                "source_kind": "system",
                "description": "Who the agent is and how it uses this memory",
            },
        )
    return {path: data for path, data in wanted.items() if path == gitignore or not path.exists()}


def init_repo(directory: Path, actor: str):
    from memfs.store.repo import MemoryRepo

    git = _ensure_git(directory, actor)
    from memfs.ops.mergedriver import configure

    configure(git)
    root = directory.resolve()
    created = _starter_files(root)
    for path, data in created.items():
        atomic.write_bytes(path, data)
    rels = sorted(str(p.relative_to(git.workdir.resolve())) for p in created)
    if rels:
        message = Message("init", "memory repository", actor, paths=tuple(rels)).render()
        git.commit_paths(rels, message, gitcli.Identity.for_actor(actor))
    return MemoryRepo.open(root, actor)
