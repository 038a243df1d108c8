"""The one module that imports the official `kubernetes` client: connect, discover, get and list as plain dicts."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, TypeVar

from mxjob_gitops.compiler.base.asciinum import whole
from mxjob_gitops.compiler.spec import constants as c
from mxjob_gitops.reconciler import access
from mxjob_gitops.reconciler.vocabulary import WatchEventType

FIELD_MANAGER = "mxjob-reconciler"
USER_AGENT = "mxjob-reconciler"
TRANSIENT_STATUSES = frozenset({429, 500, 502, 503, 504})
WATCH_READ_GRACE_SECONDS = 10.0  # a watch silent this long past its server-side timeout has stalled
# Every other request: connect and per-read timeouts (s). Without them a server that accepts a request and never
# answers holds a worker (or a whole `--once` pass) forever; with them the job is requeued like on a 503.
REQUEST_TIMEOUT_SECONDS = (10.0, 30.0)
# Lists are read in pages of this many items, as client-go's pager does (k8s.io/client-go tools/pager/pager.go:
# defaultPageSize, ListPager.List follows `continue` until it is empty): only one page's raw JSON is in memory
# at a time, and each item is trimmed (`keep`) before the next page is read.
LIST_PAGE_SIZE = 500
T = TypeVar("T")


def _identity(obj: dict[str, Any]) -> dict[str, Any]:
    return obj


def _body(response: Any) -> Any:
    """The decoded JSON of a raw response (`serialize=False`): no ResourceInstance wrapper, no to_dict()."""
    data = response.data
    return json.loads(data) if data else None


class ClusterError(Exception):
    """The cluster could not be reached or answered with an error; the message says which."""

    retry_after: float | None = None


class Cluster:
    """A small, dict-in dict-out view of the API, resolved through discovery (no hard-coded plurals)."""

    def __init__(self, api_client: Any) -> None:
        from kubernetes.dynamic import DynamicClient

        try:
            self._dynamic = DynamicClient(api_client)
        except Exception as exc:
            status = getattr(exc, "status", None)
            server = str(api_client.configuration.host)
            if status:
                raise ClusterError(access.refused_by_server(status, str(getattr(exc, "reason", "") or ""))) from exc
            raise ClusterError(access.unreachable(server, str(exc))) from exc

    @classmethod
    def connect(
        cls,
        kubeconfig: str | None = None,
        context: str | None = None,
        user_agent: str = USER_AGENT,
        request_timeout: tuple[float, float] = REQUEST_TIMEOUT_SECONDS,
        connections: int = 0,
    ) -> Cluster:
        """kubeconfig (flag, KUBECONFIG, ~/.kube/config), else the in-cluster service account. `connections`: how
        many requests may be open at once (workers and watches); 0 keeps the client's default."""
        from kubernetes import client, config
        from kubernetes.config.config_exception import ConfigException

        home = Path.home()
        try:
            api_client = config.new_client_from_config(config_file=kubeconfig, context=context)
        except (ConfigException, FileNotFoundError, TypeError) as exc:
            if kubeconfig or context or access.default_kubeconfig(home).is_file():
                raise ClusterError(access.kubeconfig_problem(kubeconfig, context, home, str(exc))) from exc
            try:
                config.load_incluster_config()
            except ConfigException as inner:
                raise ClusterError(access.nothing_found(os.environ, home)) from inner
            api_client = client.ApiClient()
        api_client.user_agent = user_agent
        _no_hidden_retries(api_client)
        if connections:
            _pool_size(api_client, connections)
        _default_timeout(api_client, request_timeout)
        _throttled_credential_refresh(api_client.configuration)
        return cls(api_client)

    def count_requests(self, count: Callable[[str], None]) -> None:
        """Call `count(verb)` for every request sent (verb: the HTTP method, or WATCH for a watch)."""
        rest = self._dynamic.client.rest_client
        request = rest.request

        def counted(method: str, url: str, *args: Any, **kwargs: Any) -> Any:
            count("WATCH" if "watch=true" in url.partition("?")[2].lower() else method)
            return request(method, url, *args, **kwargs)

        rest.request = counted

    def _resource(self, api_version: str, kind: str) -> Any | None:
        from kubernetes.dynamic.exceptions import ResourceNotFoundError

        try:
            return self._dynamic.resources.get(api_version=api_version, kind=kind)
        except ResourceNotFoundError:
            return None
        except Exception as exc:
            # Discovery is cached in a file per server address (kubernetes/dynamic/discovery.py Discoverer): a
            # kind missing from that cache is looked up again, and an unreachable server then fails here.
            _raise(exc, f"discover {api_version} {kind}")

    def require_mxjobs(self) -> None:
        """Stop (exit 2) when the cluster does not serve the MXJob CRD: listing its jobs would find none, and a
        pass over nothing would report every job reconciled."""
        if self._resource(c.API_VERSION, c.KIND) is not None:
            # Discovery is cached in a file per server address, which may predate the CRD's removal (or be
            # another server's at the same address): the answer that lets the command go on is asked afresh.
            try:
                self._dynamic.resources.invalidate_cache()
            except Exception as exc:
                _raise(exc, "discover the served kinds")
        if self._resource(c.API_VERSION, c.KIND) is None:
            raise ClusterError(
                f"the cluster does not serve {c.API_VERSION} {c.KIND}: install the CRD "
                "(kubectl apply --server-side -f schemas/crd/kubeflow.org_mxjobs.yaml, docs/crd.md)"
            )

    def require(self, api_version: str, kind: str) -> Any:
        resource = self._resource(api_version, kind)
        if resource is None:
            raise ClusterError(f"the cluster does not serve {api_version} {kind}")
        return resource

    def list_with_version(
        self,
        api_version: str,
        kind: str,
        namespace: str | None,
        label_selector: str,
        keep: Callable[[dict[str, Any]], dict[str, Any]] = _identity,
    ) -> tuple[list[dict[str, Any]], str]:
        """Items (each passed through `keep` as its page arrives) and the list's resourceVersion, to watch from."""
        return self.list_kept(api_version, kind, namespace, label_selector, keep)

    def list_kept(
        self,
        api_version: str,
        kind: str,
        namespace: str | None,
        label_selector: str,
        keep: Callable[[dict[str, Any]], T],
    ) -> tuple[list[T], str]:
        """list_with_version, where `keep` may turn each item into anything (the reconciler's cache entries)."""
        resource = self.require(api_version, kind)
        try:
            return self._pages(resource, api_version, kind, namespace, label_selector, keep, LIST_PAGE_SIZE)
        except Gone:
            # A continue token that expired mid-list: list everything at once, as client-go's ListPager does
            # when FullListIfExpired is set (its default).
            return self._pages(resource, api_version, kind, namespace, label_selector, keep, None)

    def _pages(
        self,
        resource: Any,
        api_version: str,
        kind: str,
        namespace: str | None,
        label_selector: str,
        keep: Callable[[dict[str, Any]], T],
        limit: int | None,
    ) -> tuple[list[T], str]:
        items: list[T] = []
        token: str | None = None
        while True:
            try:
                response = resource.get(
                    namespace=namespace or None,
                    label_selector=label_selector,
                    limit=limit,
                    _continue=token,
                    serialize=False,
                )
                page = _body(response)
            except Exception as exc:
                _raise(exc, f"list {kind}")
            for item in page.get("items") or []:
                item.setdefault("apiVersion", api_version)
                item.setdefault("kind", kind)
                items.append(keep(item))
            metadata = page.get("metadata") or {}
            token = metadata.get("continue") or None
            if token is None:
                return items, str(metadata.get("resourceVersion") or "")

    def watch(
        self,
        api_version: str,
        kind: str,
        namespace: str | None,
        label_selector: str,
        resource_version: str,
        timeout_seconds: int,
        grace: float = WATCH_READ_GRACE_SECONDS,
    ) -> Any:
        """Events as dicts {type, object}; ends when the server ends the stream. A 410 raises Gone; a stream
        silent for longer than the server-side timeout plus a grace (a stalled watch) raises Transient."""
        from kubernetes import watch

        resource = self.require(api_version, kind)
        try:
            for event in watch.Watch().stream(
                resource.get,
                namespace=namespace or None,
                label_selector=label_selector,
                resource_version=resource_version,
                serialize=False,
                timeout_seconds=timeout_seconds,
                allow_watch_bookmarks=True,
                _request_timeout=(10, timeout_seconds + grace),
            ):
                raw = event.get("raw_object") or {}
                if event.get("type") == WatchEventType.ERROR:
                    if raw.get("code") == 410:
                        raise Gone(f"watch {kind}: resource version too old")
                    raise ClusterError(f"watch {kind}: {raw.get('message', 'error')}")
                yield {"type": event.get("type"), "object": raw}
        except ClusterError:
            raise
        except Exception as exc:
            _raise(exc, f"watch {kind}")

    def get(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        """The live object, or None when it (or its kind) does not exist."""
        from kubernetes.dynamic.exceptions import NotFoundError

        resource = self._resource(api_version, kind)
        if resource is None:
            return None
        try:
            result: dict[str, Any] = _body(resource.get(name=name, namespace=namespace or None, serialize=False))
        except NotFoundError:
            return None
        except Exception as exc:
            _raise(exc, f"get {kind} {namespace}/{name}")
        return result

    def list(self, api_version: str, kind: str, namespace: str | None, label_selector: str) -> list[dict[str, Any]]:
        """The items, or none when the cluster does not serve the kind at all."""
        if self._resource(api_version, kind) is None:
            return []
        return self.list_with_version(api_version, kind, namespace, label_selector)[0]


def _no_hidden_retries(api_client: Any) -> None:
    """urllib3 would retry a 429/503 with Retry-After by sleeping in the calling thread (blocking a worker for
    as long as the server asks); we retry by requeueing the job instead, so every answer comes straight back."""
    import urllib3

    pool_manager = api_client.rest_client.pool_manager
    pool_manager.connection_pool_kw["retries"] = urllib3.Retry(
        total=0, respect_retry_after_header=False, raise_on_status=False, raise_on_redirect=False
    )


def _pool_size(api_client: Any, connections: int) -> None:
    """Keep up to `connections` open connections to the server. The client's pool holds cpu_count() * 5 of them
    (kubernetes/client/configuration.py `connection_pool_maxsize`): on 2 cores, 10, fewer than 16 workers and the
    watches use at once. urllib3 then opens a connection beyond the pool for each request that finds none free and
    closes it afterwards (urllib3/connectionpool.py `_put_conn`, "Connection pool is full, discarding connection"):
    a TLS handshake per request, on both sides, in a burst. The pool is made on the first request (discovery),
    after this."""
    api_client.rest_client.pool_manager.connection_pool_kw["maxsize"] = connections


def _default_timeout(api_client: Any, timeout: tuple[float, float]) -> None:
    """Give every request that names no timeout of its own (all but watches) `timeout`. The client passes
    `_request_timeout=None` down as "no timeout" (kubernetes/client/rest.py RESTClientObject.request builds no
    urllib3.Timeout then), which overrides any pool default, so the default is filled in at that one call."""
    rest = api_client.rest_client
    request = rest.request

    def with_timeout(*args: Any, _request_timeout: Any = None, **kwargs: Any) -> Any:
        return request(*args, _request_timeout=_request_timeout or timeout, **kwargs)

    rest.request = with_timeout


CREDENTIAL_REFRESH_SECONDS = 10.0


def _throttled_credential_refresh(configuration: Any) -> None:
    """Run the loader's credential-refresh hook at most every CREDENTIAL_REFRESH_SECONDS instead of before every
    request. The kubeconfig loader's hook (kubernetes/config/kube_config.py KubeConfigLoader._set_config)
    assigns the host again on each call, and each host assignment reads the proxy environment: a quarter of
    a request's CPU. Its tokens are renewed 5 minutes before they expire (EXPIRY_SKEW_PREVENTION_DELAY), the
    in-cluster loader's (incluster_config.py) once a minute, so 10 s never lets an expired token through.
    The hook puts a fresh hook in place each time it runs; that one is wrapped again."""
    hook = configuration.refresh_api_key_hook
    if hook is None:
        return
    last = [float("-inf"), hook]

    def throttled(config: Any) -> None:
        now = time.monotonic()
        if now - last[0] < CREDENTIAL_REFRESH_SECONDS:
            return
        last[0] = now
        last[1](config)
        if config.refresh_api_key_hook is not throttled:
            last[1], config.refresh_api_key_hook = config.refresh_api_key_hook, throttled

    configuration.refresh_api_key_hook = throttled


def context_namespace(kubeconfig: str | None, context: str | None) -> str | None:
    """The namespace of the kubeconfig's (current or named) context, if it sets one."""
    from kubernetes.config.kube_config import list_kube_config_contexts

    try:
        contexts, active = list_kube_config_contexts(config_file=kubeconfig)
    except Exception:
        return None
    chosen = next((x for x in contexts if x.get("name") == context), None) if context else active
    namespace = ((chosen or {}).get("context") or {}).get("namespace")
    return str(namespace) if namespace else None


def _reason(exc: Exception) -> str:
    """An API error as kubectl prints it (`Error from server (Forbidden): <the server's message>`), else the
    first line of what the client said."""
    status = getattr(exc, "status", None)
    reason = getattr(exc, "reason", None)
    if status:
        return access.server_error(status, str(reason or ""), getattr(exc, "body", None))
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


class Conflict(ClusterError):
    """409: the object changed since it was read (optimistic concurrency); re-read and decide again."""


class Gone(ClusterError):
    """410: the resourceVersion is too old to watch from; list again."""


class Transient(ClusterError):
    """429, 500, 502, 503, 504, a reset or timed-out connection: try again later (after `retry_after`)."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def _retry_after(exc: Exception) -> float | None:
    """The server's Retry-After in whole seconds, else None, as client-go reads it (k8s.io/client-go/rest/request.go
    `retryAfterSeconds`: strconv.Atoi of the header). Go's header reader drops the spaces around a value; a sign,
    a fraction, `inf`, `nan` or an HTTP date is no hint here (client-go ignores the last three, and a server's
    wait is never negative)."""
    headers = getattr(exc, "headers", None) or {}
    text = headers.get("Retry-After")
    seconds = whole(text.strip(" \t")) if isinstance(text, str) else None
    return float(seconds) if seconds is not None else None


def _raise(exc: Exception, what: str) -> NoReturn:
    status = getattr(exc, "status", None)
    if status == 409:
        raise Conflict(f"{what}: conflict") from exc
    if status == 410:
        raise Gone(f"{what}: resource version too old") from exc
    if status in TRANSIENT_STATUSES:
        raise Transient(f"{what}: {_reason(exc)}", _retry_after(exc)) from exc
    if status is None and _is_connection_error(exc):
        raise Transient(f"{what}: {_reason(exc)}") from exc
    raise ClusterError(f"{what}: {_reason(exc)}") from exc


def _is_connection_error(exc: BaseException) -> bool:
    import urllib3

    return isinstance(exc, urllib3.exceptions.HTTPError | ConnectionError | TimeoutError | OSError)


class Fenced(ClusterError):
    """This replica does not know that it holds the lease, so it must not write."""


class Writer:
    """Writes through the same client; kept apart from reads so a dry run can simply not have one.

    `fence` is asked before every write: a replica that may have lost the lease (frozen, partitioned)
    raises Fenced instead of writing."""

    def __init__(self, cluster: Cluster, fence: Callable[[], bool] = lambda: True) -> None:
        self.cluster = cluster
        self.fence = fence

    def _check(self) -> None:
        if not self.fence():
            raise Fenced("not writing: this replica does not know that it holds the lease")

    def create(self, obj: dict[str, Any]) -> dict[str, Any]:
        """POST with field manager `mxjob-reconciler`; 409 (AlreadyExists) raises Conflict."""
        self._check()
        resource = self.cluster.require(obj["apiVersion"], obj["kind"])
        namespace = (obj.get("metadata") or {}).get("namespace")
        try:
            created: dict[str, Any] = _body(
                resource.create(body=obj, namespace=namespace, field_manager=FIELD_MANAGER, serialize=False)
            )
        except Exception as exc:
            _raise(exc, f"create {obj['kind']} {obj['metadata'].get('name')}")
        return created

    def delete(self, api_version: str, kind: str, namespace: str, name: str, uid: str | None = None) -> bool:
        """Delete (only the object with that uid, when given); False when it was already gone."""
        self._check()
        from kubernetes.dynamic.exceptions import NotFoundError

        resource = self.cluster.require(api_version, kind)
        body = {"apiVersion": "v1", "kind": "DeleteOptions", "preconditions": {"uid": uid}} if uid else None
        try:
            resource.delete(name=name, namespace=namespace or None, body=body, serialize=False)
        except NotFoundError:
            return False
        except Exception as exc:
            _raise(exc, f"delete {kind} {namespace}/{name}")
        return True

    def replace(self, obj: dict[str, Any], *, status: bool = False) -> dict[str, Any]:
        """PUT the object (or its status subresource) with its resourceVersion: a 409 raises Conflict."""
        self._check()
        resource = self.cluster.require(obj["apiVersion"], obj["kind"])
        metadata = obj["metadata"]
        target = resource.status if status else resource
        try:
            updated: dict[str, Any] = _body(
                target.replace(
                    body=obj, namespace=metadata.get("namespace"), field_manager=FIELD_MANAGER, serialize=False
                )
            )
        except Exception as exc:
            what = "status of" if status else "replace"
            _raise(exc, f"{what} {obj['kind']} {metadata.get('namespace')}/{metadata.get('name')}")
        return updated

    def replace_status(self, obj: dict[str, Any]) -> dict[str, Any]:
        return self.replace(obj, status=True)

    def merge_patch(
        self,
        api_version: str,
        kind: str,
        namespace: str,
        name: str,
        patch: dict[str, Any] | list[dict[str, Any]],
        missing_ok: bool = False,
    ) -> None:
        """A JSON merge patch (a dict), or a JSON patch (a list of operations; a failed `test` raises)."""
        self._check()
        from kubernetes.dynamic.exceptions import NotFoundError

        resource = self.cluster.require(api_version, kind)
        content_type = "application/json-patch+json" if isinstance(patch, list) else "application/merge-patch+json"
        try:
            resource.patch(
                body=patch,
                name=name,
                namespace=namespace or None,
                content_type=content_type,
                field_manager=FIELD_MANAGER,
                serialize=False,
            )
        except NotFoundError as exc:
            if not missing_ok:
                _raise(exc, f"patch {kind} {namespace}/{name}")
        except Exception as exc:
            _raise(exc, f"patch {kind} {namespace}/{name}")
