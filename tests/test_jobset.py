"""The JobSet engine's mapping: the env each pod sees equals the pod rendering's (after the kubelet's `$(VAR)`
expansion), the exit-code table as podFailurePolicy decides every code as the reconciler does, and the policies.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from mxjob_gitops.compiler.render.jobset.policy import UNLIMITED
from mxjob_gitops.compiler.spec.exitcodes import ExitClass, ExitTable
from tests.conftest import REPO, run_cli

EXAMPLES = sorted(p for p in (REPO / "examples").rglob("*.yaml") if "mxReplicaSpecs:" in p.read_text(encoding="utf-8"))
INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index"
COORDINATOR = "jobset.sigs.k8s.io/coordinator"


def _render(args: list[str], stdin: str | None = None) -> list[dict[str, Any]]:
    result = run_cli(["render", *args], stdin=stdin)
    assert result.exit_code == 0, result.stderr
    return [d for d in yaml.safe_load_all(result.stdout) if d]


def _single(restart: str | None = None, **run_policy: Any) -> str:
    """The single-worker example with another restartPolicy and run-policy fields."""
    job = yaml.safe_load((REPO / "examples" / "single" / "mx_job_single_worker.yaml").read_text(encoding="utf-8"))
    job["spec"].setdefault("runPolicy", {}).update(run_policy)
    if restart is not None:
        for replica in job["spec"]["mxReplicaSpecs"].values():
            replica["restartPolicy"] = restart
    return str(yaml.safe_dump(job))


def _expand(value: str, env: dict[str, str]) -> str:
    """The kubelet's expansion of an env value (kubernetes third_party/forked/golang/expansion `Expand`): `$$` is
    `$`, `$(NAME)` of an earlier variable its value, an unknown `$(NAME)` stays as written."""
    out, i = [], 0
    while i < len(value):
        if value[i] == "$" and i + 1 < len(value):
            if value[i + 1] == "$":
                out.append("$")
                i += 2
                continue
            if value[i + 1] == "(":
                end = value.find(")", i + 2)
                if end != -1:
                    name = value[i + 2 : end]
                    out.append(env.get(name, value[i : end + 1]))
                    i = end + 1
                    continue
        out.append(value[i])
        i += 1
    return "".join(out)


def _coordinator(jobset: dict[str, Any]) -> dict[str, str]:
    """The coordinator annotation the JobSet controller puts on every pod (kubernetes-sigs/jobset
    pkg/controllers/jobset_controller.go `CoordinatorEndpoint`), none without spec.coordinator."""
    spec = jobset["spec"]
    if "coordinator" not in spec:
        return {}
    co = spec["coordinator"]
    name = jobset["metadata"]["name"]
    endpoint = f"{name}-{co['replicatedJob']}-{co['jobIndex']}-{co['podIndex']}.{spec['network']['subdomain']}"
    return {COORDINATOR: endpoint}


def _pod_env(container: dict[str, Any], index: int, annotations: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a pod of completion index `index` sees (downward-API fieldRefs of the index annotation and
    of the other `annotations` the controllers write resolved)."""
    shown = {INDEX_ANNOTATION: str(index), **(annotations or {})}
    env: dict[str, str] = {}
    for var in container.get("env") or []:
        if "valueFrom" in var:
            path = var["valueFrom"]["fieldRef"]["fieldPath"]
            key = re.fullmatch(r"metadata\.annotations\['([^']+)'\]", path)
            assert key is not None and key.group(1) in shown, var
            env[var["name"]] = shown[key.group(1)]
        else:
            env[var["name"]] = _expand(var.get("value", ""), env)
    return env


