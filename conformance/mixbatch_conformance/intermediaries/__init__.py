"""The suite through intermediaries: mitmproxy scenario addons and the mitmdump launcher.

Each scenario is one mitmproxy addon file in this package (one class, hook-named methods,
options declared in ``load`` and validated in ``configure``). ``start_mitmdump(target, name)``
runs mitmdump in reverse mode in front of a target with that addon and yields the URL to test
through; ``run_via`` is the ``--via`` glue for the suite's command line.

Transform scenarios change what RFC 9110 lets any intermediary change; a conformant server
and client pass through them. Fault scenarios break a batch on purpose; through them the suite
must report failures (the property each breaks is listed), which proves its checks still see
through a proxy.

mitmproxy itself de-pipelines, answers ``Expect: 100-continue`` on its own and rejects a message
with both Content-Length and Transfer-Encoding; a check about such things declares itself
direct only (``direct_only`` in its ``checker``), and the runner reports it not applicable
through a proxy, never as pass or fail. This package decides nothing about checks.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "FAULTS",
    "SCENARIOS",
    "TRANSFORMS",
    "Scenario",
    "scenario",
]

_HERE = Path(__file__).resolve().parent


@dataclass(frozen=True, slots=True)
class Scenario:
    """One intermediary behaviour: its addon file, kind, and what it is expected to break."""

    name: str
    module: str
    kind: str  # "transform" or "fault"
    summary: str
    #: Batch properties a correct client must see broken through this scenario (faults only).
    breaks: tuple[str, ...] = ()
    #: The client must speak TLS (and ALPN) to the proxy, trusting the run's own CA.
    tls: bool = False

    @property
    def path(self) -> Path:
        return _HERE / f"{self.module}.py"


SCENARIOS: dict[str, Scenario] = {
    s.name: s
    for s in (
        Scenario("passthrough", "passthrough", "transform", "relays every message untouched"),
        Scenario("headers", "headers", "transform", "field-name case, order, Via, X-Forwarded-*"),
        Scenario("rechunk", "rechunk", "transform", "Content-Length <-> chunked, small chunks"),
        Scenario("gzip", "gzip_coding", "transform", "adds gzip to batch responses (MB-INTER-2)"),
        Scenario("h2", "http2_client", "transform", "HTTP/2 + TLS to the client", tls=True),
        Scenario("buffering", "buffering", "transform", "whole-message buffering or streaming"),
        Scenario("slow-drip", "slow_drip", "fault", "response octets trickle in"),
        Scenario("split-delimiter", "split_delimiter", "fault", "delimiters cut across segments"),
        Scenario(
            "close-mid-part",
            "close_mid_part",
            "fault",
            "connection closes inside a part",
            breaks=("completeness",),
        ),
        Scenario(
            "drop-part",
            "drop_part",
            "fault",
            "one response part removed",
            breaks=("part-count", "order"),
        ),
        Scenario(
            "duplicate-part",
            "duplicate_part",
            "fault",
            "one response part repeated",
            breaks=("part-count", "order"),
        ),
    )
}
TRANSFORMS = tuple(n for n, s in SCENARIOS.items() if s.kind == "transform")
FAULTS = tuple(n for n, s in SCENARIOS.items() if s.kind == "fault")


def scenario(name: str) -> Scenario:
    """The scenario called ``name``; raises ValueError listing the known names."""
    try:
        return SCENARIOS[name]
    except KeyError:
        raise ValueError(
            f"unknown scenario {name!r}; known: {', '.join(SCENARIOS)}, or all, or faults"
        ) from None
