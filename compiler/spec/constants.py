"""Names and defaults fixed by the Kubeflow training operator (v1.8) that rendered objects must match exactly."""

from __future__ import annotations

from typing import Final

from mxjob_gitops.compiler.spec.replicas import TRAITS, JobMode, ReplicaType, types_of

GROUP: Final = "kubeflow.org"
API_VERSION: Final = "kubeflow.org/v1"
KIND: Final = "MXJob"

DEFAULT_CONTAINER: Final = "mxnet"
DEFAULT_PORT_NAME: Final = "mxjob-port"
DEFAULT_PORT: Final = 9091
DEFAULT_RESTART_POLICY: Final = "Never"
DEFAULT_CLEAN_POD_POLICY: Final = "None"
TUNER_SERVER_KEY: Final = "tuner-server-key"

OPERATOR_NAME: Final = "mxjob-controller"
LABEL_OPERATOR_NAME: Final = "training.kubeflow.org/operator-name"
LABEL_JOB_NAME: Final = "training.kubeflow.org/job-name"
LABEL_REPLICA_TYPE: Final = "training.kubeflow.org/replica-type"
LABEL_REPLICA_INDEX: Final = "training.kubeflow.org/replica-index"
LABEL_JOB_ROLE: Final = "training.kubeflow.org/job-role"

# Our own annotations and the ConfigMap that carries the cluster spec and run policy.
CONFIGMAP_SUFFIX: Final = "-mxjob-config"
ANNOTATION_PREFIX: Final = "mxjob.kubeflow.org/"
# The ConfigMap's key holding the job's policies, and inside it the record of the render options.
CONFIG_JOB_KEY: Final = "job.json"
CONFIG_RENDER_KEY: Final = "render"

# Replica types and job modes as the plain strings specs hold; their traits are in compiler.replicas.
SCHEDULER: Final = ReplicaType.SCHEDULER.value
SERVER: Final = ReplicaType.SERVER.value
WORKER: Final = ReplicaType.WORKER.value
TUNER_TRACKER: Final = ReplicaType.TUNER_TRACKER.value
TUNER_SERVER: Final = ReplicaType.TUNER_SERVER.value
TUNER: Final = ReplicaType.TUNER.value

# Rendering order: the rendezvous first.
REPLICA_TYPES: Final = tuple(t.value for t in ReplicaType)
TRAIN_TYPES: Final = frozenset(types_of(JobMode.TRAIN))
TUNE_TYPES: Final = frozenset(types_of(JobMode.TUNE))
CASE_NORMALISED_TYPES: Final = tuple(t for t in REPLICA_TYPES if TRAITS[t].any_case)

MX_TRAIN: Final = JobMode.TRAIN.value
MX_TUNE: Final = JobMode.TUNE.value

RESTART_POLICIES: Final = ("Always", "OnFailure", "Never", "ExitCode")

# Longest name Kubernetes accepts for a Service or a label value.
MAX_DNS_LABEL: Final = 63

# metadata fields the API server fills in; they have no place in Git.
# Written by the API server, never by a user; all appear in a `kubectl get -o yaml` export. clusterName (always
# "") was in ObjectMeta until Kubernetes 1.25 (kubernetes#108717); initializers until 1.14.
SERVER_POPULATED_METADATA: Final = (
    "clusterName",
    "creationTimestamp",
    "deletionGracePeriodSeconds",
    "deletionTimestamp",
    "generation",
    "initializers",
    "managedFields",
    "resourceVersion",
    "selfLink",
    "uid",
)
