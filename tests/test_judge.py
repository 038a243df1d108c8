"""The final objects are judged (compiler.judge): every job-level edit of tests/job_edits.py gets the same verdict
from `render` and `validate`, located in the spec; the representative objects are the rendering's own; option
values are usage errors naming the option."""

from __future__ import annotations

import json
import pathlib

import pytest
import yaml

from mxjob_gitops.compiler.compile.job import compile_job
from mxjob_gitops.compiler.compile.judge import representatives
from mxjob_gitops.compiler.render.gang.plan import GangScheduler
from mxjob_gitops.compiler.render.job import render_job
from mxjob_gitops.compiler.render.jobset.render import render_compiled
from mxjob_gitops.compiler.render.options import RenderOptions
from mxjob_gitops.compiler.spec.targets import Target
from tests.conftest import run_cli
from tests.job_edits import EDITS, SINGLE, TUNE, Edit


@pytest.mark.parametrize("edit", EDITS, ids=lambda e: e.name)
def test_render_and_validate_give_the_servers_verdict(tmp_path: pathlib.Path, edit: Edit) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(edit.job()), encoding="utf-8")
    rendered = run_cli(["render", *edit.args, str(path)])
    validated = run_cli(["validate", "--format", "json", *edit.args, str(path)])
    assert rendered.exit_code == (1 if edit.refused else 0), rendered.stderr
    assert validated.exit_code == rendered.exit_code, validated.stdout
    if not edit.refused:
        return
    assert rendered.stdout == ""
    errors = [d for d in json.loads(validated.stdout)["diagnostics"] if d["severity"] == "error"]
    assert errors and all(d["path"].startswith(edit.at) for d in errors), errors
    assert f"{path}:" in rendered.stderr


def _options(args: dict[str, object]) -> RenderOptions:
    return RenderOptions(**args)  # type: ignore[arg-type]


MODES = [
    {},
    {"target": Target.ARGOCD},
    {"target": Target.FLUX, "gang_scheduler": GangScheduler.parse("volcano")},
    {"gang_scheduler": GangScheduler.parse("kueue=q")},
    {"gang_scheduler": GangScheduler.parse("scheduler-plugins")},
    {"include_job": False, "namespace": "ns"},
]


@pytest.mark.parametrize("mode", MODES, ids=str)
@pytest.mark.parametrize("example", [SINGLE, TUNE, SINGLE.parent.parent / "train" / "mx_job_dist_gpu.yaml"])
def test_representatives_are_objects_of_the_rendering(mode: dict[str, object], example: pathlib.Path) -> None:
    """Each object judged is byte for byte an object `render` writes (the pods of the highest index)."""
    if not example.exists():
        pytest.skip(f"{example} is not an example")
    job = yaml.safe_load(example.read_text(encoding="utf-8"))
    options = _options(mode)
    rendering = compile_job(job, options)
    assert rendering.compiled is not None
    whole = {_key(obj): obj for obj in render_job(rendering.compiled, options)}
    chosen = list(representatives(rendering.compiled, options))
    assert chosen and all(json.dumps(whole[_key(obj)]) == json.dumps(obj) for obj in chosen)
    pods = [obj for obj in chosen if obj["kind"] == "Pod"]
    assert len(pods) == len([r for r in rendering.job.replicas if r.replicas]) if rendering.job else False


def test_the_jobset_is_judged_whole() -> None:
    job = yaml.safe_load(TUNE.read_text(encoding="utf-8"))
    options = RenderOptions(engine="jobset")
    rendering = compile_job(job, options)
    assert rendering.compiled is not None
    assert list(representatives(rendering.compiled, options)) == list(render_compiled(rendering.compiled, options))


def _key(obj: dict[str, object]) -> tuple[str, str]:
    metadata = obj["metadata"]
    assert isinstance(metadata, dict)
    return str(obj["kind"]), str(metadata["name"])


