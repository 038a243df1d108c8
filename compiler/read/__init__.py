"""Text to documents that remember their lines, read as kubectl reads them: the exact reader (source, goloader,
goscalar) and, beside it, the fast reader (fastread, docsplit) with shared and read-ahead parsing.
"""
