"""The live index: a long-running ``memfs serve`` that keeps the search index current from
file-system events and answers searches over a local socket (:mod:`.server`), and the client
short-lived commands use to ask it (:mod:`.wire`, standard library only, so a fresh ``memfs
search`` that a server answers never imports Whoosh or YAML)."""
