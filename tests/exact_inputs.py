"""Inputs aimed at the fast paths (compiler/base/exact.py), for tests/test_exact_mode.py to run through the command
line with them on and off: texts that once told the fast reader from the exact one, values that do not fit their
tags, objects near the identity rules' edges, pod specs for the memo, manifests changed one value at a time
for the compiled validator, name lengths at the judge's limits, lines that trap a cut by text, and trees of jobs
edited between a diff's sides. Each was a bespoke equality test's generator; here each is only an input.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

from mxjob_gitops.compiler import RenderOptions, compile_documents
from mxjob_gitops.compiler.read.source import parse_text
from mxjob_gitops.compiler.render.emit import to_yaml
from tests.conftest import JOB_EXAMPLE_FILES, REPO
from tests.helpers import container, job, replica

# --- texts for the readers ----------------------------------------------------------------------------------------

INPUTS = sorted(
    {
        *JOB_EXAMPLE_FILES,
        *(REPO / "tests" / "golden").glob("*/input.yaml"),
        *(REPO / "tests" / "corpus").glob("*.yaml"),
    }
)


@functools.cache
def inputs_and_renderings() -> tuple[tuple[str, str], ...]:
    """Every example, golden and corpus input, and the rendering of each that renders (made once, when asked)."""
    found = []
    for path in INPUTS:
        text = path.read_text(encoding="utf-8")
        found.append((path.name, text))
        parsed = parse_text(text, path.name, fast=False)
        plan = compile_documents(parsed.documents, RenderOptions())
        if plan.ok and not parsed.diagnostics:
            found.append((path.name + " rendered", "".join("---\n" + to_yaml(m) for m in plan.manifests())))
    return tuple(found)


# Texts the fast reader reads (every one of them must be taken by it).
ACCEPTED = [
    "a: 1\nb: '1'\nc: \"0\"\nd: 1.5\ne: -0\nf: 1e3\ng: .5\nh: 1.\ni: true\nj: null\nk:\n",
    "a: [1, '2', {b: c}]\nl:\n- x\n- |\n  literal\n  text\n- >-\n  folded\n  text\n",
    "a: 12:30\nb: '2001-12-14'\nc: 1_0x\nd: 99999999999999999999999\ne: 18446744073709551615\n",
    "f: -9223372036854775809\ng: 1e-400\n",
    "'1': x\n\"true\": x2\n'~': x3\n'<<': x4\n2: x5\nfalse: x6\n'null': x7\n-3: x8\n",
    "a: 'it''s'\nb: \"\\u00e9\\n\"\nc: é\nd: x #comment\ne: x#y\nf: a\n  b\n",
    '{"a": [1, "2", {"b": null}], "c": 1.5e3, "d": true}\n',  # JSON, as .json inputs and KRM input hold it
    '{"a":1,"b":"x"}\n',
]
# Texts it must leave to the exact reader, or read as the exact reader does: anchors, tags, duplicate keys, the
# scalars Go reads otherwise than YAML 1.1, indicators libyaml refuses; and the values rapidyaml once read
# otherwise than libyaml and Go (a line of blanks before a flow collection's end, escaped line breaks, block
# scalar indentation indicators).
REFUSED = [
    "a: &x 1\nb: *x\n",
    "a: !!str 1\n",
    "a: b\na: c\n",
    "<<: {a: 1}\n",
    "a: yes\n",
    "a: 2001-12-14\n",
    "a: ~\n",
    "a: Null\n",
    "a: 0x1F\n",
    "a: 010\n",
    "a: +1\n",
    "a: 1_000\n",
    "a: inf\n",
    "a: .inf\n",
    "a: 1e400\n",
    'a: ""\nb:\n',
    "yes: 1\n",
    "null: 1\n",
    "1e3: x\n",
    "0x10: x\n",
    "'1': a\n1: b\n",
    "a:\tb\n",
    "a: @x\n",
    "a: `x\n",
    "a: x\n...\n",
    "%YAML 1.1\n---\na: 1\n",
    "a: 1\r\n",
    "a: \x01\n",
    "? a\n: b\n",
    '{"a": 1, "a": 2}',
    "a: {k: train\n  \n }\n",
    "a:\n  x: {k: train,\n   \n   j: x\n  }\n",
    'a: "x\\\n  y"\n',
    "a: >1+\n   x\n  y\n\n",
    "a: |2-\n     x\n    y\n",
    "a: [x,\n  \n  y]\n",
    'a: "a\n\n   b"\n',
    "a: a\n    \n   b\n",
    "--- |\n  a root scalar\n---\n--- \n  # comment\n  a: 1\n",
    "a: [1, 2\nb: 3\n",  # syntax errors, which rapidyaml accepts or reports on descriptor 2
    "a: b: c\n",
    "a:\n  - 1\n b: 2\n",
    "a: 'x\n",
    "a:\n" + "".join("  " * level + "-\n" for level in range(1, 210)),  # deeper than the limit
    "a: " + "[" * 201 + "]" * 201 + "\n",
]
# Characters an edit puts anywhere in a text: whatever rapidyaml accepts that libyaml refuses must be refused.
EDIT_CHARS = [*" \n-:'\"[]{},#|>a1&*!?%.\t", "\n%YAML 1.2\n", "\n...\n", "\n---\n", "\x01", "é"]


def config_map(name: str, body: str) -> str:
    """A ConfigMap document (render passes it through as read) with `body`, a YAML text, as its `extra` value."""
    indented = "".join(f"  {line}\n" if line.strip() else "\n" for line in body.splitlines())
    return f"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\nextra:\n{indented}"


@st.composite
def multiline_flow(draw: st.DrawFn) -> str:
    """A flow collection or quoted scalar spread over lines, with blank lines, lines of blanks, escaped line
    breaks and comments between its parts: where a reader's folding shows."""
    blank = st.sampled_from(["", " ", "  ", "   "])
    items = draw(st.lists(st.sampled_from(["train", "'q r'", '"s\\\nt"', "1", "x y", "a: b", "[c]"]), min_size=1))
    parts = []
    for item in items:
        parts.append(item)
        parts.extend(draw(st.lists(blank, max_size=2)))
    opener, closer = draw(st.sampled_from([("{k: ", "}"), ("[", "]"), ('"', '"'), ("'", "'")]))
    separator = ",\n" if opener in ("[", "{k: ") else "\n"
    body = separator.join(parts) if opener == "[" else "\n".join(parts)
    return f"a: {opener}{body}\n{draw(blank)}{closer}\n"


