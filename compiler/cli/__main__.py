"""`python -m compiler.cli`: the same as the `mxjob` console script."""

from compiler.cli.main import main

main()
