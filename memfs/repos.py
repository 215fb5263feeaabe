"""The library over several memory repositories: :class:`MemoryRepos` recalls from all of them
in one call (a user's, a team's and an organisation's, say).

>>> import memfs
>>> repos = memfs.MemoryRepos.open(["~/memory", "/srv/team-memory", "/srv/org-memory"])  # doctest: +SKIP
>>> for hit in repos.search("release notes", scope="user:U5").hits:                     # doctest: +SKIP
...     print(hit.root.label, hit.path, hit.hit.score)

Its read verbs are derived from the same declarations as :class:`~memfs.api.MemoryRepo`'s
(``search`` is :class:`~memfs.ops.verbs.recall.Search`, ``context`` is
:class:`~memfs.agents.verbs.Context`), and each runs the one-root verb in every root
(:mod:`memfs.agents.roots`): every root keeps its own rules, scopes and guard; hits carry their
root; the rankings are merged fairly (:mod:`memfs.policy.fusion`). A root that fails is named in
the result's ``errors`` and the others still answer. Writes take one root: open it alone with
:meth:`MemoryRepo.open`; any other request is refused with a :class:`~memfs.errors.UsageError`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Generic, ParamSpec, TypeVar

from memfs.agents.roots import RootsContext, RootsSearchResult
from memfs.agents.verbs import Context
from memfs.ops.verbs.declare import Request, verb
from memfs.ops.verbs.recall import Search

P = ParamSpec("P")
R = TypeVar("R")

if TYPE_CHECKING:
    from memfs.agents.roots import Root, RootFailure
    from memfs.api import MemoryRepo
    from memfs.policy.guard import Grants


class over(Generic[P, R]):
    """A :class:`~memfs.ops.verbs.declare.verb` whose result over several roots is ``result``
    (the request's parameters, as declared; the merged result, not one root's)."""

    def __init__(self, request: Callable[P, Request[Any]], result: Callable[..., R]) -> None:
        self.made = verb(request)
        self.__doc__ = self.made.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.made.__set_name__(owner, name)

    def __get__(self, obj: MemoryRepos, owner: type) -> Callable[P, R]:
        bound: Callable[P, R] = self.made.__get__(obj, owner)
        return bound


class MemoryRepos:
    """Several memory repositories read as one: ``search`` and ``context`` over all of them.
    Open with :meth:`open` (roots that fail to open are kept in :attr:`failures` and reported by
    every result) or build from opened :class:`~memfs.api.MemoryRepo` objects."""

    def __init__(self, repos: Sequence[MemoryRepo], failures: Sequence[RootFailure] = ()) -> None:
        from memfs.agents.roots import labelled

        self.roots: list[Root] = labelled([repo.store for repo in repos])
        self.failures: list[RootFailure] = list(failures)

    @classmethod
    def open(cls, starts: Sequence[str | os.PathLike[str]], actor: str | None = None) -> MemoryRepos:
        """The memory repositories containing each of ``starts``, in that order (the first is the
        most specific: it wins ties), deduplicated by resolved path."""
        from memfs.agents.roots import open_roots
        from memfs.api import MemoryRepo

        roots, failures = open_roots([os.path.expanduser(os.fspath(s)) for s in starts], actor)
        return cls([MemoryRepo(root.store) for root in roots], failures)

    def __repr__(self) -> str:
        return f"MemoryRepos({[root.path for root in self.roots]!r})"

    @property
    def repos(self) -> list[MemoryRepo]:
        """Each root as its own :class:`~memfs.api.MemoryRepo` (for a write: one root)."""
        from memfs.api import MemoryRepo

        return [MemoryRepo(root.store) for root in self.roots]

    @property
    def notices(self) -> list[str]:
        """What opening the roots had to say, each line labelled with its root."""
        return [f"{root.label}: {text}" for root in self.roots for text in root.store.notices]

    def session(
        self, scope: str | None, *, inherit: bool = False, grants: Grants | None = None, actor: str | None = None
    ) -> MemoryRepos:
        """Every root as one agent session sees it (:meth:`MemoryRepo.session`, root by root)."""
        sessions = [repo.session(scope, inherit=inherit, grants=grants, actor=actor) for repo in self.repos]
        return MemoryRepos(sessions, self.failures)

    search = over(Search, RootsSearchResult)

    context = over(Context, RootsContext)

    def run(self, op: Request[Any]) -> Any:
        """A read request over every root (``search`` or ``context``); any other verb changes or
        reads one repository and is refused: open that one with :meth:`MemoryRepo.open`."""
        doer = _DOERS.get(type(op))
        if doer is None:
            from memfs.errors import UsageError

            raise UsageError(
                f"{op.verb} acts on one memory repository; this reads {len(self.roots)} "
                f"({', '.join(root.label for root in self.roots)}): open the one to act on alone")
        return doer(self, op)


def _search(repos: MemoryRepos, op: Search) -> RootsSearchResult:
    from memfs.agents.roots import search

    return search(repos.roots, op, repos.failures)


def _context(repos: MemoryRepos, op: Context) -> RootsContext:
    from memfs.agents.roots import context

    return context(repos.roots, op, repos.failures)


_DOERS: dict[type, Callable[[MemoryRepos, Any], Any]] = {Search: _search, Context: _context}

__all__ = ["MemoryRepos"]
