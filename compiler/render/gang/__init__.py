"""Gang scheduling: choosing and planning a gang (plan) and one module per backend (Volcano, scheduler-plugins, Kueue,
Kubernetes' own workload API).
"""
