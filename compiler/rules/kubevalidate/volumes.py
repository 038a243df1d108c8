"""Pod volumes: k8s.io/kubernetes pkg/apis/core/validation/validation.go `ValidateVolumes` and
`validateVolumeSource` with the per-source rules (`validateHostPathVolumeSource`, `validateGitRepoVolumeSource`,
`validateSecretVolumeSource`, `validateConfigMapVolumeSource`, `validateKeyToPath`, `validateNFSVolumeSource`,
`validatePersistentClaimVolumeSource`, `validateDownwardAPIVolumeSource`, `validateProjectedVolumeSource`,
`validateCSIVolumeSource` / `ValidateCSIDriverName`, `validateISCSIVolumeSource`).

Image volumes (KEP 4639), as the 1.36 server takes them: `validateImageVolumeSource`
(https://github.com/kubernetes/kubernetes/blob/v1.36.0/pkg/apis/core/validation/validation.go) wants a
`reference` and a known `pullPolicy` (an empty one is defaulted from the reference's tag, pkg/apis/core/v1/
defaults.go `SetDefaults_ImageVolumeSource`). The ImageVolume gate is alpha (off) in 1.31 and 1.32, beta and still
off in 1.33 and 1.34, on by default from 1.35 (GA in 1.36): while it is off, the server removes every image
volume and the mounts naming one before validating (pkg/api/pod/util.go `dropImageVolumes`), and before 1.31 the
field is unknown, which decoding drops (the volume then defaults to an emptyDir)."""

from __future__ import annotations

import re
from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, JsonPath
from mxjob_gitops.compiler.rules import names
from mxjob_gitops.compiler.rules.kubevalidate.claims import check_ephemeral
from mxjob_gitops.compiler.rules.kubevalidate.env import VOLUME_FIELDS, check_field_selector, check_resource_selector
from mxjob_gitops.compiler.rules.kubevalidate.mounts import backsteps, descending, non_reserved
from mxjob_gitops.compiler.rules.kubevalidate.report import (
    Found,
    as_dict,
    as_list,
    check_name,
    duplicate,
    forbidden,
    invalid,
    is_int,
    required,
    since,
    too_long,
    unsupported,
)
from mxjob_gitops.compiler.rules.kubevalidate.resources import quantity

