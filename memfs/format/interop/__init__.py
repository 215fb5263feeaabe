"""Other systems' memory files, mapped to and from memfs's format (pure: bytes in, bytes out).

One module per system: :mod:`.letta` (both ways), :mod:`.basic_memory`, :mod:`.obsidian` and
:mod:`.markdown` (a plain folder of notes); :mod:`.common` holds what they share. Each takes the
whole batch of source files, because links and relations name other files of the batch, and
returns one :class:`~memfs.format.interop.common.Converted` per file: the bytes memfs will commit
and what was mapped and kept on the way. Files are never re-rendered: memfs's fields are added
(or a field another system spells differently is changed) by the same minimal-diff editor every
write uses, so every byte the user wrote stays as it was. Reading the source folder and
committing the result is :mod:`memfs.ops.interop`'s job.
"""

#: The systems ``memfs import`` reads. Here, not in :mod:`.common`, so that the verbs' declarations
#: (which offer them as choices) load neither YAML nor the converters.
FORMATS = ("letta", "basic-memory", "obsidian", "markdown")
