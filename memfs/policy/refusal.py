"""A refusal of the write gate or the core guard: the rule, what it found, how to fix it.

Its own module, not the gate's, so that the store (which carries refusals through every write and
its log) and a command that refuses nothing, such as a ``sync`` that fetched nothing, do not import
the gate's wording rules and the secret scanner with it (:mod:`memfs.policy.gate` re-exports it).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Refusal:
    rule: str
    message: str
    fix: str
    field: str | None = None
    start: int | None = None
    end: int | None = None
    line: int | None = None
    column: int | None = None
    forceable: bool = False

    def __str__(self) -> str:
        parts = [p for p in (self.field, self.line and f"line {self.line}, column {self.column}") if p]
        where = f" ({', '.join(parts)})" if parts else ""
        return f"refused by rule {self.rule}{where}: {self.message}; {self.fix}"

    def to_json(self) -> dict[str, object]:
        return {
            "rule": self.rule,
            "message": self.message,
            "fix": self.fix,
            "field": self.field,
            "start": self.start,
            "end": self.end,
            "line": self.line,
            "column": self.column,
            "forceable": self.forceable,
        }
