"""One compiled job to manifests to bytes: the options, the cluster spec, the pods engine, gang scheduling (gang/),
decorations (decorations/), the JobSet engine (jobset/) and the emitter.
"""