# --- tags -----------------------------------------------------------------------------------------------------------

# Values a tag does not fit (PyYAML raises ValueError, KeyError or IndexError inside for these), twice each.
MISFITS = ["a: !!int abc\n", "a: [!!float x]\n", "a: {b: !!bool maybe}\n", "a: !!int\n", "- !!float\n"]

# --- objects near the identity rules' edges (compiler/compile/checker.py, rules/names.py) ------------------------

# Valid values come several times over: most objects of a stream pass, and an object fails by one field.
KINDS = [*["ConfigMap", "Service", "Role"] * 4, "Namespace", "MXJob", "mxjob", "MxJob", "", "bad kind", "9Pod", 5, None]
API_VERSIONS = [*["v1", "apps/v1"] * 4, "kubeflow.org/v1", "mlkube.io/v1beta1", "kubeflow.org/v1alpha1", "", "B/v1", 1]
NAMES = [*["a", "web-1"] * 6, "1-front", "Upper", "", "a.b", "x" * 64, "x" * 254, "-a", "a-", "..", "a/b", "é", 3, None]
PREFIXES = ["gen-", "Gen-", "", "a", "x" * 253 + "-", 2, None]
NAMESPACES = [*["team"] * 4, "", "Team", "a" * 64, "1", 1, None]
_ABSENT = object()


