"""Files and git: the one package that runs git (:mod:`.gitcli`, whose :mod:`.gitcli.process` alone
starts processes), confinement of paths, atomic writes, the write lock, the journal, and
:class:`.repo.Store`: repository upkeep (:mod:`.upkeep`), reading and validation
(:mod:`.reading`) and the commit protocol (:mod:`.staging`, :mod:`.transaction`), the one path by
which anything is committed. Applies the policy of :mod:`memfs.policy` (the core guard) to every
change; decides none itself."""
