"""The floor every room stands on: diagnostics as values, escaping, ASCII numbers, quantities, the limits and the run
budget, and the fan-out runner protocol.
"""
