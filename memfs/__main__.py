"""``python -m memfs`` runs the CLI (the same entry point as the ``memfs`` script)."""

from memfs.cli import main

main()
