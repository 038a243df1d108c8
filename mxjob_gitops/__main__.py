"""`python -m mxjob_gitops`: the same as the `mxjob` console script."""

from mxjob_gitops.compiler.cli.main import main

main()
