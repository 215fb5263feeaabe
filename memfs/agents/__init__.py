"""What agents and their hosts use: context assembly under a token budget, the memory-tool file
commands, and the watcher that commits direct edits."""
