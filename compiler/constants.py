"""Names and defaults fixed by the Kubeflow training operator (v1.8) that rendered objects must match exactly."""

from __future__ import annotations

from typing import Final

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

SCHEDULER: Final = "Scheduler"
SERVER: Final = "Server"
WORKER: Final = "Worker"
TUNER_TRACKER: Final = "TunerTracker"
TUNER_SERVER: Final = "TunerServer"
TUNER: Final = "Tuner"

# Rendering order: the scheduler first, as the issue and Argo CD sync waves want.
REPLICA_TYPES: Final = (SCHEDULER, SERVER, WORKER, TUNER_TRACKER, TUNER_SERVER, TUNER)
TRAIN_TYPES: Final = frozenset({SCHEDULER, SERVER, WORKER})
TUNE_TYPES: Final = frozenset({TUNER_TRACKER, TUNER_SERVER, TUNER})
CASE_NORMALISED_TYPES: Final = (SCHEDULER, SERVER, WORKER)

MX_TRAIN: Final = "MXTrain"
MX_TUNE: Final = "MXTune"

RESTART_POLICIES: Final = ("Always", "OnFailure", "Never", "ExitCode")

# Longest name Kubernetes accepts for a Service or a label value.
MAX_DNS_LABEL: Final = 63

# metadata fields the API server fills in; they have no place in Git.
SERVER_POPULATED_METADATA: Final = (
    "creationTimestamp",
    "deletionGracePeriodSeconds",
    "deletionTimestamp",
    "generation",
    "managedFields",
    "resourceVersion",
    "selfLink",
    "uid",
)
