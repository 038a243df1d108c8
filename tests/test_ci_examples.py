"""The CI examples: current action majors, installs from a pinned source, and the GitLab job's note sync run
against a stand-in for GitLab's notes API (pagination by X-Next-Page, update, create, delete stale parts)."""

from __future__ import annotations

import email.parser
import json
import os
import re
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import EXAMPLES, REPO

GITOPS = EXAMPLES / "gitops"
# Current majors (Node 24): actions/checkout v7.0.1 and setup-python v7.0.0 (their action.yml: `using: node24`),
# github-script v9 (its v9.0.0 release notes).
CURRENT = {"actions/checkout": "v7", "actions/setup-python": "v7", "actions/github-script": "v9"}


def _workflows() -> list[Path]:
    return sorted((GITOPS / "github-actions").glob("*.yaml"))


def test_github_actions_use_current_majors() -> None:
    for path in [*_workflows(), REPO / "action.yml"]:
        for use in re.findall(r"^[ \t-]*uses: (\S+)", path.read_text(encoding="utf-8"), re.MULTILINE):
            action, _, version = use.partition("@")
            if action == "platform/mxjob-gitops":  # our own action.yml, pinned to a commit the user reviewed
                assert version == "REPLACE-WITH-COMMIT-SHA", (path.name, use)
                continue
            assert CURRENT.get(action) == version, (path.name, use)


def test_every_install_is_pinned_to_a_source_the_user_controls() -> None:
    texts = {
        p: p.read_text(encoding="utf-8")
        for p in [
            *GITOPS.rglob("*.y*ml"),
            REPO / "README.md",
            *(REPO / "docs").glob("*.md"),
            REPO / "Dockerfile",
            *(REPO / "overlays").rglob("*.y*ml"),
        ]
    }
    for path, text in texts.items():
        for line in text.splitlines():
            if re.search(r"pip install\b", line):
                bare = r"pip install (-\S+ )*['\"]?mxjob-gitops(\[[\w,]+\])?['\"]?(\s|$)(?!\s*@)"
                assert not re.search(bare, line), (path, line)
        assert "ghcr.io/mxjob-gitops" not in text and "v0.1.0" not in text, path


def test_no_workflow_writes_a_file_nothing_reads() -> None:
    for path in [*_workflows(), *(GITOPS / "gitlab-ci").glob("*.yml")]:
        text = path.read_text(encoding="utf-8")
        for written in re.findall(r">\s*([\w.-]+\.(?:json|md|txt))", text):
            assert text.count(written) >= 2, (path.name, written)


class _Notes:
    """Notes of one merge request, as GitLab's REST API pages them."""

    def __init__(self, notes: list[dict[str, Any]]) -> None:
        self.notes = notes
        self.next_id = 1 + max(n["id"] for n in notes)
        self.lock = threading.Lock()


def _handler(store: _Notes) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_args: object) -> None:
            pass

        def _reply(self, code: int, body: Any, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(body).encode()
            self.send_response(code)
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _form_body(self) -> str:
            raw = self.rfile.read(int(self.headers["Content-Length"]))
            message = email.parser.BytesParser().parsebytes(
                f"Content-Type: {self.headers['Content-Type']}\r\n\r\n".encode() + raw
            )
            part = next(p for p in message.walk() if p.get_param("name", header="content-disposition") == "body")
            payload = part.get_payload(decode=True)
            assert isinstance(payload, bytes)
            return payload.decode()

        def do_GET(self) -> None:  # http.server's method names
            match = re.search(r"per_page=(\d+)&page=(\d+)", self.path)
            assert match and self.headers["PRIVATE-TOKEN"] == "t"
            size, page = int(match.group(1)), int(match.group(2))
            size = min(size, 100)
            chunk = store.notes[(page - 1) * size : page * size]
            more = page * size < len(store.notes)
            self._reply(200, chunk, {"X-Next-Page": str(page + 1) if more else ""})

        def do_POST(self) -> None:
            with store.lock:
                store.notes.append({"id": store.next_id, "body": self._form_body()})
                store.next_id += 1
            self._reply(201, store.notes[-1])

        def do_PUT(self) -> None:
            note_id = int(self.path.rsplit("/", 1)[1])
            body = self._form_body()
            next(n for n in store.notes if n["id"] == note_id)["body"] = body
            self._reply(200, {"id": note_id})

        def do_DELETE(self) -> None:
            note_id = int(self.path.rsplit("/", 1)[1])
            store.notes[:] = [n for n in store.notes if n["id"] != note_id]
            self._reply(204, {})

    return Handler


@pytest.fixture
def gitlab() -> Iterator[tuple[str, _Notes]]:
    # 230 other notes; our parts 1 (page 1), 2 and 3 (page 3): part 3 is stale once the diff has two parts.
    notes = [{"id": i, "body": f"review comment {i}"} for i in range(1, 231)]
    notes.insert(5, {"id": 1001, "body": "<!-- mxjob-diff part 1 -->\nold one"})
    notes.append({"id": 1002, "body": "<!-- mxjob-diff part 2 -->\nold two"})
    notes.append({"id": 1003, "body": "<!-- mxjob-diff part 3 -->\nold three"})
    store = _Notes(notes)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(store))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/api/v4", store
    finally:
        server.shutdown()
        server.server_close()


def test_gitlab_job_updates_its_notes_on_every_page_and_deletes_stale_ones(
    gitlab: tuple[str, _Notes], tmp_path: Path
) -> None:
    url, store = gitlab
    template = yaml.safe_load((REPO / "ci" / "gitlab" / "mxjob.gitlab-ci.yml").read_text(encoding="utf-8"))
    sync = next(step for step in template[".mxjob-pr-check"]["script"] if "MXJOB_DIFF_TOKEN" in step)
    parts = tmp_path / "mxjob-parts"
    parts.mkdir()
    (parts / "part-1-of-2.md").write_text("new one\n", encoding="utf-8")
    (parts / "part-2-of-2.md").write_text("new two\n", encoding="utf-8")
    env = {
        **os.environ,
        "CI_API_V4_URL": url,
        "CI_PROJECT_ID": "7",
        "CI_MERGE_REQUEST_IID": "3",
        "MXJOB_DIFF_TOKEN": "t",
        "MXJOB_PARTS": "mxjob-parts",
    }
    done = subprocess.run(["bash", "-c", sync], cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    ours = {n["id"]: n["body"] for n in store.notes if n["body"].startswith("<!-- mxjob-diff")}
    assert ours == {1001: "<!-- mxjob-diff part 1 -->\nnew one\n", 1002: "<!-- mxjob-diff part 2 -->\nnew two\n"}
    assert len(store.notes) == 232  # nobody else's note touched, nothing created twice


def test_example_jobs_keep_their_pods_under_self_heal() -> None:
    """cleanPodPolicy Running/All deletes finished pods, which GitOps self-heal recreates: the job runs again."""
    from tests.conftest import JOB_EXAMPLE_FILES

    for path in [*JOB_EXAMPLE_FILES, *(EXAMPLES / "kustomize").rglob("*.yaml")]:
        for document in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            policy = ((document or {}).get("spec") or {}).get("runPolicy") or {}
            assert policy.get("cleanPodPolicy", "None") == "None", path


def test_kubeflow_overlay_warns_about_the_training_operator() -> None:
    text = (REPO / "overlays" / "kubeflow" / "kustomization.yaml").read_text(encoding="utf-8")
    assert "training-operator up to v1.8 still runs its own MXJob controller" in text
    assert "--enable-scheme" in text