def _hostnames(text: str, job: str) -> str:
    """The pod rendering's per-pod Service names as the JobSet's pod hostnames."""
    return re.sub(rf"\b{re.escape(job)}-([a-z]+)-(\d+)\b", rf"{job}-\1-0-\2.{job}", text)


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.parent.name + "/" + p.stem for p in EXAMPLES])
def test_every_pod_sees_what_the_pod_rendering_gives_it(example: Path) -> None:
    pods = {d["metadata"]["name"]: d for d in _render([str(example)]) if d["kind"] == "Pod"}
    (jobset,) = _render(["--engine", "jobset", str(example)])
    name = jobset["metadata"]["name"]
    seen = 0
    for rjob in jobset["spec"]["replicatedJobs"]:
        job_spec = rjob["template"]["spec"]
        assert rjob["replicas"] == 1 and job_spec["completionMode"] == "Indexed"
        assert job_spec["completions"] == job_spec["parallelism"]
        for index in range(job_spec["completions"]):
            pod = pods[f"{name}-{rjob['name']}-{index}"]
            template = job_spec["template"]["spec"]
            for ours, theirs in zip(template["containers"], pod["spec"]["containers"], strict=True):
                want = {v["name"]: _hostnames(v.get("value", ""), name) for v in theirs["env"]}
                got = _pod_env(ours, index, _coordinator(jobset))
                got.pop("JOB_COMPLETION_INDEX")  # the Job controller sets it anyway (addCompletionIndexEnvVariable)
                assert got == want
                assert {k: v for k, v in ours.items() if k != "env"} == {k: v for k, v in theirs.items() if k != "env"}
            seen += 1
    assert seen == len(pods)


def test_dollar_signs_in_a_tuner_key_reach_the_pod_literally() -> None:
    text = (REPO / "examples" / "tune" / "mx_job_tune_gpu.yaml").read_text(encoding="utf-8")
    text = text.replace("tuner-server-key: 2080ti", "tuner-server-key: 'a$(DMLC_ROLE)$$b$'")
    (jobset,) = _render(["--engine", "jobset", "-"], stdin=text)
    container = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]
    assert '"tunerserver":"a$(DMLC_ROLE)$$b$"' in _pod_env(container, 0)["MX_CONFIG"]


def _decide(policy: dict[str, Any], code: int, disrupted: bool = False) -> str:
    """The Job controller's first matching rule (pkg/controller/job/pod_failure_policy.go matchPodFailurePolicy);
    Count when none matches."""
    for rule in policy["rules"]:
        if "onPodConditions" in rule and disrupted:
            return str(rule["action"])
        on = rule.get("onExitCodes")
        if on is not None and not disrupted:
            inside = code in on["values"]
            if inside == (on["operator"] == "In"):
                return str(rule["action"])
    return "Count"


@pytest.mark.parametrize("overrides", ["", "137=permanent,3=retryable,Evicted=permanent"])
def test_exit_codes_become_a_pod_failure_policy(overrides: str) -> None:
    text = _single("ExitCode")
    args = ["--engine", "jobset", *(["--exit-codes", overrides] if overrides else []), "-"]
    (jobset,) = _render(args, stdin=text)
    job_spec = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]
    policy = job_spec["podFailurePolicy"]
    assert job_spec["template"]["spec"]["restartPolicy"] == "Never"  # required by podFailurePolicy
    table = ExitTable.parse(overrides)
    for code in range(1, 256):
        want = "Count" if table.classify(code) is ExitClass.RETRYABLE else "FailJob"
        assert _decide(policy, code) == want, code
    evicted = table.classify(None, "Evicted") is ExitClass.RETRYABLE
    assert _decide(policy, 0, disrupted=True) == ("Ignore" if evicted else "FailJob")
    for rule in policy["rules"]:  # the Job API's limits (pkg/apis/batch/validation validatePodFailurePolicyRule)
        values = rule.get("onExitCodes", {}).get("values", [])
        assert values == sorted(set(values)) and len(values) <= 255


@pytest.mark.parametrize(
    ("policy", "pod", "backoff", "rules"),
    [
        ("Never", "Never", 0, False),
        ("OnFailure", "OnFailure", 3, False),
        ("Always", "OnFailure", 3, False),
        ("ExitCode", "Never", 3, True),
    ],
)
def test_restart_policies(policy: str, pod: str, backoff: int, rules: bool) -> None:
    text = _single(policy, backoffLimit=3, activeDeadlineSeconds=60)
    (jobset,) = _render(["--engine", "jobset", "-"], stdin=text)
    job_spec = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]
    assert job_spec["template"]["spec"]["restartPolicy"] == pod
    assert job_spec["backoffLimit"] == backoff
    assert job_spec["activeDeadlineSeconds"] == 60
    assert ("podFailurePolicy" in job_spec) == rules