def _mapping(draw: st.DrawFn, fields: dict[str, list[Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, values in fields.items():
        value = draw(st.sampled_from([_ABSENT, *values]))
        if value is not _ABSENT:
            found[key] = value
    return found


@st.composite
def identity_objects(draw: st.DrawFn) -> Any:
    """An object, valid or not by its apiVersion, kind, name, generateName and namespace; now and then a list, a
    text or null in its place."""
    form = draw(st.sampled_from(["mapping", "mapping", "mapping", "text", "none"]))
    metadata: Any = None
    if form == "mapping":
        metadata = _mapping(draw, {"name": NAMES, "generateName": PREFIXES, "namespace": NAMESPACES})
    elif form == "text":
        metadata = "text"
    obj = _mapping(draw, {"apiVersion": API_VERSIONS, "kind": KINDS})
    if draw(st.booleans()) or metadata is not None:
        obj["metadata"] = metadata
    return draw(st.sampled_from([obj, obj, obj, [obj], "text", None]))


# --- pod specs for the memo of valid ones (compiler/rules/kubevalidate/memo.py) --------------------------------------

ENV_VALUE = st.one_of(
    st.none(), st.text(max_size=8), st.just(""), st.integers(-2, 2), st.booleans(), st.lists(st.text(max_size=2))
)


def with_env_values(spec: Any, values: list[Any]) -> Any:
    """The pod spec with its env vars' values replaced in turn by `values` (None: no value)."""
    changed = copy.deepcopy(spec)
    slots = [
        var
        for field in ("initContainers", "containers")
        for container in (changed.get(field) or [] if isinstance(changed, dict) else [])
        if isinstance(container, dict) and isinstance(container.get("env"), list)
        for var in container["env"]
        if isinstance(var, dict)
    ]
    for var, value in zip(slots, values, strict=False):
        if value is None:
            var.pop("value", None)
        else:
            var["value"] = value
    return changed


# --- manifests changed one value at a time, for the compiled validator ----------------------------------------------

MUTANTS = st.sampled_from([1.0, 2.5, "x", "", 7, -1, None, True, {"zz": 1}, [], ["x"], [{"zz": 1}]])
FLOATS = st.sampled_from([1.0, 2.5, 0.5, 1e3, 3600.0, 7])


def paths(node: Any, prefix: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    """Every path into the value, itself first."""
    found = [prefix]
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        found.extend(paths(value, (*prefix, key)))
    return found


def is_leaf(node: Any, path: tuple[str | int, ...]) -> bool:
    for key in path:
        node = node[key]
    return not isinstance(node, dict | list)


def replaced(manifest: dict[str, Any], path: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    """A copy of the manifest with the value at `path` replaced."""
    changed = copy.deepcopy(manifest)
    if not path:
        return changed
    parent: Any = changed
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    return changed


def example_jobs() -> list[dict[str, Any]]:
    return [
        d.data for path in JOB_EXAMPLE_FILES for d in parse_text(path.read_text(encoding="utf-8"), str(path)).documents
    ]


def example_renderings() -> list[dict[str, Any]]:
    """One rendered object of each kind the examples render."""
    text = "\n---\n".join(path.read_text(encoding="utf-8") for path in JOB_EXAMPLE_FILES)
    plan = compile_documents(parse_text(text, "examples").documents, RenderOptions())
    assert plan.ok
    return list({(m["apiVersion"], m["kind"]): m for m in plan.manifests()}.values())


# --- jobs at the judge's name limits --------------------------------------------------------------------------------

DIST = REPO / "examples" / "train" / "mx_job_dist_gpu.yaml"


def long_named_job(length: int, workers: int) -> dict[str, Any]:
    """The distributed example named with `length` characters, with `workers` workers that each claim an
    ephemeral volume of a long name: its scheduler's names, then its workers' at 100 and more, are the longest."""
    spec: dict[str, Any] = yaml.safe_load(DIST.read_text(encoding="utf-8"))
    spec["metadata"]["name"] = "n" * length
    spec["spec"]["mxReplicaSpecs"]["Worker"]["replicas"] = workers
    claim = {"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}
    volume = {"name": "v" * 40, "ephemeral": {"volumeClaimTemplate": claim}}
    spec["spec"]["mxReplicaSpecs"]["Worker"]["template"]["spec"]["volumes"] = [volume]
    return spec


# --- lines that trap a cut by text (compiler/read/docsplit.py) --------------------------------------------------------

# Document markers inside block scalars, indented and not, document ends, directives, quoted and plain scalars
# running over a marker, flow collections, nulls, anchors, tags, a byte order mark, a CR.
LINES = (
    "---", "--- ", "--- a: 1", "---x: 1", " ---", "...", "%YAML 1.1", "%TAG ! tag:example.com,2000:", "# a comment",
    "", "   ", "\t", "a: 1", "b: [1, 2", "c: {d: 3}", "e: |", "  line", "  ---", "f: 'quoted", 'g: "quoted',
    "  continued'", "h: plain", "  continued", "null", "~", "- item", "  - nested", "i: &anchor {j: 1}", "k: *anchor",
    "kind: MXJob", "a: 1", "a: 2", "l: !!binary aGVsbG8=", "m: !custom x", "\ufeffn: 1", "o: 1\r", "p: 1e999",
    "apiVersion: v1", "kind: ConfigMap", "metadata: {name: cut}", "metadata:", "  name: cut",
)  # fmt: skip
LINE_TEXTS = st.lists(st.sampled_from(LINES), max_size=14).map("\n".join) | st.lists(
    st.sampled_from(LINES), max_size=14
).map(lambda lines: "".join(line + "\n" for line in lines))

# --- trees of jobs, and their edits, for a diff's two sides -------------------------------------------------------

Tree = dict[str, list[dict[str, Any]]]  # file name -> its documents
JOB_NAMES = ("alpha", "beta", "gamma", "delta")
GANG = ["--gang-scheduler", "volcano"]
DIFF_OPTIONS: tuple[list[str], ...] = (
    [],
    GANG,
    GANG,
    ["--target", "argocd", *GANG],
    ["--no-job", "-n", "team"],
    ["--kubernetes-version", "1.35"],
)


def small_job(
    name: str, workers: int, image: str, priority: str | None, valid: bool, min_available: int | None = None
) -> dict[str, Any]:
    template_extra = {"priorityClassName": priority} if priority else {}
    worker = replica(workers, [container(image=image, resources={"requests": {"cpu": "1"}})])
    worker["template"]["spec"].update(template_extra)
    spec = job(name=name, Scheduler=replica(1), Server=replica(1, [container(resources={"requests": {"cpu": "2"}})]))
    spec["spec"]["mxReplicaSpecs"]["Worker"] = worker
    if min_available is not None:  # only some pods count for minResources: PriorityClass values pick which
        spec["spec"]["runPolicy"] = {"schedulingPolicy": {"minAvailable": min_available}}
    if not valid:
        spec["spec"]["mxReplicaSpecs"]["Worker"]["replicas"] = -1
    return spec


# Objects other than MXJobs, which pass through (checker.Checker): fine, a bad name (error), a Service name that
# is valid from Kubernetes 1.36 only, a pre-Kubeflow look-alike (warning), no name (error), one kind: List.
PASSING: tuple[dict[str, Any], ...] = (
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"a": "1"}},
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "Settings"}},
    {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "1-front"}, "spec": {"ports": [{"port": 80}]}},
    {"apiVersion": "mlkube.io/v1beta1", "kind": "MXJob", "metadata": {"name": "ancient"}, "spec": {}},
    {"apiVersion": "v1", "kind": "Secret", "metadata": {}},
    {
        "apiVersion": "v1",
        "kind": "List",
        "items": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "l"}}],
    },
)


