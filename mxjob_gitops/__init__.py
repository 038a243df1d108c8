"""mxjob-gitops: MXJob specs rendered for GitOps (`mxjob_gitops.compiler`) and a small reconciler (`.reconciler`)."""
