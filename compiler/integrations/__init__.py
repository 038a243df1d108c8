"""Health checks for GitOps engines (Argo CD Lua, Flux CEL) and the snippets `mxjob integrations` prints."""
