"""Running the suite: the runner and its verdicts, the whole run (`suite`), which target to
test (`targets`, `discover`), reports and the live display, replaying a recorded case, and the
self-test that plants bugs (`mutations`, `selftest`). It sits above `checks` and `core`; the
command line and the pytest plugin sit above it.
"""
