"""The floor every room stands on: diagnostics as values, escaping, ASCII numbers, quantities, the limits and the run
budget, the fan-out runner protocol, the fast-path switch, and the run context that holds a command's budget,
switch, runner and notes sink (run.py).
"""
