"""Why the cluster cannot be reached, in kubectl's words: where a kubeconfig was looked for and how to fix it,
`context "prod" does not exist`, `the connection to the server HOST:PORT was refused`. Pure text from plain values
(paths, the environment, an exception's words); kube.py, the one client module, calls it."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

SERVICE_ACCOUNT = "/var/run/secrets/kubernetes.io/serviceaccount/token"
_FIX = "pass --kubeconfig FILE or set KUBECONFIG, or run in a pod with a service account"


def default_kubeconfig(home: Path) -> Path:
    return home / ".kube" / "config"


def nothing_found(env: Mapping[str, str], home: Path) -> str:
    """No kubeconfig given or found, and not in a pod: every place looked at, and what to do."""
    default = default_kubeconfig(home)
    in_pod = "KUBERNETES_SERVICE_HOST is not set" if not env.get("KUBERNETES_SERVICE_HOST") else "no token"
    return (
        "no configuration has been provided: looked for --kubeconfig (not given), KUBECONFIG (not set), "
        f"{default} (no such file) and an in-cluster service account ({in_pod}); {_FIX}"
    )


def kubeconfig_problem(path: str | None, context: str | None, home: Path, reason: str) -> str:
    """A kubeconfig given (or the default one) that cannot be used: a missing file, an unknown context, or what
    the client said about it."""
    files = [Path(p) for p in (path.split(os.pathsep) if path else [str(default_kubeconfig(home))]) if p]
    shown = os.pathsep.join(str(f) for f in files)
    missing = [f for f in files if not f.is_file()]
    if missing and len(missing) == len(files):
        return f"kubeconfig {shown}: no such file ({'--kubeconfig or KUBECONFIG' if path else 'the default'}); {_FIX}"
    if context:
        names = context_names(files)
        if names is not None and context not in names:
            known = ", ".join(sorted(names)) or "none"
            return (
                f'context "{context}" does not exist in {shown} (its contexts: {known}; '
                "`kubectl config get-contexts` lists them)"
            )
    return f"kubeconfig {shown}: {reason}"


def context_names(files: list[Path]) -> set[str] | None:
    """The context names the kubeconfig files define; None when one cannot be read as YAML."""
    names: set[str] = set()
    for file in files:
        try:
            data: Any = yaml.safe_load(file.read_text(encoding="utf-8")) if file.is_file() else {}
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            return None
        for entry in (data or {}).get("contexts") or [] if isinstance(data, dict) else []:
            if isinstance(entry, dict) and isinstance(entry.get("name"), str):
                names.add(entry["name"])
    return names


def server_address(url: str) -> str:
    """HOST:PORT of a server URL, as kubectl prints it (the scheme's port when none is written)."""
    parts = urlsplit(url if "//" in url else f"https://{url}")
    port = parts.port or (80 if parts.scheme == "http" else 443)
    host = parts.hostname or url
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def unreachable(server: str, words: str) -> str:
    """What kubectl says when a request to `server` (a URL) fails before any HTTP answer; `words` is the
    exception's text (urllib3 nests the cause in it)."""
    address = server_address(server)
    if re.search(r"Connection refused|Errno 111|ECONNREFUSED", words):
        return f"the connection to the server {address} was refused - did you specify the right host or port?"
    if re.search(r"Name or service not known|nodename nor servname|Temporary failure in name resolution", words):
        host = address.rsplit(":", 1)[0]
        return f"Unable to connect to the server: dial tcp: lookup {host}: no such host"
    if "CERTIFICATE_VERIFY_FAILED" in words or "certificate verify failed" in words:
        return (
            f"Unable to connect to the server {address}: x509: the server's certificate is not trusted ({_tail(words)})"
        )
    if re.search(r"timed out|Timeout", words):
        return f"Unable to connect to the server {address}: i/o timeout"
    return f"Unable to connect to the server {address}: {_tail(words)}"


def refused_by_server(status: int, reason: str) -> str:
    """An HTTP error from the server before anything could be listed, as kubectl words the usual ones."""
    if status == 401:
        return "error: You must be logged in to the server (Unauthorized)"
    if status == 403:
        return f"error: the server refused the request (Forbidden: {reason})" if reason else "error: Forbidden"
    return f"error: the server answered HTTP {status} {reason}".strip()


def server_error(status: int, reason: str, body: Any) -> str:
    """`Error from server (Reason): message` from an API error's Status body, else `HTTP 403 Forbidden`."""
    message = ""
    if isinstance(body, bytes | str):
        try:
            decoded = json.loads(body)
        except ValueError:
            decoded = None
        if isinstance(decoded, dict) and isinstance(decoded.get("message"), str):
            message = str(decoded["message"])
            reason = str(decoded.get("reason") or reason)
    if message:
        return f"Error from server ({reason or status}): {message}"
    return f"HTTP {status} {reason}".strip()


def _tail(words: str) -> str:
    """The innermost reason of a urllib3 message: the text after the last `: ` inside its parentheses."""
    inner: list[str] = re.findall(r"\[Errno -?\d+\] ([^\"')]+)", words)
    if inner:
        return inner[-1].strip()
    return words.splitlines()[0][:200] if words else "no answer"