def test_an_unset_backoff_limit_is_unlimited() -> None:
    text = _single("OnFailure")
    (jobset,) = _render(["--engine", "jobset", "-"], stdin=text)
    assert jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["backoffLimit"] == UNLIMITED


@pytest.mark.parametrize(
    ("example", "order", "target"),
    [
        ("train/mx_job_dist_gpu", ["scheduler", "server", "worker"], ["worker"]),
        ("byteps/byteps_job", ["scheduler", "server", "worker"], ["worker"]),
        ("single/mx_job_single_worker", [], ["worker"]),
        ("tune/mx_job_tune_gpu", [], ["tuner"]),
    ],
)
def test_start_order_and_success(example: str, order: list[str], target: list[str]) -> None:
    """dependsOn, never the deprecated startupPolicy: each replicatedJob after the scheduler waits for the one before
    it to be Ready (what startupPolicy InOrder did); a lone Worker and MXTune start at once (AnyOrder)."""
    (jobset,) = _render(["--engine", "jobset", str(REPO / "examples" / f"{example}.yaml")])
    spec = jobset["spec"]
    assert "startupPolicy" not in spec
    assert _start_chain(spec) == order
    assert spec["successPolicy"] == {"operator": "All", "targetReplicatedJobs": target}
    assert spec["network"] == {
        "enableDNSHostnames": True,
        "subdomain": jobset["metadata"]["name"],
        "publishNotReadyAddresses": True,
    }
    if order:
        assert spec["coordinator"] == {"replicatedJob": "scheduler", "jobIndex": 0, "podIndex": 0}
    else:
        assert "coordinator" not in spec and all("dependsOn" not in r for r in spec["replicatedJobs"])


def _start_chain(spec: dict[str, Any]) -> list[str]:
    """The replicatedJobs in the order dependsOn starts them, when every one after the first waits for the one
    before it; [] when nothing waits."""
    rjobs = spec["replicatedJobs"]
    if not any("dependsOn" in r for r in rjobs):
        return []
    assert "dependsOn" not in rjobs[0]
    for previous, rjob in itertools.pairwise(rjobs):
        assert rjob["dependsOn"] == [{"name": previous["name"], "status": "Ready"}]
    return [r["name"] for r in rjobs]


def _train(name: str, **replicas: int) -> str:
    """The GPU training example renamed, with these replica counts (a type with 0 has no replicatedJob)."""
    job = yaml.safe_load((REPO / "examples" / "train" / "mx_job_dist_gpu.yaml").read_text(encoding="utf-8"))
    job["metadata"]["name"] = name
    for replica_type, count in replicas.items():
        job["spec"]["mxReplicaSpecs"][replica_type]["replicas"] = count
    return str(yaml.safe_dump(job))


@pytest.mark.parametrize(
    ("replicas", "chain"),
    [
        ({"Server": 0}, ["scheduler", "worker"]),  # no server pods: the workers wait for the scheduler
        ({"Worker": 3, "Server": 2}, ["scheduler", "server", "worker"]),
        ({"Server": 0, "Worker": 0}, []),  # a scheduler alone
    ],
)
def test_every_train_layout_waits_for_the_scheduler(replicas: dict[str, int], chain: list[str]) -> None:
    (jobset,) = _render(["--engine", "jobset", "-"], stdin=_train("mxnet-job", **replicas))
    assert _start_chain(jobset["spec"]) == chain
    assert jobset["spec"]["coordinator"]["replicatedJob"] == "scheduler"


@pytest.mark.parametrize(("length", "coordinator"), [(24, True), (25, False)])
def test_the_coordinator_where_its_label_fits(length: int, coordinator: bool) -> None:
    """The controller writes the coordinator endpoint `<job>-scheduler-0-0.<job>` as a label value (at most 63
    characters; the webhook refuses a JobSet whose endpoint is not one): past it the address is written as is."""
    name = "j" * length
    (jobset,) = _render(["--engine", "jobset", "-"], stdin=_train(name))
    endpoint = f"{name}-scheduler-0-0.{name}"
    assert ("coordinator" in jobset["spec"]) == coordinator == (len(endpoint) <= 63)
    for rjob in jobset["spec"]["replicatedJobs"]:
        container = rjob["template"]["spec"]["template"]["spec"]["containers"][0]
        assert _pod_env(container, 0, _coordinator(jobset))["DMLC_PS_ROOT_URI"] == endpoint
        (root,) = (v for v in container["env"] if v["name"] == "DMLC_PS_ROOT_URI")
        assert ("valueFrom" in root) == coordinator


