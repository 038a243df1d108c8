"""mxjob-gitops reconciler: turns pod exit codes into MXJob status and restarts (see issue: mxjob reconcile)."""
