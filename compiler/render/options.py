"""RenderOptions and its one record codec (a map of strings): CLI flags, KRM functionConfig, the ConfigMap record.

A record is what a ConfigMap's `data` can hold: string keys, string values. The same field parsers read the
command line (compiler.cli.options), a KRM functionConfig (compiler.cli.krm) and the `render` record each
rendered job's ConfigMap keeps for the reconciler (`RenderOptions.from_config_map`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from mxjob_gitops.compiler.base.asciinum import whole
from mxjob_gitops.compiler.base.jsonbound import load_record
from mxjob_gitops.compiler.base.limits import DEFAULT_MAX_PODS
from mxjob_gitops.compiler.render.gang.plan import GangScheduler
from mxjob_gitops.compiler.rules.names import dns1123_label, dns1123_subdomain
from mxjob_gitops.compiler.spec import constants as c
from mxjob_gitops.compiler.spec.targets import Target

Record = dict[str, str]
_FALSE = ("false", "no", "0")


@dataclass(frozen=True, slots=True)
class RenderOptions:
    """How to render: everything outside the job document that changes the manifests."""

    namespace: str | None = None
    include_job: bool = True
    target: Target = Target.PLAIN
    gang_scheduler: GangScheduler | None = None
    # PriorityClass values given on the command line; they win over PriorityClass objects in the input.
    priority_classes: tuple[tuple[str, int], ...] = ()
    # The Kubernetes minor version ("1.36") whose API shapes to render where they differ (None: the newest).
    kubernetes_version: str | None = None
    # Pass an MXJob through unexpanded when its ConfigMap is in the input too (already-rendered output).
    keep_rendered: bool = False
    # Pods one job may have (compiler.limits); recorded when raised, so the reconciler renders the job too.
    max_pods: int = DEFAULT_MAX_PODS
    # What runs the job: "pods" (our pods and reconciler) or "jobset" (one JobSet; compiler.jobset).
    engine: str = "pods"
    # Exit-code classes over the built-in table (`137=permanent,3=retryable`), for the jobset engine.
    exit_codes: str = ""

    def to_record(self) -> Record:
        """The options as a record: `target` always, every other field only when it is not the default."""
        record: Record = {}
        for spec in _FIELDS:
            value = getattr(self, spec.attribute)
            if spec.key == "target" or value != spec.default:
                record[spec.key] = spec.write(value)
        return record

    @classmethod
    def from_record(cls, record: Mapping[str, Any], base: RenderOptions | None = None) -> RenderOptions:
        """The fields a record holds, over `base` (the defaults when None); unknown keys are ignored.

        Values are read as text (a YAML functionConfig may say `job: false`). ValueError names the field.
        """
        changes: dict[str, Any] = {}
        for spec in _FIELDS:
            if spec.key in record:
                try:
                    changes[spec.attribute] = parse_field(spec.key, str(record[spec.key]))
                except ValueError as exc:
                    raise ValueError(f"{spec.key}: {exc}") from None
        return dataclasses.replace(base or cls(), **changes)

    @classmethod
    def from_config_map(cls, config_map: Mapping[str, Any], base: RenderOptions | None = None) -> RenderOptions:
        """The options recorded in a rendered job's ConfigMap (see compiler.expand.render_config_map).

        No record (an older rendering) gives `base`; a record that cannot be read raises ValueError, since a
        guess would render pods that differ from Git's.
        """
        data = config_map.get("data")
        text = data.get(c.CONFIG_JOB_KEY, "{}") if isinstance(data, Mapping) else "{}"
        if not isinstance(text, str):
            raise ValueError(f"not JSON text but {type(text).__name__}")
        info = load_record(text)
        record = info.get(c.CONFIG_RENDER_KEY, {}) if isinstance(info, dict) else None
        if not isinstance(record, dict):
            raise ValueError(f"{c.CONFIG_RENDER_KEY} must be an object, not {repr(record)[:80]}")
        return cls.from_record(record, base)


@dataclass(frozen=True, slots=True)
class _Field:
    key: str
    attribute: str
    default: Any
    read: Callable[[str], Any]
    write: Callable[[Any], str]


def priority_pairs(values: Iterable[str]) -> tuple[tuple[str, int], ...]:
    """`NAME=VALUE` PriorityClass settings; ValueError names the bad one."""
    parsed: list[tuple[str, int]] = []
    for value in values:
        name, _, number = (part.strip() for part in value.partition("="))
        magnitude = whole(number.removeprefix("-"))  # a PriorityClass value may be negative
        if magnitude is None:
            raise ValueError(f"{value!r}: use NAME=VALUE, VALUE an integer")
        parsed.append((name, -magnitude if number.startswith("-") else magnitude))
        if not name:
            raise ValueError(f"{value!r}: use NAME=VALUE")
        problem = dns1123_subdomain(name)  # the name of a PriorityClass, as pods' priorityClassName give it
        if problem:
            raise ValueError(f"{value!r}: {name!r} is not a PriorityClass name: it {problem}")
    return tuple(parsed)


def _namespace(text: str) -> str | None:
    """A namespace is a DNS-1123 label, wherever it comes from (flag, functionConfig, record)."""
    problem = dns1123_label(text) if text else ""
    if problem:
        raise ValueError(f"{text[:80]!r} is not a namespace name: it {problem}")
    return text or None


def _max_pods(text: str) -> int:
    value = whole(text)
    if value is None:
        raise ValueError(f"{text[:80]!r}: use a whole number of pods (digits 0-9)")
    if value < 1:
        raise ValueError(f"{value}: use at least 1")
    return value


def _target(text: str) -> Target:
    try:
        return Target(text)
    except ValueError:
        raise ValueError(f"{text!r}: use {', '.join(t.value for t in Target)}") from None


ENGINES = ("pods", "jobset")


def _choice(text: str, choices: tuple[str, ...]) -> str:
    if text not in choices:
        raise ValueError(f"{text!r}: use {' or '.join(choices)}")
    return text


def _exit_codes(text: str) -> str:
    from mxjob_gitops.compiler.spec.exitcodes import parse_overrides

    parse_overrides(text)
    return text


def kubernetes_minor(text: str) -> str:
    """'1.36', '1.36.2' or 'v1.36' → '1.36'; ValueError for anything else."""
    match = re.fullmatch(r"v?([0-9]+)\.([0-9]+)(?:\.[0-9]+)?", text.strip())  # \d would match other scripts' digits
    if match is None:
        raise ValueError(f"{text!r}: use a Kubernetes version like 1.37")
    return f"{int(match.group(1))}.{int(match.group(2))}"


_FIELDS = (
    _Field("target", "target", Target.PLAIN, _target, str),
    _Field("namespace", "namespace", None, _namespace, str),
    _Field("gangScheduler", "gang_scheduler", None, lambda text: GangScheduler.parse(text) if text else None, str),
    _Field(
        "priorityClasses",
        "priority_classes",
        (),
        lambda text: priority_pairs(p for p in text.split(",") if p.strip()),
        lambda pairs: ",".join(f"{name}={value}" for name, value in pairs),
    ),
    _Field("kubernetesVersion", "kubernetes_version", None, lambda text: kubernetes_minor(text) if text else None, str),
    _Field("job", "include_job", True, lambda text: text.lower() not in _FALSE, lambda flag: str(flag).lower()),
    _Field(
        "keepRendered", "keep_rendered", False, lambda text: text.lower() not in _FALSE, lambda flag: str(flag).lower()
    ),
    _Field("maxPods", "max_pods", DEFAULT_MAX_PODS, _max_pods, str),
    _Field("engine", "engine", "pods", lambda text: _choice(text, ENGINES), str),
    _Field("exitCodes", "exit_codes", "", _exit_codes, str),
)
_BY_KEY = {spec.key: spec for spec in _FIELDS}
# The keys a record (a functionConfig's data, a ConfigMap record) may hold.
RECORD_KEYS = tuple(_BY_KEY)


def parse_field(key: str, text: str) -> Any:
    """One record field's value from its text (a command-line flag, a functionConfig entry); ValueError says why."""
    return _BY_KEY[key].read(text)
