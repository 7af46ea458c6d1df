"""Settings every test shares.

Hypothesis's per-example deadline is a timed assertion: on a loaded machine (three pytest
workers a core, most of them waiting on servers) an example that takes 23 ms alone can take
600 ms, and the test would fail for the machine, not the code. Time is measured in bench/, so
no test carries a deadline.
"""

from __future__ import annotations

from hypothesis import settings

settings.register_profile("mixbatch", deadline=None)
settings.load_profile("mixbatch")
