"""Writers of results, one module per --format: validate/ for `mxjob validate`, diff/ for `mxjob diff`."""