V = Code.K8S_VOLUME
VOLUME_SOURCES = (
    "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs", "iscsi",
    "glusterfs", "persistentVolumeClaim", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "downwardAPI", "fc",
    "azureFile", "configMap", "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "projected",
    "portworxVolume", "scaleIO", "storageos", "csi", "ephemeral", "image",
)  # fmt: skip
HOST_PATH_TYPES = ("", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket")
PROJECTIONS = ("secret", "configMap", "downwardAPI", "serviceAccountToken", "clusterTrustBundle", "podCertificate")
_MODE = "must be a number between 0 and 0777 (octal), both inclusive"
_IQN = re.compile(r"iqn\.\d{4}-\d{2}\.[A-Za-z0-9.-]+(:[^,;*&$|\s]+)?")
_EUI = re.compile(r"eui\.[A-Za-z0-9]{16}")
_NAA = re.compile(r"naa\.[A-Za-z0-9]{32}")


# Sources behind a feature gate that was off before a release: the server drops the field before validating
# (pkg/api/pod/util.go `dropDisabledFields`; GenericEphemeralVolume was alpha and off in 1.19 and 1.20, beta and on
# in 1.21), after decoding defaulted an empty source to emptyDir, so a volume whose only source it was has none
# ("must specify a volume type", `validateVolumeSource`).
GATED_SOURCES = {"ephemeral": (1, 21)}
IMAGE_KNOWN, IMAGE_ON = (1, 31), (1, 35)  # the image source: a field from 1.31, its gate on from 1.35
PULL_POLICIES = ("Always", "IfNotPresent", "Never")


def without_dropped_image_volumes(spec: dict[str, Any], version: str | None) -> dict[str, Any]:
    """The pod spec as a server with the ImageVolume gate off validates it (the same object when nothing goes)."""
    if since(version, IMAGE_ON) or not since(version, IMAGE_KNOWN):
        return spec
    volumes = as_list(spec.get("volumes"))
    gone = {as_dict(v).get("name") for v in volumes if as_dict(v).get("image") is not None}
    if not gone:
        return spec
    kept = dict(spec)
    kept["volumes"] = [v for v in volumes if as_dict(v).get("image") is None]
    for kind in ("initContainers", "containers", "ephemeralContainers"):
        if isinstance(spec.get(kind), list):
            kept[kind] = [_without_mounts(container, gone) for container in spec[kind]]
    return kept


def _without_mounts(container: Any, gone: set[Any]) -> Any:
    mounts = as_dict(container).get("volumeMounts")
    if not isinstance(mounts, list):
        return container
    return {**container, "volumeMounts": [m for m in mounts if as_dict(m).get("name") not in gone]}


def check_volumes(found: Found, volumes: Any, path: JsonPath, version: str | None = None) -> dict[str, dict[str, Any]]:
    """DNS-1123 label names, unique, exactly one source, each source's own rules; returns the volumes by name."""
    dropped = {source for source, release in GATED_SOURCES.items() if not since(version, release)}
    unknown = set() if since(version, IMAGE_KNOWN) else {"image"}
    seen: dict[str, dict[str, Any]] = {}
    for index, volume in enumerate(as_list(volumes)):
        volume, at = as_dict(volume), (*path, index)
        name = volume.get("name")
        if not name:
            required(found, V, (*at, "name"))
        elif isinstance(name, str):
            check_name(found, V, (*at, "name"), name, names.dns1123_label)
            if name in seen:
                duplicate(found, V, (*at, "name"), name)
            seen[name] = volume
        sources = [
            key for key in VOLUME_SOURCES if volume.get(key) is not None and key not in dropped and key not in unknown
        ]
        # No source at all is defaulted to emptyDir (pkg/apis/core/v1/defaults.go SetDefaults_Volume).
        if not sources and any(volume.get(key) is not None for key in dropped):
            required(found, V, at, "must specify a volume type")
        if len(sources) > 1:
            invalid(found, V, (*at, sources[1]), "", "may not specify more than 1 volume type")
        elif sources:
            _source(found, sources[0], as_dict(volume[sources[0]]), (*at, sources[0]), version)
        if sources == ["ephemeral"]:
            check_ephemeral(found, as_dict(volume["ephemeral"]), (*at, "ephemeral"))
    return seen


def _source(found: Found, kind: str, source: dict[str, Any], at: JsonPath, version: str | None = None) -> None:
    if kind == "emptyDir":
        amount = quantity(found, (*at, "sizeLimit"), source.get("sizeLimit"))
        if amount is not None and amount < 0:
            forbidden(found, V, (*at, "sizeLimit"), "SizeLimit field must be a valid resource quantity")
    elif kind == "hostPath":
        _path(found, source.get("path"), (*at, "path"), backsteps)
        if source.get("type", "") not in HOST_PATH_TYPES:
            unsupported(found, V, (*at, "type"), source.get("type"), HOST_PATH_TYPES)
    elif kind == "gitRepo":
        if not source.get("repository"):
            required(found, V, (*at, "repository"))
        directory = source.get("directory")
        if isinstance(directory, str) and directory and descending(directory):
            invalid(found, V, (*at, "directory"), directory, descending(directory))
    elif kind in ("secret", "configMap"):
        key = "secretName" if kind == "secret" else "name"
        if not source.get(key):
            required(found, V, (*at, key))
        _mode(found, source.get("defaultMode"), (*at, "defaultMode"))
        _items(found, source.get("items"), (*at, "items"))
    elif kind == "nfs":
        if not source.get("server"):
            required(found, V, (*at, "server"))
        where = source.get("path")
        if not where:
            required(found, V, (*at, "path"))
        elif isinstance(where, str) and not where.startswith("/"):
            invalid(found, V, (*at, "path"), where, "must be an absolute path")
    elif kind == "persistentVolumeClaim":
        if not source.get("claimName"):
            required(found, V, (*at, "claimName"))
    elif kind == "downwardAPI":
        _mode(found, source.get("defaultMode"), (*at, "defaultMode"))
        _downward_items(found, source.get("items"), at)
    elif kind == "projected":
        _projected(found, source, at, version)
    elif kind == "csi":
        _csi_driver(found, source.get("driver"), (*at, "driver"))
        secret = source.get("nodePublishSecretRef")
        if isinstance(secret, dict):  # validateCSIVolumeSource: a named, valid Secret
            if not secret.get("name"):
                required(found, V, (*at, "nodePublishSecretRef", "name"))
            else:
                check_name(found, V, (*at, "nodePublishSecretRef", "name"), secret["name"], names.dns1123_subdomain)
    elif kind == "iscsi":
        _iscsi(found, source, at)
    elif kind == "image":
        if not source.get("reference"):
            required(found, V, (*at, "reference"))
        policy = source.get("pullPolicy")
        if isinstance(policy, str) and policy and policy not in PULL_POLICIES:
            unsupported(found, V, (*at, "pullPolicy"), policy, PULL_POLICIES)


def _path(found: Found, value: Any, path: JsonPath, rule: Any) -> None:
    if not value:
        required(found, V, path)
    elif isinstance(value, str) and rule(value):
        invalid(found, V, path, value, rule(value))


def _mode(found: Found, mode: Any, path: JsonPath) -> None:
    if is_int(mode) and not 0 <= mode <= 0o777:
        invalid(found, V, path, mode, _MODE)


def _items(found: Found, items: Any, path: JsonPath) -> list[str]:
    """validateKeyToPath: a key, a local non-reserved path, a file mode; returns the paths."""
    paths: list[str] = []
    for index, item in enumerate(as_list(items)):
        item, at = as_dict(item), (*path, index)
        if not item.get("key"):
            required(found, V, (*at, "key"))
        _path(found, item.get("path"), (*at, "path"), non_reserved)
        _mode(found, item.get("mode"), (*at, "mode"))
        if isinstance(item.get("path"), str):
            paths.append(item["path"])
    return paths


def _downward_items(found: Found, items: Any, at: JsonPath) -> list[str]:
    """validateDownwardAPIVolumeFile: a path, and exactly one of fieldRef (metadata only) or resourceFieldRef."""
    paths: list[str] = []
    for index, item in enumerate(as_list(items)):
        item, where = as_dict(item), (*at, "items", index)
        _path(found, item.get("path"), (*where, "path"), non_reserved)
        _mode(found, item.get("mode"), (*where, "mode"))
        field, resource = item.get("fieldRef"), item.get("resourceFieldRef")
        if field is not None and resource is not None:
            invalid(found, V, where, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously")
        elif field is not None:
            check_field_selector(found, field, (*where, "fieldRef"), VOLUME_FIELDS, None)
        elif resource is not None:
            check_resource_selector(found, resource, (*at, "resourceFieldRef"), volume=True)
        else:
            required(found, V, where, "one of fieldRef and resourceFieldRef is required")
        if isinstance(item.get("path"), str):
            paths.append(item["path"])
    return paths


def _projected(found: Found, source: dict[str, Any], at: JsonPath, version: str | None) -> None:
    """validateProjectedVolumeSource: one type per source, no path twice, tokens valid for 10 minutes at least."""
    _mode(found, source.get("defaultMode"), (*at, "defaultMode"))
    seen: set[str] = set()
    for index, projection in enumerate(as_list(source.get("sources"))):
        projection, where = as_dict(projection), (*at, "sources", index)
        kinds = [key for key in PROJECTIONS if projection.get(key) is not None]
        if len(kinds) > 1:
            forbidden(found, V, where, "may not specify more than 1 volume type per source")
        for kind in kinds:
            item, item_at = as_dict(projection[kind]), (*where, kind)
            if kind in ("secret", "configMap"):
                if not item.get("name"):
                    required(found, V, (*item_at, "name"))
                paths = _items(found, item.get("items"), (*item_at, "items"))
            elif kind == "downwardAPI":
                paths = _downward_items(found, item.get("items"), item_at)
            elif kind == "serviceAccountToken":
                paths = [item["path"]] if isinstance(item.get("path"), str) else []
                _token(found, item, item_at, version)
            else:
                paths = []
            for projected_path in paths:
                if projected_path in seen:
                    invalid(found, V, at, item.get("name", ""), "conflicting duplicate paths")
                seen.add(projected_path)


def _token(found: Found, token: dict[str, Any], at: JsonPath, version: str | None) -> None:
    seconds = token.get("expirationSeconds")
    if is_int(seconds) and seconds < 600:
        invalid(found, V, (*at, "expirationSeconds"), seconds, "may not specify a duration less than 10 minutes")
    elif is_int(seconds) and seconds > 1 << 32:
        invalid(found, V, (*at, "expirationSeconds"), seconds, "may not specify a duration larger than 2^32 seconds")
    token_path = token.get("path")
    if not token_path:
        required(found, V, (*at, "path"))
    # Checked as item paths are from 1.30 (kubernetes#121731, `ValidateLocalNonReservedPath`): v1.20.2 takes "..token".
    elif isinstance(token_path, str) and since(version, (1, 30)) and non_reserved(token_path):
        invalid(found, V, (*at, "path"), token_path, non_reserved(token_path))


def _csi_driver(found: Found, driver: Any, path: JsonPath) -> None:
    """ValidateCSIDriverName: set, at most 63 characters, a DNS-1123 subdomain once lower-cased."""
    if not driver:
        required(found, V, path)
    if not isinstance(driver, str):
        return
    if len(driver) > 63:
        too_long(found, V, path, 63)
    check_name(found, V, path, driver.lower(), names.dns1123_subdomain)


def _iscsi(found: Found, source: dict[str, Any], at: JsonPath) -> None:
    if not source.get("targetPortal"):
        required(found, V, (*at, "targetPortal"))
    iqn = source.get("iqn")
    if not iqn:
        required(found, V, (*at, "iqn"))
    elif isinstance(iqn, str):
        pattern = {"iqn": _IQN, "eui": _EUI, "naa": _NAA}.get(iqn[:3])
        if pattern is None:
            invalid(found, V, (*at, "iqn"), iqn, "must be valid format starting with iqn, eui, or naa")
        elif not pattern.fullmatch(iqn):
            invalid(found, V, (*at, "iqn"), iqn, "must be valid format")
    lun = source.get("lun")
    if is_int(lun) and not 0 <= lun <= 255:
        invalid(found, V, (*at, "lun"), lun, "must be between 0 and 255, inclusive")