def test_compiling_leaves_the_input_alone() -> None:
    """Blame reads the user's values from the input: compiling must not change it."""
    job = yaml.safe_load(TUNE.read_text(encoding="utf-8"))
    before = json.dumps(job, sort_keys=True)
    assert compile_job(job, RenderOptions(gang_scheduler=GangScheduler.parse("volcano"))).ok
    assert json.dumps(job, sort_keys=True) == before


def test_a_replaced_template_label_is_a_note() -> None:
    job = yaml.safe_load(SINGLE.read_text(encoding="utf-8"))
    job["spec"]["mxReplicaSpecs"]["Worker"]["template"]["metadata"] = {
        "labels": {"training.kubeflow.org/job-name": "not the name!"}
    }
    rendering = compile_job(job)
    assert rendering.ok
    notes = [d for d in rendering.diagnostics if "is replaced by" in d.message]
    assert len(notes) == 1 and notes[0].severity.value == "info"


@pytest.mark.parametrize(
    ("option", "value", "named"),
    [
        ("--gang-scheduler", "kueue=team a", "--gang-scheduler"),
        ("--gang-scheduler", "kueue=" + "q" * 64, "--gang-scheduler"),
        ("--gang-scheduler", "scheduler-plugins=My_Scheduler", "--gang-scheduler"),
        ("--gang-scheduler", "volcano\n", "--gang-scheduler"),
        ("--priority-class", "Not_A_Name=5", "--priority-class"),
        ("-n", "Team A", "--namespace"),
    ],
)
def test_option_values_are_usage_errors(option: str, value: str, named: str) -> None:
    for command in ("render", "validate"):
        result = run_cli([command, option, value, str(SINGLE)])
        assert result.exit_code == 2, result.stderr
        assert named in result.stderr and result.stdout == ""


def test_a_bad_queue_in_the_gang_annotation_is_located() -> None:
    job = yaml.safe_load(SINGLE.read_text(encoding="utf-8"))
    job["metadata"]["annotations"] = {"mxjob.kubeflow.org/gang-scheduler": "kueue=team a"}
    rendering = compile_job(job)
    assert not rendering.ok
    assert [d.path for d in rendering.errors()] == [("metadata", "annotations", "mxjob.kubeflow.org/gang-scheduler")]


@pytest.mark.parametrize(
    ("version", "dropped"),
    [
        ("1.30", {"volumes[0].image", "resourceClaims", "containers[0].resources.claims", "affinity"}),
        ("1.33", {"volumes[0].image", "resourceClaims", "containers[0].resources.claims"}),
        ("1.34", {"volumes[0].image"}),
        ("1.36", set()),
    ],
)
def test_fields_the_server_drops_at_a_version_are_warnings(version: str, dropped: set[str]) -> None:
    """Image volumes, resource claims and affinity label keys where the server's gate is off: accepted (the server
    drops them before validating), with a warning MXJ309 at each."""
    job = yaml.safe_load(SINGLE.read_text(encoding="utf-8"))
    spec = job["spec"]["mxReplicaSpecs"]["Worker"]["template"]["spec"]
    spec["volumes"] = [{"name": "model", "image": {"reference": "model:v1"}}]
    spec["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]
    spec["containers"][0]["volumeMounts"] = [{"name": "model", "mountPath": "/model"}]
    spec["containers"][0]["resources"]["claims"] = [{"name": "gpu"}]
    term = {"topologyKey": "zone", "labelSelector": {}, "matchLabelKeys": ["app"]}
    spec["affinity"] = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    rendering = compile_job(job, RenderOptions(kubernetes_version=version))
    assert rendering.ok, [d.render() for d in rendering.errors()]
    at = "spec.mxReplicaSpecs.Worker.template.spec."
    warned = {
        d.render().split(" at ", 1)[1].split(":", 1)[0].removeprefix(at).split(".podAffinity")[0]
        for d in rendering.diagnostics
        if d.code.value == "MXJ309"
    }
    assert warned == dropped
