"""Every byte in and out: the input walker, Git revisions, held-back stdout, the output-directory transaction
(output_dir, dirfd, statcache), forked workers, the quiet stderr, kubeconform and in-place rewrites; and the
process around a command (startup: imports and the cyclic collector; stdstreams: escaped stderr).
"""
