"""The `mxjob` command line: the only part of the compiler package that touches files, stdin and stdout."""
