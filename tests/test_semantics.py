"""Exact strings the operator produced: names, labels, ports and environment (MX_CONFIG byte for byte)."""

from __future__ import annotations

import json

import pytest

from mxjob_gitops.compiler import RenderOptions
from tests.helpers import by_name, container, env_names, env_of, job, render, replica

# The worked example of the training operator v1.8: Scheduler 1, Server 1, Worker 2, default ports.
WORKED = job(Scheduler=replica(1), Server=replica(1), Worker=replica(2))
WORKED_MX_CONFIG_WORKER_1 = (
    '{"cluster":{"scheduler":[{"url":"mxnet-job-scheduler-0","port":9091}],'
    '"server":[{"url":"mxnet-job-server-0","port":9091}],'
    '"worker":[{"url":"mxnet-job-worker-0","port":9091},{"url":"mxnet-job-worker-1","port":9091}]},'
    '"labels":{"scheduler":"","server":"","worker":""},"task":{"type":"worker","index":1}}'
)


def test_worker_env_matches_the_operator_exactly() -> None:
    pod = by_name(render(WORKED), "Pod", "mxnet-job-worker-1")
    assert pod["spec"]["containers"][0]["env"] == [
        {"name": "MX_CONFIG", "value": WORKED_MX_CONFIG_WORKER_1},
        {"name": "DMLC_PS_ROOT_PORT", "value": "9091"},
        {"name": "DMLC_PS_ROOT_URI", "value": "mxnet-job-scheduler-0"},
        {"name": "DMLC_NUM_SERVER", "value": "1"},
        {"name": "DMLC_NUM_WORKER", "value": "2"},
        {"name": "DMLC_ROLE", "value": "worker"},
        {"name": "DMLC_USE_KUBERNETES", "value": "1"},
        {"name": "DMLC_WORKER_ID", "value": "1"},
    ]


@pytest.mark.parametrize(
    ("name", "role", "index", "worker_id"),
    [
        ("mxnet-job-scheduler-0", "scheduler", 0, None),
        ("mxnet-job-server-0", "server", 0, None),
        ("mxnet-job-worker-0", "worker", 0, "0"),
        ("mxnet-job-worker-1", "worker", 1, "1"),
    ],
)
def test_role_task_and_worker_id_per_pod(name: str, role: str, index: int, worker_id: str | None) -> None:
    env = env_of(by_name(render(WORKED), "Pod", name))
    assert env["DMLC_ROLE"] == role
    assert env["MX_CONFIG"].endswith(f'"task":{{"type":"{role}","index":{index}}}}}')
    assert env.get("DMLC_WORKER_ID") == worker_id


def test_names_and_document_order() -> None:
    names = [(m["kind"], m["metadata"]["name"]) for m in render(WORKED)]
    assert names == [
        ("ConfigMap", "mxnet-job-mxjob-config"),
        ("Service", "mxnet-job-scheduler-0"),
        ("Service", "mxnet-job-server-0"),
        ("Service", "mxnet-job-worker-0"),
        ("Service", "mxnet-job-worker-1"),
        ("Pod", "mxnet-job-scheduler-0"),
        ("Pod", "mxnet-job-server-0"),
        ("Pod", "mxnet-job-worker-0"),
        ("Pod", "mxnet-job-worker-1"),
        ("MXJob", "mxnet-job"),
    ]


def test_labels_on_pods_and_services() -> None:
    manifests = render(WORKED)
    server = by_name(manifests, "Pod", "mxnet-job-server-0")
    assert server["metadata"]["labels"] == {
        "training.kubeflow.org/operator-name": "mxjob-controller",
        "training.kubeflow.org/job-name": "mxnet-job",
        "training.kubeflow.org/replica-type": "server",
        "training.kubeflow.org/replica-index": "0",
        "training.kubeflow.org/job-role": "master",
    }
    worker_service = by_name(manifests, "Service", "mxnet-job-worker-1")
    expected = {
        "training.kubeflow.org/operator-name": "mxjob-controller",
        "training.kubeflow.org/job-name": "mxnet-job",
        "training.kubeflow.org/replica-type": "worker",
        "training.kubeflow.org/replica-index": "1",
    }
    assert worker_service["metadata"]["labels"] == expected
    assert worker_service["spec"] == {
        "clusterIP": "None",
        "selector": expected,
        "ports": [{"name": "mxjob-port", "port": 9091, "protocol": "TCP"}],
    }
    assert "training.kubeflow.org/job-role" not in by_name(manifests, "Pod", "mxnet-job-worker-0")["metadata"]["labels"]


