"""What `mxjob diff` adds: matching objects by identity, typed changes, updates the server refuses, and the views both
sides share.
"""
