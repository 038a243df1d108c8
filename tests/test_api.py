"""The public entry points: compile_job for one job, and RenderOptions' record codec (round trip, every reader)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mxjob_gitops.compiler import Code, RenderOptions, Target, compile_job
from mxjob_gitops.compiler.render.gang.plan import GangScheduler
from mxjob_gitops.compiler.render.options import parse_field
from tests.helpers import job, render, replica

_LABEL = st.from_regex(r"[a-z]([-a-z0-9]{0,10}[a-z0-9])?", fullmatch=True)
_GANGS = st.one_of(
    st.none(),
    st.just(GangScheduler.parse("volcano")),
    st.builds(lambda name: GangScheduler.parse(f"scheduler-plugins={name}"), _LABEL),
)
OPTIONS = st.builds(
    RenderOptions,
    namespace=st.one_of(st.none(), _LABEL),
    include_job=st.booleans(),
    target=st.sampled_from(list(Target)),
    gang_scheduler=_GANGS,
    priority_classes=st.lists(st.tuples(_LABEL, st.integers(-(2**31), 10**9)), max_size=3).map(tuple),
    keep_rendered=st.booleans(),
)


@given(OPTIONS)
def test_record_round_trip(options: RenderOptions) -> None:
    record = options.to_record()
    assert all(isinstance(key, str) and isinstance(value, str) for key, value in record.items())
    assert RenderOptions.from_record(record) == options
    assert RenderOptions.from_record(json.loads(json.dumps(record))) == options


@given(OPTIONS, OPTIONS)
def test_record_fields_override_the_base(options: RenderOptions, base: RenderOptions) -> None:
    assert RenderOptions.from_record(options.to_record(), base).target is options.target
    assert RenderOptions.from_record({}, base) == base


def test_default_record_names_only_the_target() -> None:
    assert RenderOptions().to_record() == {"target": "plain"}


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"target": "argo"}, "target: 'argo': use plain, argocd, flux"),
        ({"gangScheduler": "slurm"}, "gangScheduler: 'slurm': use volcano"),
        ({"priorityClasses": "high"}, "priorityClasses: 'high': use NAME=VALUE"),
    ],
)
def test_bad_record_fields_are_named(record: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        RenderOptions.from_record(record)


def test_lenient_text_values() -> None:
    options = RenderOptions.from_record({"job": False, "namespace": "", "gangScheduler": "", "priorityClasses": " "})
    assert options == RenderOptions(include_job=False)
    assert parse_field("job", "No") is False


def test_config_map_record_is_read_back() -> None:
    rendered = render(
        job(name="r", Worker=replica()),
        options=RenderOptions(
            target=Target.ARGOCD, gang_scheduler=GangScheduler.parse("scheduler-plugins=sp"), namespace="ml"
        ),
    )
    config_map = rendered[0]
    base = RenderOptions(namespace="ml", include_job=False)
    assert RenderOptions.from_config_map(config_map, base) == RenderOptions(
        namespace="ml",
        include_job=False,
        target=Target.ARGOCD,
        gang_scheduler=GangScheduler.parse("scheduler-plugins=sp"),
    )
    assert RenderOptions.from_config_map({"data": {}}, base) == base
    for broken in ("{", '{"render": []}', '{"render": {"target": "argo"}}'):
        with pytest.raises(ValueError):
            RenderOptions.from_config_map({"data": {"job.json": broken}}, base)


def test_compile_job_renders_what_the_cli_renders() -> None:
    spec = job(name="one", Scheduler=replica(), Server=replica(), Worker=replica(2))
    options = RenderOptions(namespace="ml", target=Target.FLUX)
    rendering = compile_job(spec, options, origin="cluster:ml/one")
    assert rendering.ok and rendering.job is not None and rendering.job.name == "one"
    assert list(rendering.manifests()) == render(spec, options=options)
    assert spec == job(name="one", Scheduler=replica(), Server=replica(), Worker=replica(2))


def test_compile_job_returns_located_errors() -> None:
    rendering = compile_job(job(name="Bad_Name", Worker=replica()), origin="cluster:ml/x")
    assert not rendering.ok and rendering.job is None
    [problem] = rendering.errors()
    assert (problem.code, problem.path, problem.location and problem.location.file) == (
        Code.JOB_NAME,
        ("metadata", "name"),
        "cluster:ml/x",
    )
    with pytest.raises(ValueError):
        rendering.manifests()


def test_compile_job_refuses_other_objects() -> None:
    rendering = compile_job({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})
    assert [d.code for d in rendering.errors()] == [Code.NOT_AN_OBJECT]


def test_replica_traits_table() -> None:
    from mxjob_gitops.compiler.spec.replicas import TRAITS, JobMode, generated_env_names, rendezvous_of, types_of

    assert (rendezvous_of(JobMode.TRAIN), rendezvous_of(JobMode.TUNE)) == ("Scheduler", "TunerTracker")
    assert [t for t in TRAITS if TRAITS[t].decides_success] == ["Scheduler", "Tuner"]
    assert set(types_of(JobMode.TRAIN)) | set(types_of(JobMode.TUNE)) == set(TRAITS)
    manifests = render(job(name="e", Scheduler=replica(), Server=replica(), Worker=replica()))
    for pod in (m for m in manifests if m["kind"] == "Pod"):
        replica_type = {"scheduler": "Scheduler", "server": "Server", "worker": "Worker"}[
            pod["metadata"]["labels"]["training.kubeflow.org/replica-type"]
        ]
        names = tuple(e["name"] for e in pod["spec"]["containers"][0]["env"])
        assert names == generated_env_names(replica_type)
