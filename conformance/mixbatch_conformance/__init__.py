"""mixbatch_conformance: the mixbatch conformance suite.

Point it at any server (`mixbatch conformance --target URL`), or at nothing to test the
embedded reference server. Checks are data plus predicates with stable ids tied to the
requirement IDs of spec/requirements.json. The folders are the layers, each importing only
those below it (pyproject.toml's import contracts hold them to that):

    cli, pytest_plugin    the two front ends
    run, intermediaries   a whole run, reports, the self-test; the --via proxy scenarios
    checks                one module per spec topic, discovered, never listed
    core                  requirements, the check model, Judge, target, settings, context
    transport             raw-socket HTTP client, relay, embedded reference server

This package never imports the reference codec: it judges responses with its own reader
(core.validator) and talks HTTP over raw sockets (transport.http).
"""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"
