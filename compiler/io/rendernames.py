"""The names of the files `render -o` keeps for itself in its output directory.

Kept apart from the writer (io/output_dir.py) so that the readers that only need to recognise a rendering, the
walk and the Git readers, do not load the writer on a render to stdout.
"""

from __future__ import annotations

INDEX = ".mxjob-render.index"
JOURNAL = ".mxjob-render.journal"
STAGING = ".mxjob-render.staging"
