"""The one module that imports the official `kubernetes` client: connect, discover, get and list as plain dicts."""

from __future__ import annotations

from typing import Any


class ClusterError(Exception):
    """The cluster could not be reached or answered with an error; the message says which."""


class Cluster:
    """A small, dict-in dict-out view of the API, resolved through discovery (no hard-coded plurals)."""

    def __init__(self, api_client: Any) -> None:
        from kubernetes.dynamic import DynamicClient

        try:
            self._dynamic = DynamicClient(api_client)
        except Exception as exc:
            raise ClusterError(f"cannot reach the Kubernetes API: {_reason(exc)}") from exc

    @classmethod
    def connect(cls, kubeconfig: str | None = None, context: str | None = None) -> Cluster:
        """kubeconfig (flag, KUBECONFIG, ~/.kube/config), else the in-cluster service account."""
        from kubernetes import client, config
        from kubernetes.config.config_exception import ConfigException

        try:
            api_client = config.new_client_from_config(config_file=kubeconfig, context=context)
        except (ConfigException, FileNotFoundError, TypeError) as exc:
            if kubeconfig or context:
                raise ClusterError(f"kubeconfig: {exc}") from exc
            try:
                config.load_incluster_config()
            except ConfigException as inner:
                raise ClusterError("no kubeconfig and not running in a cluster") from inner
            api_client = client.ApiClient()
        return cls(api_client)

    def _resource(self, api_version: str, kind: str) -> Any | None:
        from kubernetes.dynamic.exceptions import ResourceNotFoundError

        try:
            return self._dynamic.resources.get(api_version=api_version, kind=kind)
        except ResourceNotFoundError:
            return None

    def get(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        """The live object, or None when it (or its kind) does not exist."""
        from kubernetes.dynamic.exceptions import NotFoundError

        resource = self._resource(api_version, kind)
        if resource is None:
            return None
        try:
            found = resource.get(name=name, namespace=namespace or None)
        except NotFoundError:
            return None
        except Exception as exc:
            raise ClusterError(f"get {kind} {namespace}/{name}: {_reason(exc)}") from exc
        result: dict[str, Any] = found.to_dict()
        return result

    def list(self, api_version: str, kind: str, namespace: str | None, label_selector: str) -> list[dict[str, Any]]:
        resource = self._resource(api_version, kind)
        if resource is None:
            return []
        try:
            found = resource.get(namespace=namespace or None, label_selector=label_selector)
        except Exception as exc:
            raise ClusterError(f"list {kind}: {_reason(exc)}") from exc
        items: list[dict[str, Any]] = found.to_dict().get("items") or []
        for item in items:
            item.setdefault("apiVersion", api_version)
            item.setdefault("kind", kind)
        return items


def _reason(exc: Exception) -> str:
    status = getattr(exc, "status", None)
    reason = getattr(exc, "reason", None)
    if status:
        return f"HTTP {status} {reason or ''}".strip()
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
