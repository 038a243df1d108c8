"""Every check of one input object: the MXJob schema and semantic rules, object names and identity; kubevalidate/ holds
the API server's own rules, offline.
"""
