"""The MXJob API: its vocabulary, replica traits, targets, older versions converted to v1, the canonical form, defaults
and the typed job, and the one exit-code table.
"""