def test_kueue_is_the_queue_label_on_the_jobset() -> None:
    path = str(REPO / "examples" / "train" / "mx_job_dist_gpu.yaml")
    (jobset,) = _render(["--engine", "jobset", "--gang-scheduler", "kueue=team-a", path])
    assert jobset["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "team-a"
    templates = [r["template"]["spec"]["template"] for r in jobset["spec"]["replicatedJobs"]]
    assert all(
        "schedulingGates" not in t["spec"] and "kueue.x-k8s.io/pod-group-name" not in t["metadata"]["labels"]
        for t in templates
    )


def test_other_gang_schedulers_are_refused() -> None:
    path = str(REPO / "examples" / "train" / "mx_job_dist_gpu.yaml")
    result = run_cli(["render", "--engine", "jobset", "--gang-scheduler", "volcano", path])
    assert result.exit_code == 2 and "Kueue only" in result.stderr and not result.stdout


def test_suspend_and_no_ttl() -> None:
    """A TTL would delete the Git-tracked JobSet, and GitOps would create it again (warning MXJ303, as for pods)."""
    result = run_cli(["render", "--engine", "jobset", "-"], stdin=_single(suspend=True, ttlSecondsAfterFinished=600))
    assert result.exit_code == 0 and "MXJ303" in result.stderr
    (jobset,) = [d for d in yaml.safe_load_all(result.stdout) if d]
    assert jobset["spec"]["suspend"] is True and "ttlSecondsAfterFinished" not in jobset["spec"]


def test_a_bad_exit_code_flag_is_a_usage_error() -> None:
    path = str(REPO / "examples" / "single" / "mx_job_single_worker.yaml")
    result = run_cli(["render", "--engine", "jobset", "--exit-codes", "137=maybe", path])
    assert result.exit_code == 2 and "retryable or permanent" in result.stderr


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.parent.name + "/" + p.stem for p in EXAMPLES])
def test_byte_stable(example: Path) -> None:
    first = run_cli(["render", "--engine", "jobset", str(example)])
    second = run_cli(["render", "--engine", "jobset", str(example)])
    assert first.exit_code == 0 and first.stdout == second.stdout


def test_findings() -> None:
    job = yaml.safe_load(_single("Always"))
    job["metadata"]["name"] = "n" * 53  # n...-worker-0 fits the pods engine (62), n...-worker-0-0 does not (64)
    job["metadata"]["annotations"] = {"mxjob.kubeflow.org/exit-codes": "OOMKilled=retryable"}
    text = yaml.safe_dump(job)
    assert run_cli(["render", "-"], stdin=text).exit_code == 0
    result = run_cli(["render", "--engine", "jobset", "-"], stdin=text)
    assert result.exit_code == 1 and not result.stdout
    assert "MXJ202" in result.stderr and "MXJ302" in result.stderr and "MXJ309" in result.stderr


@pytest.mark.parametrize(
    ("target", "annotation"),
    [("argocd", "argocd.argoproj.io/sync-options"), ("flux", "kustomize.toolkit.fluxcd.io/force")],
)
def test_targets_replace_the_immutable_jobset(target: str, annotation: str) -> None:
    path = str(REPO / "examples" / "train" / "mx_job_dist_gpu.yaml")
    (jobset,) = _render(["--engine", "jobset", "--target", target, path])
    assert annotation in jobset["metadata"]["annotations"]


