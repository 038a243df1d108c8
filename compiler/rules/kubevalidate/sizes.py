"""How large an object the API server and its etcd take: the request body limit of k8s.io/apiserver
(pkg/server/config.go, `MaxRequestBodyBytes`, 3 MiB: a larger body is answered 413) and etcd's default
`--max-request-bytes` (go.etcd.io/etcd server/embed/config.go, `DefaultMaxRequestBytes`, 1.5 MiB: "etcdserver:
request is too large"). Called by compiler.judge on every object `render` writes.

Custom resources are stored as the JSON the server received, so their JSON size is what etcd gets. Core objects
are stored as protobuf, whose size is close to the bytes of the strings they hold plus a few bytes a field: the
sum of the strings' bytes is counted for them, a lower bound (no refusal the server would not make).
"""

from __future__ import annotations

import json
from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code
from mxjob_gitops.compiler.rules.kubevalidate.report import Found, invalid

MAX_REQUEST_BODY = 3 * 1024 * 1024
ETCD_MAX_REQUEST = 1536 * 1024
K = Code.K8S_SIZE


def json_bytes(obj: Any) -> int:
    """The object's size as compact JSON (what kubectl and the GitOps controllers send): orjson's text, which is
    json.dumps(ensure_ascii=False, separators=(",", ":")) byte for byte for rendered objects, at a tenth of its time
    (json.dumps where orjson cannot write the value)."""
    import orjson

    try:
        return len(orjson.dumps(obj))
    except (TypeError, ValueError):  # an integer beyond 64 bits, a lone surrogate
        return len(json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass"))


def string_bytes(value: Any) -> int:
    """The bytes of every key and string of a value: a lower bound of its protobuf size."""
    if isinstance(value, str):
        return len(value.encode())
    if isinstance(value, dict):
        return sum(string_bytes(k) + string_bytes(v) for k, v in value.items())
    if isinstance(value, list):
        return sum(string_bytes(item) for item in value)
    return 0


def check_size(found: Found, obj: dict[str, Any], core: bool) -> None:
    """The request limit (every kind, as JSON) and etcd's (the stored form: protobuf for core kinds)."""
    sent = json_bytes(obj)
    if sent > MAX_REQUEST_BODY:
        detail = f"the object is {sent} bytes of JSON; the API server refuses a request over {MAX_REQUEST_BODY} (413)"
        invalid(found, K, (), f"{sent} bytes", detail)
        return
    if sent <= ETCD_MAX_REQUEST:  # protobuf is never larger than JSON for these objects: nothing more to count
        return
    stored = string_bytes(obj) if core else sent
    if stored > ETCD_MAX_REQUEST:
        detail = f"the object is at least {stored} bytes as stored; etcd refuses a request over {ETCD_MAX_REQUEST}"
        invalid(found, K, (), f"{stored} bytes", detail + " (etcdserver: request is too large)")
