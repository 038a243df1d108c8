"""ConfigMap: k8s.io/kubernetes pkg/apis/core/validation/validation.go `ValidateConfigMap` (keys, 1 MiB of data),
and binaryData as encoding/json decodes it into []byte (standard base64, padded) before any validation."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code
from mxjob_gitops.compiler.rules import names
from mxjob_gitops.compiler.rules.kubevalidate.report import (
    Found,
    as_dict,
    check_name,
    invalid,
    too_long,
)

K = Code.K8S_CONFIGMAP
MAX_CONFIGMAP = 1024 * 1024  # core.MaxSecretSize, used for ConfigMaps too


def check_configmap(found: Found, obj: dict[str, Any]) -> None:
    total = 0
    keys: set[str] = set()
    for field in ("data", "binaryData"):
        for key, value in as_dict(obj.get(field)).items():
            check_name(found, K, (field, key), key, names.config_key)
            if key in keys:
                invalid(found, K, (field, key), key, "duplicate of key present in data")
            keys.add(key)
            if isinstance(value, str) and field == "binaryData":
                try:
                    total += len(base64.b64decode(value, validate=True))
                except (binascii.Error, ValueError) as exc:
                    invalid(found, K, (field, key), value[:40], f"illegal base64 data: {exc}")
            elif isinstance(value, str):
                total += len(value.encode())
    if total > MAX_CONFIGMAP:
        too_long(found, K, (), MAX_CONFIGMAP)
