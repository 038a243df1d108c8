"""Many documents to a plan: compile one job (job), check object after object (checker), the diff's compile memo
(jobcache), the whole-document compile (documents) and the streamed render (stream).
"""
