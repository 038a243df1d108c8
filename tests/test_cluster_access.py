"""Cluster errors in kubectl's words (reconcile, diff --live): where a kubeconfig was looked for, a missing
context, a refused connection, an unknown host; each exits 2 before anything is read or changed."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
import yaml

from mxjob_gitops.reconciler import access
from tests.conftest import EXAMPLES, run_cli

COMMANDS = {
    "reconcile": ["reconcile", "--once", "--no-leader-election"],
    "diff --live": ["diff", "--live", str(EXAMPLES / "train")],
}


@pytest.fixture(autouse=True)
def _no_cluster(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for name in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"):
        monkeypatch.delenv(name, raising=False)


def _kubeconfig(path: Path, server: str) -> Path:
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "c", "cluster": {"server": server}}],
        "users": [{"name": "u", "user": {"token": "t"}}],
        "contexts": [{"name": "dev", "context": {"cluster": "c", "user": "u"}}],
        "current-context": "dev",
    }
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize("command", COMMANDS)
def test_no_kubeconfig_says_where_it_looked_and_how_to_fix_it(command: str, tmp_path: Path) -> None:
    result = run_cli(COMMANDS[command])
    assert result.exit_code == 2 and result.stdout == ""
    assert "no configuration has been provided: looked for --kubeconfig (not given), KUBECONFIG (not set), " in (
        result.stderr
    )
    assert f"{tmp_path / 'home' / '.kube' / 'config'} (no such file)" in result.stderr
    assert "KUBERNETES_SERVICE_HOST is not set" in result.stderr and "pass --kubeconfig FILE" in result.stderr


@pytest.mark.parametrize("command", COMMANDS)
def test_a_refused_connection_is_kubectls_line(command: str, tmp_path: Path) -> None:
    port = _closed_port()
    config = _kubeconfig(tmp_path / "kubeconfig", f"https://127.0.0.1:{port}")
    result = run_cli([*COMMANDS[command], "--kubeconfig", str(config)])
    assert result.exit_code == 2
    assert f"the connection to the server 127.0.0.1:{port} was refused - did you specify the right host or port?" in (
        result.stderr
    )
    assert "HTTPSConnectionPool" not in result.stderr and "Max retries" not in result.stderr


@pytest.mark.parametrize("command", COMMANDS)
def test_a_missing_context_is_named(command: str, tmp_path: Path) -> None:
    config = _kubeconfig(tmp_path / "kubeconfig", "https://127.0.0.1:6")
    result = run_cli([*COMMANDS[command], "--kubeconfig", str(config), "--context", "prod"])
    assert result.exit_code == 2
    assert f'context "prod" does not exist in {config} (its contexts: dev;' in result.stderr
    assert "Invalid kube-config" not in result.stderr


def test_a_missing_kubeconfig_file_is_named(tmp_path: Path) -> None:
    result = run_cli([*COMMANDS["reconcile"], "--kubeconfig", str(tmp_path / "nope")])
    assert result.exit_code == 2 and f"kubeconfig {tmp_path / 'nope'}: no such file" in result.stderr


def test_the_default_kubeconfig_is_read_and_named_when_broken(tmp_path: Path) -> None:
    default = tmp_path / "home" / ".kube" / "config"
    default.parent.mkdir(parents=True)
    default.write_text("apiVersion: v1\nkind: Config\n", encoding="utf-8")
    result = run_cli(COMMANDS["reconcile"])
    assert result.exit_code == 2 and f"kubeconfig {default}:" in result.stderr


@pytest.mark.parametrize(
    ("server", "words", "said"),
    [
        (
            "https://10.0.0.1:6443",
            "HTTPSConnectionPool(host='10.0.0.1', port=6443): Max retries exceeded with url: /version (Caused by "
            'NewConnectionError("...: Failed to establish a new connection: [Errno 111] Connection refused"))',
            "the connection to the server 10.0.0.1:6443 was refused - did you specify the right host or port?",
        ),
        (
            "https://api.example.invalid",
            "Max retries exceeded (Caused by NameResolutionError(\"Failed to resolve 'api.example.invalid' "
            '([Errno -2] Name or service not known)"))',
            "Unable to connect to the server: dial tcp: lookup api.example.invalid: no such host",
        ),
        (
            "https://10.0.0.1:6443",
            "Max retries exceeded (Caused by ConnectTimeoutError(..., 'Connection to 10.0.0.1 timed out.'))",
            "Unable to connect to the server 10.0.0.1:6443: i/o timeout",
        ),
    ],
)
def test_unreachable_words(server: str, words: str, said: str) -> None:
    assert access.unreachable(server, words) == said


def test_server_errors_in_kubectls_words() -> None:
    body = (
        '{"kind":"Status","reason":"Forbidden","message":"mxjobs.kubeflow.org is forbidden: User \\"x\\" cannot list"}'
    )
    assert access.server_error(403, "Forbidden", body) == (
        'Error from server (Forbidden): mxjobs.kubeflow.org is forbidden: User "x" cannot list'
    )
    assert access.server_error(503, "Service Unavailable", None) == "HTTP 503 Service Unavailable"
    assert access.refused_by_server(401, "Unauthorized") == "error: You must be logged in to the server (Unauthorized)"
