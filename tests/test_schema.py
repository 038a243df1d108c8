"""schemas/mxjob-v1.schema.json is exactly what schemas/generate.py produces, and it is a valid schema."""

from __future__ import annotations

import importlib.util

from jsonschema import Draft202012Validator

from compiler.schema import mxjob_schema
from tests.conftest import REPO


def test_committed_schema_matches_the_generator() -> None:
    spec = importlib.util.spec_from_file_location("generate", REPO / "schemas" / "generate.py")
    assert spec and spec.loader
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    committed = (REPO / "schemas" / "mxjob-v1.schema.json").read_text(encoding="utf-8")
    assert committed == generate.render(), "run `python schemas/generate.py` and commit the result"


def test_schema_is_valid_and_strict() -> None:
    schema = mxjob_schema()
    Draft202012Validator.check_schema(schema)
    assert schema["additionalProperties"] is False
    assert schema["$defs"]["ReplicaSpec"]["additionalProperties"] is False
    assert schema["$defs"]["io.k8s.api.core.v1.Container"]["additionalProperties"] is False
