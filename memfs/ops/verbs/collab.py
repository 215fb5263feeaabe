"""Working with others: ``propose``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memfs.format.declare import param
from memfs.ops.verbs.declare import Request, request

if TYPE_CHECKING:
    from memfs.ops.sync import ProposeResult  # noqa: F401 - the result named in Request["..."]


@request("propose")
class Propose(Request["ProposeResult"]):
    """Put pending memory changes on a review branch and push it, ready for a pull request."""

    branch: str | None = param(default=None, help="Review branch name (default: memfs/<actor>/<UTC time>).")
    remote: str | None = param(default=None, help="Remote to push to (default: the branch's upstream, else origin).")
    base: str | None = param(default=None, help="Branch the review targets (default: the upstream branch).")
    keep_main: bool = param(default=False,
                            help="Leave the local branch as it is (default: back to the remote tip).")
    reason: str | None = param(default=None, help="Reason recorded if uncommitted memory changes are committed first.")