def test_template_labels_kept_but_operator_labels_win() -> None:
    spec = replica(1)
    spec["template"]["metadata"] = {
        "labels": {"team": "a", "training.kubeflow.org/job-name": "other"},
        "annotations": {"sidecar.istio.io/inject": "false"},
    }
    pod = by_name(render(job(name="solo", Worker=spec)), "Pod", "solo-worker-0")
    assert pod["metadata"]["labels"]["team"] == "a"
    assert pod["metadata"]["labels"]["training.kubeflow.org/job-name"] == "solo"
    assert pod["metadata"]["annotations"] == {"sidecar.istio.io/inject": "false"}


def test_custom_ports_per_replica_type_and_service_port_order() -> None:
    scheduler = replica(1, [container(ports=[{"name": "mxjob-port", "containerPort": 9000}])])
    server = replica(
        1,
        [container(ports=[{"name": "metrics", "containerPort": 8080}, {"name": "mxjob-port", "containerPort": 9100}])],
    )
    worker = replica(1, [container(ports=[{"name": "debug", "containerPort": 5678}])])
    manifests = render(job(name="p", Scheduler=scheduler, Server=server, Worker=worker))
    env = env_of(by_name(manifests, "Pod", "p-worker-0"))
    assert env["MX_CONFIG"] == (
        '{"cluster":{"scheduler":[{"url":"p-scheduler-0","port":9000}],"server":[{"url":"p-server-0","port":9100}],'
        '"worker":[{"url":"p-worker-0","port":9091}]},"labels":{"scheduler":"","server":"","worker":""},'
        '"task":{"type":"worker","index":0}}'
    )
    assert env["DMLC_PS_ROOT_PORT"] == "9000"
    assert by_name(manifests, "Service", "p-server-0")["spec"]["ports"] == [
        {"name": "metrics", "port": 8080, "protocol": "TCP"},
        {"name": "mxjob-port", "port": 9100, "protocol": "TCP"},
    ]
    # A port with another name keeps its place and mxjob-port 9091 is appended after it (operator defaulter).
    assert by_name(manifests, "Pod", "p-worker-0")["spec"]["containers"][0]["ports"] == [
        {"name": "debug", "containerPort": 5678, "protocol": "TCP"},
        {"name": "mxjob-port", "containerPort": 9091, "protocol": "TCP"},
    ]


def test_user_env_that_collides_is_replaced_and_appended_after_user_env() -> None:
    worker = replica(
        1,
        [
            container(
                env=[{"name": "A", "value": "1"}, {"name": "DMLC_ROLE", "value": "x"}, {"name": "B", "value": "2"}]
            )
        ],
    )
    pod = by_name(render(job(name="e", Worker=worker)), "Pod", "e-worker-0")
    assert env_names(pod) == [
        "A",
        "B",
        "MX_CONFIG",
        "DMLC_PS_ROOT_PORT",
        "DMLC_PS_ROOT_URI",
        "DMLC_NUM_SERVER",
        "DMLC_NUM_WORKER",
        "DMLC_ROLE",
        "DMLC_USE_KUBERNETES",
        "DMLC_WORKER_ID",
    ]
    assert env_of(pod)["DMLC_ROLE"] == "worker"


def test_worker_id_set_by_user_on_a_server_is_kept() -> None:
    server = replica(1, [container(env=[{"name": "DMLC_WORKER_ID", "value": "7"}])])
    manifests = render(job(name="k", Scheduler=replica(1), Server=server, Worker=replica(1)))
    assert env_of(by_name(manifests, "Pod", "k-server-0"))["DMLC_WORKER_ID"] == "7"


def test_every_container_gets_the_env_but_init_containers_do_not() -> None:
    spec = replica(1, [container(), container("sidecar", "busybox")])
    spec["template"]["spec"]["initContainers"] = [container("init", "busybox")]
    pod = by_name(render(job(name="s", Worker=spec)), "Pod", "s-worker-0")
    assert env_of(pod, 1)["DMLC_ROLE"] == "worker"
    assert "env" not in pod["spec"]["initContainers"][0]


