"""Stand-ins for the forges' command-line tools the CI templates call, and a way to run a
template's script locally with them first on ``PATH``.

``gh`` answers the ``gh api`` calls of templates/ci/github.yml (listing an issue's comments with
``--paginate --slurp``, creating one, editing one by id) and ``curl`` the GitLab REST calls of
templates/ci/gitlab.yml (listing a merge request's notes a page at a time, creating one, editing
one by id). Both keep the comments in a JSON file (:class:`Forge`), answer with the JSON the
real service sends, fail like the real tool on an unknown id or a refused token (gh exits 1,
``curl --fail-with-body`` exits 22) and log every call's arguments. Pages hold two items
(``FORGE_PAGE``), so a listing of a few comments already spans pages.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_COMMON = '''
import json, os, sys, urllib.parse
STATE = os.environ["FORGE_STATE"]
with open(os.environ["FORGE_LOG"], "a", encoding="utf-8") as log:
    log.write(json.dumps([os.path.basename(sys.argv[0]), *sys.argv[1:]]) + "\\n")
state = json.load(open(STATE, encoding="utf-8"))
items = state["comments"]
PAGE = int(os.environ.get("FORGE_PAGE", "2"))


def save():
    json.dump(state, open(STATE, "w", encoding="utf-8"))


def create(body):
    item = {"id": state["next_id"], "body": body, "user": {"login": os.environ.get("FORGE_USER", "ci-bot")}}
    state["next_id"] += 1
    items.append(item)
    save()
    return item


def edit(ident, body):
    for item in items:
        if str(item["id"]) == ident:
            item["body"] = body
            save()
            return item
    return None
'''

GH = _COMMON + '''
args, method, fields, paginate, slurp, path = sys.argv[1:], None, {}, False, False, None
if args[:1] != ["api"]:
    sys.exit("gh stand-in: only 'gh api' is answered, got " + " ".join(args))
rest = iter(args[1:])
for arg in rest:
    if arg == "--paginate":
        paginate = True
    elif arg == "--slurp":
        slurp = True
    elif arg in ("--method", "-X"):
        method = next(rest)
    elif arg in ("-F", "--field", "-f", "--raw-field"):
        key, value = next(rest).split("=", 1)
        from_file = arg in ("-F", "--field") and value.startswith("@")
        fields[key] = open(value[1:], encoding="utf-8").read() if from_file else value
    elif arg.startswith("-"):
        sys.exit("gh stand-in: unknown flag " + arg)
    else:
        path = arg
if slurp and not paginate:
    sys.exit("the `--slurp` option is only supported with `--paginate`")
method = method or ("POST" if fields else "GET")
listing = "repos/%s/issues/%s/comments" % (state["repo"], state["number"])
one = "repos/%s/issues/comments/" % state["repo"]
if path == listing and method == "GET":
    pages = [items[i:i + PAGE] for i in range(0, len(items), PAGE)] or [[]]
    pages = pages if paginate else pages[:1]
    print(json.dumps(pages) if slurp else "".join(json.dumps(p) for p in pages))
elif path == listing and method == "POST":
    print(json.dumps(create(fields["body"])))
elif path.startswith(one) and method == "PATCH":
    item = edit(path[len(one):], fields["body"])
    if item is None:
        sys.exit("gh: Not Found (HTTP 404)")
    print(json.dumps(item))
else:
    sys.exit("gh stand-in: no answer for %s %s" % (method, path))
'''

CURL = _COMMON + '''
args, method, headers, out, data, url = sys.argv[1:], None, [], None, None, None
rest = iter(args)
for arg in rest:
    if arg in ("-sS", "-s", "-S", "--fail-with-body", "--silent", "--show-error"):
        continue
    if arg in ("-X", "--request"):
        method = next(rest)
    elif arg in ("-H", "--header"):
        headers.append(next(rest))
    elif arg in ("-o", "--output"):
        out = next(rest)
    elif arg == "--data-urlencode":
        name, _, source = next(rest).partition("@")
        data = (name, open(source, encoding="utf-8").read())
    elif arg.startswith("-"):
        sys.exit("curl stand-in: unknown option " + arg)
    else:
        url = arg


def answer(code, payload):
    text = json.dumps(payload)
    if out and out != "/dev/null":
        open(out, "w", encoding="utf-8").write(text)
    elif not out:
        sys.stdout.write(text)
    if code >= 400:
        sys.stderr.write("curl: (22) The requested URL returned error: %d\\n" % code)
        sys.exit(22)
    sys.exit(0)


if "PRIVATE-TOKEN: " + state["token"] not in headers:
    answer(401, {"message": "401 Unauthorized"})
parts = urllib.parse.urlsplit(url)
query = dict(urllib.parse.parse_qsl(parts.query))
notes = "%s/projects/%s/merge_requests/%s/notes" % (state["api"], state["project"], state["number"])
where = parts._replace(query="").geturl()
method = method or ("POST" if data else "GET")
if data is not None and data[0] != "body":
    answer(400, {"message": "body is missing"})
if where == notes and method == "GET":
    size, page = min(int(query.get("per_page", 20)), PAGE), int(query.get("page", 1))
    assert query.get("sort") == "asc", "the stand-in keeps notes oldest first"
    answer(200, items[(page - 1) * size: page * size])
elif where == notes and method == "POST":
    answer(201, create(data[1]))
elif where.startswith(notes + "/") and method == "PUT":
    item = edit(where[len(notes) + 1:], data[1])
    answer(200, item) if item else answer(404, {"message": "404 Not found"})
else:
    answer(404, {"message": "404 Not found: %s %s" % (method, where)})
'''


@dataclass
class Forge:
    """A pull or merge request's comments as a stand-in tool keeps them (``folder/state.json``),
    with the calls made (``folder/calls.jsonl``)."""

    folder: Path

    def __post_init__(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)

    @property
    def state_file(self) -> Path:
        return self.folder / "state.json"

    @property
    def log_file(self) -> Path:
        return self.folder / "calls.jsonl"

    def start(self, comments: list[dict[str, Any]], **facts: Any) -> None:
        """A request with ``comments`` already on it (each gets an id), and the ``facts`` the
        stand-in checks each call against (repository, request number, API root, token)."""
        numbered = [{"id": 500 + i, "user": {"login": "someone"}, **c} for i, c in enumerate(comments)]
        next_id = max([900, *(c["id"] + 1 for c in numbered)])
        self.state_file.write_text(json.dumps({**facts, "comments": numbered, "next_id": next_id}))

    @property
    def comments(self) -> list[dict[str, Any]]:
        return list(json.loads(self.state_file.read_text())["comments"])

    @property
    def calls(self) -> list[list[str]]:
        if not self.log_file.exists():
            return []
        return [json.loads(line) for line in self.log_file.read_text().splitlines()]

    def install(self, name: str) -> Path:
        """The stand-in ``name`` (``gh`` or ``curl``) in ``folder/bin``; returns that folder."""
        bin_dir = self.folder / "bin"
        bin_dir.mkdir(exist_ok=True)
        tool = bin_dir / name
        tool.write_text(f"#!{sys.executable}\n" + {"gh": GH, "curl": CURL}[name])
        tool.chmod(0o755)
        return bin_dir

    def env(self, name: str) -> dict[str, str]:
        """The environment for a script that should reach this forge through stand-in ``name``:
        its folder first on ``PATH``, then this Python's (the templates run ``python``)."""
        path = os.pathsep.join([str(self.install(name)), str(Path(sys.executable).parent), os.environ["PATH"]])
        return {**os.environ, "PATH": path, "FORGE_STATE": str(self.state_file), "FORGE_LOG": str(self.log_file)}


def run_script(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """A CI script as the runner starts it: ``bash`` with the script as its command."""
    return subprocess.run(["bash", "-c", script], cwd=cwd, env=env, capture_output=True, text=True)
