"""The secret scanner's recall per credential kind and per disguise, and its false positives on
prose: the numbers bench/README.md reports for issue #26.

Recall: tests/secret_corpus.py, every kind in every disguise, --per-kind random samples each.
False positives (texts refused, each scanned whole as a memory's body would be):

* the prose corpus of tests/secret_corpus.py (about passwords, keys and tokens in six languages,
  and ordinary technical text);
* this repository's own prose: README.md, docs/*.md, bench/README.md (they talk about passwords,
  tokens and keys throughout);
* the Obsidian help vault (obsidianmd/obsidian-help, every .md file at the mirror's HEAD, read
  with git, never copied; --obsidian names the mirror's git directory);
* LoCoMo dev conversation turns (read-only from /work/shared/bench/locomo, never copied).

Each false-positive figure is given with the one-word password rules (memfs/policy/secrets_words.py)
and without them, so what they cost is seen beside what they catch.

    .venv/bin/python bench/bench_secrets.py [--per-kind 8] [--obsidian PATH] [--locomo PATH]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_gate import LOCOMO, turns  # noqa: E402
from memfs.policy import secrets_scan, secrets_words  # noqa: E402
from tests import secret_corpus as corpus  # noqa: E402

OBSIDIAN = Path("/work/.mirror/obsidianmd+obsidian-help/repo")


def obsidian(git_dir: Path) -> list[str]:
    """Every .md file of the vault at HEAD, as text."""
    if not git_dir.exists():
        return []
    names = subprocess.run(["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-z", "--name-only", "HEAD"],
                           capture_output=True, check=True).stdout.decode().split("\0")
    wanted = [n for n in names if n.endswith(".md")]
    batch = subprocess.run(["git", "--git-dir", str(git_dir), "cat-file", "--batch"], capture_output=True, check=True,
                           input="".join(f"HEAD:{n}\n" for n in wanted).encode()).stdout
    out, at = [], 0
    while at < len(batch):
        header_end = batch.index(b"\n", at)
        size = int(batch[at:header_end].split()[2])
        out.append(batch[header_end + 1 : header_end + 1 + size].decode("utf-8", "replace"))
        at = header_end + 1 + size + 1
    return out


def own_prose() -> list[str]:
    files = [ROOT / "README.md", ROOT / "bench" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    return [f.read_text(encoding="utf-8") for f in files]


def refused(texts: list[str]) -> tuple[list[tuple[str, str]], float]:
    """(refused texts with the line found, CPU seconds per text)."""
    secrets_scan._clean.clear()
    started = time.process_time()
    out = []
    for text in texts:
        found = secrets_scan.scan(text)
        if found:
            line = text.splitlines()[found[0].line - 1] if text.splitlines() else text
            out.append((found[0].rule, line.strip()[:90]))
    return out, (time.process_time() - started) / max(len(texts), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-kind", type=int, default=8)
    parser.add_argument("--obsidian", type=Path, default=OBSIDIAN)
    parser.add_argument("--locomo", type=Path, default=LOCOMO)
    args = parser.parse_args()
    samples = corpus.samples(args.per_kind)
    found_kind, all_kind, found_disguise, all_disguise = Counter(), Counter(), Counter(), Counter()
    for kind, disguise, text in samples:
        hit = bool(secrets_scan.scan(text))
        all_kind[kind] += 1
        all_disguise[disguise] += 1
        found_kind[kind] += hit
        found_disguise[disguise] += hit
    print(f"recall per kind ({args.per_kind} samples x {len(corpus.DISGUISES)} disguises each)")
    for kind in sorted(all_kind):
        print(f"  {kind:26} {found_kind[kind]:4} / {all_kind[kind]}  {found_kind[kind] / all_kind[kind]:.3f}")
    print("recall per disguise")
    for name in corpus.DISGUISES:
        print(f"  {name:26} {found_disguise[name]:4} / {all_disguise[name]}")
    sets = {"prose corpus (tests/secret_corpus.py)": corpus.PROSE, "memfs's own prose (README, docs, bench)":
            own_prose(), "Obsidian help vault (.md files)": obsidian(args.obsidian),
            "LoCoMo dev turns": turns(args.locomo) if args.locomo.exists() else []}
    print("\nfalse positives: texts refused (with the one-word password rules / without them)")
    for name, texts in sets.items():
        with_rules, cpu = refused(texts)
        keep = secrets_words.word_password, secrets_words.german_word_password
        secrets_words.word_password = secrets_words.german_word_password = lambda value, *_: False  # type: ignore
        try:
            without, _ = refused(texts)
        finally:
            secrets_words.word_password, secrets_words.german_word_password = keep
        print(f"  {name}: {len(with_rules)} / {len(texts)} (without: {len(without)}), "
              f"{cpu * 1e6:.0f} µs CPU a text")
        for rule, line in with_rules[:8]:
            print(f"      {rule}: {line!r}")


if __name__ == "__main__":
    main()
