"""What `mxjob diff` says a change restarts, without a cluster: which changes replace pods (and which restart
nothing), the age wording, and JobSet's update rules (kubernetes-sigs/jobset pkg/webhooks/jobset_webhook.go
`ValidateUpdate` and the CRD's `self == oldSelf` rules): immutable fields refused, pod template fields allowed while
suspended, the JobSet replaced under --target argocd/flux. With a cluster: tests/realapi/test_diff_restarts.py."""

from __future__ import annotations

import copy
import datetime
import json
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from mxjob_gitops.compiler.base.diagnostics import Code
from mxjob_gitops.compiler.diff.age import format_age, parse_time, rfc3339, started_at
from mxjob_gitops.compiler.diff.jobset_rules import check_update, replaced_by
from mxjob_gitops.compiler.diff.restarts import How, JobRestart, describe, observe, selectors
from tests.conftest import EXAMPLES, REPO, run_cli

TRAIN = EXAMPLES / "train" / "mx_job_dist_gpu.yaml"


@pytest.mark.parametrize(
    ("seconds", "words"),
    [
        (0, "0s"),
        (-1, "0s"),  # a clock a second behind the server's
        (-2, "<invalid>"),
        (45, "45s"),
        (59.9, "59s"),
        (60, "1m"),
        (12 * 60 + 59, "12m"),
        (3_599, "59m"),
        (3_600, "1h"),
        (2 * 3_600 + 59 * 60, "2h"),
        (86_399, "23h"),
        (86_400, "1d"),
        (3 * 86_400 + 7_000, "3d"),
        (364 * 86_400, "364d"),
        (365 * 86_400, "1y"),
        (800 * 86_400, "2y"),
    ],
)
def test_ages_are_worded_as_kubectl_words_them(seconds: float, words: str) -> None:
    assert format_age(seconds) == words


