"""What `mxjob validate` adds to a compile: rendered objects checked against Kubernetes schemas and tied back to their
sources.
"""