def priority_class(value: int) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": value}


small_jobs = st.builds(
    small_job,
    st.sampled_from(JOB_NAMES),
    st.integers(1, 3),
    st.sampled_from(("mxnet:1.9", "mxnet:2.0")),
    st.sampled_from((None, "high")),
    st.integers(0, 9).map(lambda n: n > 0),  # mostly valid
    st.sampled_from((None, 2)),
)


@st.composite
def trees(draw: st.DrawFn) -> Tree:
    tree: Tree = {}
    for position, name in enumerate(draw(st.lists(st.sampled_from(JOB_NAMES), min_size=1, max_size=4, unique=True))):
        spec = draw(small_jobs)
        spec["metadata"]["name"] = name
        tree.setdefault(f"f{position % 3}.yaml", []).append(spec)
    if draw(st.booleans()):
        tree.setdefault("priorities.yaml", []).append(priority_class(draw(st.sampled_from((10, -10)))))
    for obj in draw(st.lists(st.sampled_from(PASSING), max_size=2)):
        tree.setdefault(draw(st.sampled_from(("f0.yaml", "objects.yaml"))), []).append(obj)
    return tree


def _all_documents(tree: Tree) -> list[tuple[str, int]]:
    return [(file, i) for file, documents in sorted(tree.items()) for i in range(len(documents))]


@st.composite
def edited(draw: st.DrawFn, tree: Tree) -> Tree:
    """The tree after a few random edits: change, add, delete, move, duplicate a name, break a job."""
    new: Tree = {file: [dict(yaml.safe_load(yaml.safe_dump(d))) for d in docs] for file, docs in tree.items()}
    for _ in range(draw(st.integers(0, 3))):
        places = _all_documents(new)
        edit = draw(
            st.sampled_from(("change", "add", "delete", "move", "duplicate", "invalid", "priority", "priority"))
        )
        if edit == "add" or not places:
            new.setdefault(draw(st.sampled_from(("f0.yaml", "f3.yaml"))), []).append(draw(small_jobs))
            continue
        file, index = draw(st.sampled_from(places))
        document = new[file][index]
        if edit == "priority":
            new["priorities.yaml"] = [priority_class(draw(st.sampled_from((10, -10, 30))))]
        elif edit == "duplicate":
            new.setdefault(draw(st.sampled_from(("f1.yaml", "f5.yaml"))), []).append(document)
        elif document.get("apiVersion") != "kubeflow.org/v1" or edit == "delete":
            del new[file][index]
        elif edit == "change":
            replacement = draw(small_jobs)
            replacement["metadata"]["name"] = document["metadata"]["name"]
            new[file][index] = replacement
        elif edit == "move":
            del new[file][index]
            new.setdefault(draw(st.sampled_from(("f0.yaml", "f1.yaml", "f4.yaml"))), []).append(document)
        else:
            document["spec"]["mxReplicaSpecs"]["Worker"]["replicas"] = -1
    return {file: docs for file, docs in new.items() if docs}


def write_tree(folder: Path, tree: Tree) -> None:
    folder.mkdir(parents=True)
    for file, documents in tree.items():
        (folder / file).write_text(yaml.safe_dump_all(documents, sort_keys=False), encoding="utf-8")
