"""The file format: the memory record, exact splitting of a file, YAML reading and minimal-diff
writing, the field rules, ``.memfs.toml`` and the templates. Imports nothing above it; no git.

Layers, bottom to top: errors < format < policy < store < index < ops < agents < api < cli
(``docs/design.md``)."""