def test_mxtune_labels_key_order_and_no_scheduler_values() -> None:
    server = replica(2)
    server["template"]["metadata"] = {"annotations": {"tuner-server-key": "2080ti"}}
    manifests = render(job(name="t", mode="MXTune", TunerTracker=replica(1), TunerServer=server, Tuner=replica(1)))
    env = env_of(by_name(manifests, "Pod", "t-tuner-0"))
    assert env["MX_CONFIG"] == (
        '{"cluster":{"tuner":[{"url":"t-tuner-0","port":9091}],'
        '"tunerserver":[{"url":"t-tunerserver-0","port":9091},{"url":"t-tunerserver-1","port":9091}],'
        '"tunertracker":[{"url":"t-tunertracker-0","port":9091}]},'
        '"labels":{"tuner":"","tunerserver":"2080ti","tunertracker":""},"task":{"type":"tuner","index":0}}'
    )
    assert env["DMLC_PS_ROOT_PORT"] == "0"
    assert env["DMLC_PS_ROOT_URI"] == ""
    assert env["DMLC_NUM_SERVER"] == "0"
    assert env["DMLC_ROLE"] == "tuner"
    assert "DMLC_WORKER_ID" not in env
    assert by_name(manifests, "Service", "t-tunerserver-1")["spec"]["clusterIP"] == "None"


def test_labels_are_escaped_like_go_encoding_json() -> None:
    server = replica(1)
    server["template"]["metadata"] = {"annotations": {"tuner-server-key": 'a<b>&"c"\u2028é'}}
    manifests = render(job(name="g", mode="MXTune", TunerTracker=replica(1), TunerServer=server, Tuner=replica(1)))
    mx_config = env_of(by_name(manifests, "Pod", "g-tuner-0"))["MX_CONFIG"]
    assert '"tunerserver":"a\\u003cb\\u003e\\u0026\\"c\\"\\u2028é"' in mx_config
    assert json.loads(mx_config)["labels"]["tunerserver"] == 'a<b>&"c"\u2028é'


@pytest.mark.parametrize(
    ("policy", "pod_policy"),
    [("ExitCode", "Never"), ("Never", "Never"), ("Always", "Always"), ("OnFailure", "OnFailure")],
)
def test_pod_restart_policy(policy: str, pod_policy: str) -> None:
    pod = by_name(render(job(name="r", Worker=replica(1, restartPolicy=policy))), "Pod", "r-worker-0")
    assert pod["spec"]["restartPolicy"] == pod_policy


def test_defaults_are_written_into_the_mxjob() -> None:
    mxjob = render(job(name="d", Worker=replica()))[-1]
    assert mxjob["spec"]["mxReplicaSpecs"]["Worker"]["replicas"] == 1
    assert mxjob["spec"]["mxReplicaSpecs"]["Worker"]["restartPolicy"] == "Never"
    assert mxjob["spec"]["runPolicy"] == {"cleanPodPolicy": "None", "suspend": False}


def test_configmap_carries_cluster_spec_and_run_policy() -> None:
    spec = job(Scheduler=replica(1), Server=replica(1), Worker=replica(2, restartPolicy="ExitCode"))
    spec["spec"]["runPolicy"] = {"backoffLimit": 3, "activeDeadlineSeconds": 60, "cleanPodPolicy": "All"}
    config_map = render(spec)[0]
    cluster = json.loads(config_map["data"]["cluster.json"])
    assert WORKED_MX_CONFIG_WORKER_1.startswith(config_map["data"]["cluster.json"][:-1])
    assert set(cluster) == {"cluster", "labels"}
    job_info = json.loads(config_map["data"]["job.json"])
    assert job_info["replicaSpecs"]["Worker"] == {"replicas": 2, "restartPolicy": "ExitCode"}
    assert job_info["runPolicy"] == {
        "backoffLimit": 3,
        "activeDeadlineSeconds": 60,
        "cleanPodPolicy": "All",
        "suspend": False,
    }


def test_namespace_default_and_no_job_flag() -> None:
    manifests = render(job(name="n", Worker=replica()), options=RenderOptions(namespace="ml", include_job=False))
    assert {m["metadata"]["namespace"] for m in manifests} == {"ml"}
    assert [m["kind"] for m in manifests] == ["ConfigMap", "Service", "Pod"]


def test_zero_replicas_render_no_pods_and_an_empty_cluster_entry() -> None:
    """Every operator wrote `"server":[]` for a type with 0 replicas (genClusterSpec's `make([]UrlPort, 0, n)`)."""
    manifests = render(job(name="z", Scheduler=replica(1), Server=replica(0), Worker=replica(1)))
    env = env_of(by_name(manifests, "Pod", "z-worker-0"))
    assert env["MX_CONFIG"].startswith(
        '{"cluster":{"scheduler":[{"url":"z-scheduler-0","port":9091}],"server":[],"worker":[{"url":"z-worker-0",'
    )
    assert env["DMLC_NUM_SERVER"] == "0"
    assert not [m for m in manifests if m["metadata"]["name"].startswith("z-server")]
