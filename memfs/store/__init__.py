"""Files and git: the one module that runs git (:mod:`.gitcli`), confinement of paths, atomic
writes, the write lock, the journal, and :class:`.repo.Store` with its :class:`.repo.Transaction`,
the one path by which anything is committed. Applies the policy of :mod:`memfs.policy` (the
core guard) to every change; decides none itself."""
