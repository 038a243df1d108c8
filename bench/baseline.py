"""Baseline processes: rendered objects (pickled) written by json.dumps, PyYAML or our own emitter, or checked.

Usage: python bench/baseline.py json|yaml|emit|jsonschema_rs OBJECTS.pickle > OUT   (started by the benchmarks)

Each costs interpreter start-up, unpickling the objects (the cheapest way to have them in memory) and one pass
over them: serialising each document to stdout, or checking each against the same strict schemas `mxjob
validate` uses, compiled by jsonschema_rs. That is the floor a Python tool doing the same work can hope for.
`emit` writes the objects with `mxjob render`'s own YAML emitter (compiler.emit) and nothing else: the part of a
render no faster parser or check can remove, next to json.dumps, which serialises in C.
"""

from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def dump(fmt: str, documents: list[dict[str, Any]]) -> None:
    out = sys.stdout
    if fmt == "json":
        for document in documents:
            out.write(json.dumps(document))
            out.write("\n")
        return
    if fmt == "emit":
        from mxjob_gitops.compiler.render.emit import write_yaml_stream

        write_yaml_stream(documents, out)
        return
    import yaml

    for document in documents:
        out.write("---\n")
        out.write(yaml.dump(document, Dumper=yaml.CSafeDumper, default_flow_style=False, sort_keys=False))


def check(documents: list[dict[str, Any]]) -> None:
    """One jsonschema_rs validator per kind, built from the very schemas validate uses, and one pass."""
    from mxjob_gitops.compiler.validate import kubeschema

    version = kubeschema.DEFAULT_KUBERNETES_VERSION
    invalid = 0
    for document in documents:
        found = kubeschema._lookup(document, version)
        if found is not None and not kubeschema._fast_validator(version, True, *found).is_valid(document):
            invalid += 1
    print(f"{len(documents)} checked, {invalid} invalid")


def main() -> int:
    mode, source = sys.argv[1], sys.argv[2]
    with open(source, "rb") as handle:
        documents = pickle.load(handle)
    if mode == "jsonschema_rs":
        check(documents)
    else:
        dump(mode, documents)
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