# The JobSet webhook's create rules that concern what this engine writes (kubernetes-sigs/jobset
# pkg/webhooks/jobset_webhook.go, https://github.com/kubernetes-sigs/jobset/blob/main/pkg/webhooks/jobset_webhook.go:
# `ValidateCreate`, `validateCoordinator`, `validateCoordinatorLabelValue`), and the CRD's word on dependsOn
# (api/jobset/v1alpha2/jobset_types.go: the preceding ReplicatedJobs; one item supported).
_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
_GOLDEN = REPO / "tests" / "golden"
_JOBSET_GOLDENS = sorted(
    c.name for c in _GOLDEN.iterdir() if (c / "args").exists() and "jobset" in (c / "args").read_text().split()
)
_FLAGS: tuple[list[str], ...] = ([], ["--gang-scheduler", "kueue=team-a"], ["--target", "argocd"])


def webhook_problems(jobset: dict[str, Any]) -> list[str]:
    spec = jobset["spec"]
    rjobs = spec["replicatedJobs"]
    problems = []
    if rjobs and "dependsOn" in rjobs[0]:
        problems.append("DependsOn can't be set for the first ReplicatedJob")
    earlier: list[str] = []
    for rjob in rjobs:
        depends = rjob.get("dependsOn") or []
        if len(depends) > 1:
            problems.append(f"{rjob['name']}: only one dependsOn item is supported")
        # The webhook checks the names listed up to and including this one; a replicatedJob waiting for itself
        # is never created, so the test asks for an earlier one.
        problems.extend(
            f"replicatedJob: {rjob['name']} cannot depend on replicatedJob: {d['name']}"
            for d in depends
            if d["name"] not in earlier or d["status"] not in ("Ready", "Complete")
        )
        earlier.append(rjob["name"])
    co = spec.get("coordinator")
    if co is not None:
        by_name = {r["name"]: r for r in rjobs}
        target = by_name.get(co["replicatedJob"])
        job_spec = target["template"]["spec"] if target else {}
        if target is None or not 0 <= co.get("jobIndex", 0) < target["replicas"]:
            problems.append("coordinator replicatedJob or job index is invalid")
        elif job_spec.get("completionMode") != "Indexed" or "completions" not in job_spec:
            problems.append("job for coordinator pod must be indexed completion mode, with completions set")
        elif not 0 <= co.get("podIndex", 0) < job_spec["completions"]:
            problems.append("coordinator pod index is invalid")
        endpoint = _coordinator(jobset)[COORDINATOR]
        if len(endpoint) > 63 or not _LABEL_VALUE.fullmatch(endpoint):
            problems.append(f"invalid label value {endpoint!r} for coordinator label")
    problems.extend(
        f"invalid replicatedJob name {t!r} does not appear in .spec.ReplicatedJobs"
        for t in spec.get("successPolicy", {}).get("targetReplicatedJobs", [])
        if t not in earlier
    )
    return problems


@pytest.mark.parametrize("flags", _FLAGS, ids=["plain", "kueue", "argocd"])
@pytest.mark.parametrize("example", EXAMPLES, ids=[p.parent.name + "/" + p.stem for p in EXAMPLES])
def test_every_rendering_passes_the_webhook_rules(example: Path, flags: list[str]) -> None:
    (jobset,) = _render(["--engine", "jobset", *flags, str(example)])
    assert webhook_problems(jobset) == []


@pytest.mark.parametrize("case", _JOBSET_GOLDENS)
def test_every_jobset_golden_passes_the_webhook_rules(case: str) -> None:
    for jobset in yaml.safe_load_all((_GOLDEN / case / "expected.out").read_text(encoding="utf-8")):
        if jobset:
            assert webhook_problems(jobset) == []


def test_the_webhook_rules_catch_a_wrong_order() -> None:
    """The rules above can fail: a dependency on a later replicatedJob, or on the first one's own."""
    (jobset,) = _render(["--engine", "jobset", str(REPO / "examples" / "train" / "mx_job_dist_gpu.yaml")])
    rjobs = jobset["spec"]["replicatedJobs"]
    rjobs[1]["dependsOn"] = [{"name": "worker", "status": "Ready"}]
    rjobs[0]["dependsOn"] = [{"name": "scheduler", "status": "Ready"}]
    assert webhook_problems(jobset) == [
        "DependsOn can't be set for the first ReplicatedJob",
        "replicatedJob: scheduler cannot depend on replicatedJob: scheduler",
        "replicatedJob: server cannot depend on replicatedJob: worker",
    ]
