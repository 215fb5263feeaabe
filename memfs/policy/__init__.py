"""Policy as pure functions over records: who may be recalled and in which order, the lineage
closure and the reinstate rule, the write gate and its secret scan, reconciliation, field-aware
merges, transcripts and token counts. No disk, no git: everything here is tested without a
repository. Imports only :mod:`memfs.format` and :mod:`memfs.errors`."""
