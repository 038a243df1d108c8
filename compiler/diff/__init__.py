"""What `mxjob diff` adds: matching objects by identity, typed changes, updates the server refuses (the MXJob CRD's
rules, JobSet's), what a change restarts, and the views both sides share.
"""