def test_times_read_and_written_as_the_standard_library_does() -> None:
    rng = random.Random(41)
    for _ in range(2_000):
        moment = rng.randint(-(10**10), 4 * 10**9)
        text = datetime.datetime.fromtimestamp(moment, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        assert rfc3339(moment) == text
        assert parse_time(text) == moment
    assert (
        parse_time("2026-11-27T10:00:00.123+01:30")
        == datetime.datetime.fromisoformat("2026-11-27T10:00:00+01:30").timestamp()
    )
    assert parse_time("yesterday") is None and parse_time(None) is None and parse_time("2026-13-01T00:00:00Z") is None


def test_a_pod_started_when_its_status_says_else_when_its_container_started() -> None:
    assert started_at({"status": {"startTime": "2026-11-27T10:00:00Z"}}) == parse_time("2026-11-27T10:00:00Z")
    running = {"state": {"running": {"startedAt": "2026-11-27T11:00:00Z"}}}
    assert started_at({"status": {"containerStatuses": [running]}}) == parse_time("2026-11-27T11:00:00Z")
    assert started_at({"status": {}}) is None


# --- which changes restart pods (two files, no cluster) -------------------------------------------------------------


def _job(edit: Any = None) -> str:
    job: dict[str, Any] = yaml.safe_load(TRAIN.read_text(encoding="utf-8"))
    job["metadata"]["namespace"] = "vision"
    if edit is not None:
        edit(job)
    return yaml.safe_dump(job, sort_keys=False)


def _image(job: dict[str, Any]) -> None:
    for spec in job["spec"]["mxReplicaSpecs"].values():
        spec["template"]["spec"]["containers"][0]["image"] = "mxjob/mxnet:gpu-2"


def _workers(job: dict[str, Any]) -> None:
    job["spec"]["mxReplicaSpecs"]["Worker"]["replicas"] = 2


def _annotation(job: dict[str, Any]) -> None:
    job["metadata"]["annotations"] = {"team.example.com/owner": "vision"}


def _status(job: dict[str, Any]) -> None:
    job["status"] = {"conditions": [{"type": "Running", "status": "True"}]}


def _diff(tmp_path: Path, old: str, new: str, *flags: str) -> Any:
    (tmp_path / "old.yaml").write_text(old, encoding="utf-8")
    (tmp_path / "new.yaml").write_text(new, encoding="utf-8")
    return run_cli(["diff", *flags, str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")])


def _restarts(tmp_path: Path, old: str, new: str, *flags: str) -> list[dict[str, Any]]:
    result = _diff(tmp_path, old, new, "--format", "json", *flags)
    assert result.exit_code in (0, 1), result.stderr
    restarts: list[dict[str, Any]] = json.loads(result.stdout)["restarts"]
    return restarts


def test_a_new_image_restarts_every_pod_of_the_job(tmp_path: Path) -> None:
    [restart] = _restarts(tmp_path, _job(), _job(_image))
    assert restart["job"] == "vision/mxnet-job" and restart["replaced"] == 3 and restart["cluster"] is False
    # applied in place (no --target): the kubelet restarts each container with the new image
    assert {p["how"] for p in restart["pods"]} == {"in-place"}
    assert restart["line"] == "restarts vision/mxnet-job if it is running: 3 pods replaced"


def test_a_new_worker_replaces_every_pod(tmp_path: Path) -> None:
    [restart] = _restarts(tmp_path, _job(), _job(_workers))
    # MX_CONFIG and DMLC_NUM_WORKER change in every existing pod: delete + create; the new worker is only added
    assert sorted(p["name"] for p in restart["pods"]) == [
        "mxnet-job-scheduler-0",
        "mxnet-job-server-0",
        "mxnet-job-worker-0",
    ]
    assert {p["how"] for p in restart["pods"]} == {"replaced"}


@pytest.mark.parametrize("edit", [_annotation, _status], ids=["annotation", "status"])
def test_a_change_that_does_not_reach_the_pods_restarts_nothing(tmp_path: Path, edit: Any) -> None:
    result = _diff(tmp_path, _job(), _job(edit), "--format", "json")
    assert result.exit_code in (0, 1), result.stderr
    assert json.loads(result.stdout)["restarts"] == []
    text = _diff(tmp_path, _job(), _job(edit))
    assert "restart" not in text.stdout and "replaces" not in text.stdout


def test_a_service_only_change_restarts_nothing(tmp_path: Path) -> None:
    rendered = run_cli(["render", str(TRAIN)])
    assert rendered.exit_code == 0, rendered.stderr
    objects = [o for o in yaml.safe_load_all(rendered.stdout) if o]
    changed = copy.deepcopy(objects)
    service = next(o for o in changed if o["kind"] == "Service")
    service["metadata"]["labels"]["team.example.com/tier"] = "gold"
    old, new = (yaml.safe_dump_all(side, sort_keys=False) for side in (objects, changed))
    result = _diff(tmp_path, old, new, "--format", "json")
    assert result.exit_code == 1, result.stderr
    document = json.loads(result.stdout)
    assert document["summary"]["modified"] == 1 and document["restarts"] == []


def test_a_removed_job_stops_its_pods(tmp_path: Path) -> None:
    (tmp_path / "empty.yaml").write_text("", encoding="utf-8")
    [restart] = _restarts(tmp_path, _job(), "")
    assert restart["deleted"] == 3 and restart["replaced"] == 0
    assert restart["line"] == "stops vision/mxnet-job if it is running: 3 pods deleted"


def test_argocd_replaces_a_pod_on_any_change(tmp_path: Path) -> None:
    def label(job: dict[str, Any]) -> None:
        job["spec"]["mxReplicaSpecs"]["Worker"]["template"].setdefault("metadata", {})["labels"] = {"tier": "gold"}

    # a pod label is updated in place by kubectl apply; Argo CD's Force=true,Replace=true deletes and creates
    assert _restarts(tmp_path, _job(), _job(label)) == []
    [restart] = _restarts(tmp_path, _job(), _job(label), "--target", "argocd")
    assert restart["pods"] == [{"name": "mxnet-job-worker-0", "how": "replaced"}]


def test_the_restart_lines_in_text_and_markdown(tmp_path: Path) -> None:
    line = "restarts vision/mxnet-job if it is running: 3 pods replaced"
    text = _diff(tmp_path, _job(), _job(_image))
    assert text.exit_code == 1 and line in text.stdout.splitlines(), text.stdout
    markdown = _diff(tmp_path, _job(), _job(_image), "--format", "markdown")
    assert markdown.exit_code == 1 and f"- {line}" in markdown.stdout.splitlines(), markdown.stdout
    assert markdown.stdout.index("**Restarts:**") < markdown.stdout.index("| job |")


def test_the_json_report_with_restarts_follows_its_schema(tmp_path: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((REPO / "schemas" / "diff-v1.schema.json").read_text(encoding="utf-8"))
    for flags in ((), ("--engine", "jobset", "--target", "argocd")):
        result = _diff(tmp_path, _job(), _job(_image), "--format", "json", *flags)
        jsonschema.validate(json.loads(result.stdout), schema)


def test_a_bad_kubeconfig_is_an_error_in_kubectls_words(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "config"
    result = _diff(tmp_path, _job(), _job(_image), "--kubeconfig", str(missing))
    assert result.exit_code == 2
    assert f"kubeconfig {missing}: no such file" in result.stderr and "Traceback" not in result.stderr


# --- JobSet's update rules ------------------------------------------------------------------------------------------


def _jobset(edit: Any = None, *flags: str) -> dict[str, Any]:
    rendered = run_cli(["render", "--engine", "jobset", *flags, "-"], stdin=_job(edit))
    assert rendered.exit_code == 0, rendered.stderr
    jobset: dict[str, Any] = yaml.safe_load(rendered.stdout)
    return jobset


def _pod_spec(jobset: dict[str, Any], name: str = "worker") -> dict[str, Any]:
    job = next(j for j in jobset["spec"]["replicatedJobs"] if j["name"] == name)
    spec: dict[str, Any] = job["template"]["spec"]["template"]["spec"]
    return spec


def _suspend(job: dict[str, Any]) -> None:
    job["spec"]["runPolicy"]["suspend"] = True


def test_jobset_immutable_fields_are_refused() -> None:
    old = _jobset()
    assert check_update(old, _jobset(_image)).refused == ("spec.replicatedJobs",)
    assert check_update(old, _jobset(_image)).jobs == ("scheduler", "server", "worker")
    assert check_update(old, _jobset(_workers)).refused == ("spec.replicatedJobs",)
    network = copy.deepcopy(old)
    network["spec"]["network"]["publishNotReadyAddresses"] = False
    assert check_update(old, network).refused == ("spec.network",)
    reordered = copy.deepcopy(old)
    reordered["spec"]["replicatedJobs"].reverse()  # compared as a whole, in order
    assert check_update(old, reordered).refused == ("spec.replicatedJobs",)
    managed = copy.deepcopy(old)
    managed["spec"]["managedBy"] = "kueue.x-k8s.io/multikueue"
    assert "spec.managedBy" in check_update(old, managed).refused


def test_a_transition_rule_runs_only_when_both_sides_have_the_field() -> None:
    old = _jobset()
    without = copy.deepcopy(old)
    del without["spec"]["successPolicy"]
    assert check_update(without, old).accepted and check_update(old, without).accepted


def test_pod_template_fields_may_change_while_suspended() -> None:
    old = _jobset(_suspend)
    new = copy.deepcopy(old)
    _pod_spec(new)["nodeSelector"] = {"pool": "a100"}
    _pod_spec(new)["tolerations"] = [{"key": "gpu", "operator": "Exists"}]
    new["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["metadata"]["labels"]["queue"] = "a"
    update = check_update(old, new)
    assert update.accepted
    assert "spec.replicatedJobs[worker].template.spec.template.spec.nodeSelector" in update.while_suspended
    # the same change on a running JobSet is refused
    running = copy.deepcopy(old)
    del running["spec"]["suspend"]
    resumed_too = copy.deepcopy(new)
    del resumed_too["spec"]["suspend"]
    assert check_update(running, resumed_too).refused == ("spec.replicatedJobs",)
    # resuming with the change is allowed (the old JobSet is suspended); an image change never is
    assert check_update(old, resumed_too).accepted

    def suspended_image(job: dict[str, Any]) -> None:
        _suspend(job)
        _image(job)

    assert check_update(old, _jobset(suspended_image)).refused == ("spec.replicatedJobs",)


def test_a_jobset_change_that_restarts_nothing() -> None:
    old = _jobset()
    labelled = copy.deepcopy(old)
    labelled["metadata"]["labels"] = {"team": "vision"}
    labelled["spec"]["ttlSecondsAfterFinished"] = 600
    assert check_update(old, labelled) == check_update(old, old)
    assert check_update(old, labelled).accepted and not check_update(old, labelled).suspends
    assert check_update(old, _jobset(_suspend)).suspends


def test_which_gitops_engine_replaces_a_jobset() -> None:
    assert replaced_by(_jobset(None, "--target", "argocd")) == "argocd"
    assert replaced_by(_jobset(None, "--target", "flux")) == "flux"
    assert replaced_by(_jobset()) == ""


def test_a_refused_jobset_update_exits_2_located_in_the_mxjob(tmp_path: Path) -> None:
    new = _job(_image)
    result = _diff(tmp_path, _job(), new, "--engine", "jobset")
    assert result.exit_code == 2, result.stderr
    line = next(n for n, text in enumerate(new.splitlines(), 1) if text.strip() == "Scheduler:")
    # at the first replica type whose replicatedJob changed (its value, on the next line)
    assert f"new.yaml:{line + 1}:" in result.stderr and Code.K8S_UPDATE.value in result.stderr
    assert "at spec.mxReplicaSpecs.Scheduler:" in result.stderr
    assert "JobSet vision/mxnet-job: spec.replicatedJobs cannot change" in result.stderr
    assert "the API server refuses the update of JobSet vision/mxnet-job" in result.stdout
    for fmt in ("markdown", "json"):
        shown = _diff(tmp_path, _job(), new, "--engine", "jobset", "--format", fmt)
        assert shown.exit_code == 2 and "refuses the update of JobSet vision/mxnet-job" in shown.stdout
    report = json.loads(_diff(tmp_path, _job(), new, "--engine", "jobset", "--format", "json").stdout)
    assert report["restarts"][0]["jobset"] == "refused" and report["refused"][0]["code"] == Code.K8S_UPDATE.value


@pytest.mark.parametrize("target", ["argocd", "flux"])
def test_a_replaced_jobset_restarts_every_replica(tmp_path: Path, target: str) -> None:
    result = _diff(tmp_path, _job(), _job(_image), "--engine", "jobset", "--target", target)
    assert result.exit_code == 1, result.stderr
    assert "restarts vision/mxnet-job if it is running: the JobSet is replaced (" in result.stdout
    assert "every replica restarts, 3 pods" in result.stdout
    [restart] = _restarts(tmp_path, _job(), _job(_image), "--engine", "jobset", "--target", target)
    assert restart["jobset"] == "replaced" and restart["replicaPods"] == 3
    markdown = _diff(tmp_path, _job(), _job(_image), "--engine", "jobset", "--target", target, "--format", "markdown")
    assert "the JobSet is replaced" in markdown.stdout


def test_a_suspended_jobset_takes_a_node_selector_without_restart(tmp_path: Path) -> None:
    def pool(job: dict[str, Any]) -> None:
        _suspend(job)
        job["spec"]["mxReplicaSpecs"]["Worker"]["template"]["spec"]["nodeSelector"] = {"pool": "a100"}

    result = _diff(tmp_path, _job(_suspend), _job(pool), "--engine", "jobset", "--format", "json")
    assert result.exit_code == 1, result.stderr
    assert json.loads(result.stdout)["restarts"] == [] and result.stderr == ""
    # Flux applies it in place too; Argo CD's Force=true,Replace=true replaces the JobSet on any change
    flux = _restarts(tmp_path, _job(_suspend), _job(pool), "--engine", "jobset", "--target", "flux")
    assert flux == []
    [argocd] = _restarts(tmp_path, _job(_suspend), _job(pool), "--engine", "jobset", "--target", "argocd")
    assert argocd["jobset"] == "replaced"


# --- matching the cluster's pods (pure: observe and describe) -------------------------------------------------------

NOW = 1_800_000_000.0


def _pod(name: str, job: str, started: float | None, phase: str = "Running", **metadata: Any) -> dict[str, Any]:
    status: dict[str, Any] = {"phase": phase}
    if started is not None:
        status["startTime"] = rfc3339(started)
    labels = {"training.kubeflow.org/job-name": job}
    return {"metadata": {"name": name, "labels": labels, **metadata}, "status": status}


def test_only_running_pods_the_change_restarts_are_counted() -> None:
    restart = JobRestart(
        "resnet",
        "",
        "resnet",
        (("resnet-worker-0", How.REPLACED), ("resnet-worker-1", How.REPLACED), ("resnet-worker-2", How.DELETED)),
    )
    assert selectors([restart], "team-a") == {"team-a": ["resnet"]}
    pods = [
        _pod("resnet-worker-0", "resnet", NOW - 2 * 3_600 - 59),
        _pod("resnet-worker-1", "resnet", NOW - 45, namespace="team-a"),
        _pod("resnet-worker-2", "resnet", NOW - 3 * 86_400),
        _pod("resnet-worker-3", "resnet", NOW - 9 * 86_400),  # running, but the change leaves it alone
        _pod("resnet-scheduler-0", "resnet", None, phase="Pending"),
        _pod("other-worker-0", "other", NOW - 5 * 86_400),
    ]
    [seen] = observe([restart], pods, "team-a", NOW)
    assert [(p.name, p.age) for p in seen.running or ()] == [
        ("resnet-worker-0", "2h"),
        ("resnet-worker-1", "45s"),
        ("resnet-worker-2", "3d"),
    ]
    assert describe(seen) == (
        "replaces 2 running pods of resnet, running for 2h; stops 1 more (deleted) (2 pods replaced, 1 pod deleted)"
    )
    # a pod being deleted, or one in another namespace, is not this job's running pod
    leaving = [_pod("resnet-worker-0", "resnet", NOW - 60, deletionTimestamp=rfc3339(NOW))]
    [gone] = observe([restart], [*leaving, _pod("resnet-worker-1", "resnet", NOW, namespace="team-b")], "team-a", NOW)
    assert gone.running == () and describe(gone) == (
        "replaces no running pods of resnet (2 pods replaced, 1 pod deleted; none is running now)"
    )


def test_an_unknown_context_is_an_error_in_kubectls_words(tmp_path: Path) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:1"}}],
                "users": [{"name": "u", "user": {"token": "t"}}],
                "contexts": [{"name": "dev", "context": {"cluster": "c", "user": "u"}}],
                "current-context": "dev",
            }
        ),
        encoding="utf-8",
    )
    result = _diff(tmp_path, _job(), _job(_image), "--kubeconfig", str(kubeconfig), "--context", "prod")
    assert result.exit_code == 2 and result.stdout == ""
    assert f'context "prod" does not exist in {kubeconfig} (its contexts: dev;' in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
