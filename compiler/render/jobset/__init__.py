"""The JobSet engine (`mxjob render --engine jobset`): each MXJob as one kubernetes-sigs JobSet (docs/jobset.md)."""
