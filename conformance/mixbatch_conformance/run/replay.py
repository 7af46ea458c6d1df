"""`mixbatch conformance replay CASE_DIR`: resend the stored request octets unchanged.

Theory of operation: a report saves each exchange of a non-passing check as
request-N.http (the whole request as sent). Replay sends every request-N.http of the case,
in order, each on its own connection, to the recorded target or to --target (the Host
field is left as recorded: the bytes are the evidence), and prints each response's status
line and whether its octets equal the recorded response-N.http.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TextIO

from mixbatch_conformance.transport.http import exchange, split_url

__all__ = ["replay_case"]


def replay_case(case_dir: Path, base_url: str | None, out: TextIO) -> int:
    """Replay a saved case; 0 when every request got a response, 1 when some did not."""
    meta = json.loads((case_dir / "case.json").read_text(encoding="utf-8"))
    url = base_url or meta["base_url"]
    host, port, _ = split_url(url)
    requests = sorted(case_dir.glob("request-*.http"), key=lambda p: int(p.stem.split("-")[1]))
    if not requests:
        raise ValueError(f"{case_dir} holds no request-N.http file")
    missing = 0
    for path in requests:
        n = path.stem.split("-")[1]
        ex = exchange(host, port, path.read_bytes())
        if ex.response is None:
            missing += 1
            out.write(f"request-{n}: no response ({ex.error})\n")
            continue
        recorded = case_dir / f"response-{n}.http"
        same = recorded.is_file() and recorded.read_bytes() == ex.response.raw
        out.write(
            f"request-{n}: HTTP {ex.response.status} {ex.response.reason}; "
            f"{len(ex.response.raw)} octets; {'identical to' if same else 'differs from'} the recording\n"
        )
        first_line = ex.response.body[:300].decode("latin-1", "replace")
        out.write(f"  {first_line!r}\n")
    return 1 if missing else 0
