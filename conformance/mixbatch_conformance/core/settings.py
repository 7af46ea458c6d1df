"""Run settings: what one run of the suite was asked to do, fixed before the first check.

Theory of operation: the command line and the pytest plugin each build one `RunSettings` and
hand it to the `Context`; checks read it (the property checks their example budget and seed,
the proxy checks the baseline origin) and the runner reads it (a direct-only check is N/A
when `via` names an intermediary). It is frozen and validated when built, so a check cannot
change what a later check sees, and a bad value is reported with the argument that held it.
The target itself is a separate value (`Target`); what the suite learns about it during a
run (its capabilities document) is cached on the `Context`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mixbatch_conformance.core.variants import VARIANTS

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "MAX_CONSECUTIVE_TIMEOUTS",
    "MAX_TIMEOUTS_WHILE_ANSWERING",
    "TIERS",
    "RunSettings",
]

#: The tiers, shallowest first; a tier runs its own checks and every shallower tier's.
TIERS = ("smoke", "standard", "deep")
#: Seconds one request may wait for its response: far above any check's own delays (the
#: longest, batch-abort-after-timeout, waits out a declared batch limit of a few seconds),
#: short enough that a silent server costs seconds, not the hour 180 checks x 20 s would.
DEFAULT_TIMEOUT_S = 10.0
#: Checks in a row that time out before the run stops as "the target stopped answering":
#: one can be a slow handler, three in a row is a server that no longer answers.
MAX_CONSECUTIVE_TIMEOUTS = 3
#: TIMEOUT verdicts a run takes in all from a target that still answers a one-part batch after
#: each such row: a server that stalls only on some batches (many safe parts, say) is still
#: judged by the checks after them, and a run against it costs minutes, not hours.
MAX_TIMEOUTS_WHILE_ANSWERING = 30


@dataclass(frozen=True, slots=True)
class RunSettings:
    """Settings of one run; the defaults are those of a standard run with seed 0."""

    #: How deep the run tests; the property checks take their example budget from it.
    tier: str = "standard"
    #: The hypothesis seed of the property checks (printed, so a run can be repeated).
    seed: int = 0
    #: Deep tier: seconds each property check may spend on fresh rounds.
    property_budget_s: float = 0.0
    #: How many times a failing check is run again to tell FLAKY from DETERMINISTIC.
    replays: int = 3
    #: Where standalone comparison requests go: the origin behind an intermediary under
    #: --via, which treats a batch as opaque (MB-INTER-1) but may add fields to plain requests.
    baseline_url: str | None = None
    #: The intermediary scenario the run goes through (--via), None when it talks direct.
    via: str | None = None
    #: Where the reports are written, None for no reports.
    report_dir: Path | None = None
    #: Seconds each request may wait for its response (--timeout).
    timeout_s: float = DEFAULT_TIMEOUT_S
    #: After this many TIMEOUT verdicts in a row the remaining checks are not run.
    max_consecutive_timeouts: int = MAX_CONSECUTIVE_TIMEOUTS
    #: TIMEOUT verdicts in all after which the run stops even if the target still answers.
    max_timeouts_while_answering: int = MAX_TIMEOUTS_WHILE_ANSWERING
    #: Run only checks that change nothing on the target (--read-only).
    read_only: bool = False
    #: https targets: skip certificate verification (--insecure).
    insecure: bool = False
    #: https targets: a PEM file of certificates to trust as well (--ca-file).
    ca_file: Path | None = None
    #: Send the checks' requests to the target over HTTP/2 (--http2; transport.h2).
    http2: bool = False
    #: Send every request on a connection of its own (--fresh-connections), for a target
    #: behind something that cannot keep connections; by default a check's plainly framed
    #: requests share kept connections (transport.connections).
    fresh_connections: bool = False
    #: A broken SHOULD fails the run (exit 1) instead of being a WARN it passes with (--strict).
    strict: bool = False
    #: Which batch requests go rewritten in a form HTTP makes equivalent (core.variants):
    #: "off", "mixed" (a seeded half of them, each in one of the variants), or one variant's
    #: name (every request it applies to). The command line runs "mixed" above the smoke tier.
    request_variants: str = "off"

    def __post_init__(self) -> None:
        if self.tier not in TIERS:
            raise ValueError(f"tier must be one of {TIERS}, got {self.tier!r}")
        if self.seed < 0:
            raise ValueError(f"seed must be >= 0, got {self.seed!r}")
        if self.property_budget_s < 0:
            raise ValueError(f"property_budget_s must be >= 0, got {self.property_budget_s!r}")
        if self.replays < 0:
            raise ValueError(f"replays must be >= 0, got {self.replays!r}")
        if not self.timeout_s > 0:
            raise ValueError(f"timeout_s must be > 0, got {self.timeout_s!r}")
        if self.request_variants not in ("off", "mixed", *VARIANTS):
            raise ValueError(
                f"request_variants must be off, mixed or one of {VARIANTS}, "
                f"got {self.request_variants!r}"
            )
        if self.max_consecutive_timeouts < 1:
            raise ValueError(
                f"max_consecutive_timeouts must be >= 1, got {self.max_consecutive_timeouts!r}"
            )
