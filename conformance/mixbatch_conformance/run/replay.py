"""`mixbatch conformance replay CASE_DIR`: resend a saved case and judge it again.

Theory of operation: a report saves each exchange of a non-passing check as request-N.http
(the whole request as sent) and response-N.http, with case.json (check id, seed, tier) and
target.json (the target description the run used, without credentials). Replay does two
things:
1. it resends every request-N.http unchanged, in order, each on its own connection, to the
   recorded target or to --target, and says whether each answer equals the recording once
   the volatile fields (Date, Server, ... and the target's own `volatile_headers`) are left
   out: evidence, not a verdict;
2. it runs the check again with its own judgement (same seed, same target description) and
   exits by that verdict: 0 when the check now passes (or only WARN/INFO), 1 when it still
   fails, 3 when it could not be judged (N/A, SETUP-ERROR, HARNESS-ERROR, TIMEOUT, or the
   target cannot be reached). A fix is confirmed by exit 0, whatever the Date field says.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TextIO

from mixbatch_conformance.checks import all_checks
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.core.settings import RunSettings
from mixbatch_conformance.core.target import Target, load_target, target_from_dict
from mixbatch_conformance.run.preflight import preflight
from mixbatch_conformance.run.runner import run_check
from mixbatch_conformance.transport.http import Response, exchange, split_url
from mixbatch_conformance.transport.tls import client_context

__all__ = ["describe", "replay_case", "same_but_volatile"]

EXIT_PASS, EXIT_FAIL, EXIT_CANNOT_JUDGE = 0, 1, 3


def describe(target: Target) -> dict[str, Any]:
    """The target as a description target.schema.json accepts, without its credentials."""
    resources = {k: v for k, v in target.resources.items() if k != "sandbox_collection"}
    doc: dict[str, Any] = {
        "base_url": target.base_url,
        "batch_endpoint": target.batch_endpoint,
        "resources": resources,
        "volatile_headers": list(target.volatile_headers),
        "profiles": sorted(target.profiles),
        "disposable": target.disposable,
    }
    if target.limits:
        doc["limits"] = dict(target.limits)
    sandbox = target.resources.get("sandbox_collection")
    if sandbox:
        doc["sandbox"] = {"collection": sandbox, "reads_back": target.sandbox_reads_back}
        if target.sandbox_member is not None:
            doc["sandbox"]["member"] = target.sandbox_member
    if target.batch_timeout_ms is not None:
        doc["batch_timeout_ms"] = target.batch_timeout_ms
    if target.proxy:
        proxy: dict[str, Any] = {}
        if target.proxy_origin:
            proxy["origin"] = target.proxy_origin
        if target.proxy_timeout_ms is not None:
            proxy["subrequest_timeout_ms"] = target.proxy_timeout_ms
        doc["proxy"] = proxy
    return doc


def same_but_volatile(recorded: bytes, resp: Response, volatile: tuple[str, ...]) -> bool:
    """Whether `resp` equals the recorded octets once volatile header fields are left out."""
    head, _, body = recorded.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    skip = {v.lower() for v in volatile}
    kept = [ln for ln in lines[1:] if ln.split(":", 1)[0].strip().lower() not in skip]
    now_head, _, now_body = resp.raw.partition(b"\r\n\r\n")
    now = now_head.decode("latin-1").split("\r\n")
    now_kept = [ln for ln in now[1:] if ln.split(":", 1)[0].strip().lower() not in skip]
    return lines[:1] == now[:1] and kept == now_kept and body == now_body


def _target(case_dir: Path, base_url: str | None, config: Path | None) -> Target:
    if config is not None:
        return load_target(config, base_url)
    saved = case_dir / "target.json"
    if not saved.is_file():
        raise ValueError(f"{case_dir} has no target.json: pass --config FILE")
    data = json.loads(saved.read_text(encoding="utf-8"))
    if base_url is not None:
        data["base_url"] = base_url
    return target_from_dict(data)


def replay_case(
    case_dir: Path,
    base_url: str | None,
    out: TextIO,
    *,
    config: Path | None = None,
    settings: RunSettings | None = None,
) -> int:
    """Resend a saved case, judge the check again, and return 0, 1 or 3 by its verdict."""
    meta = json.loads((case_dir / "case.json").read_text(encoding="utf-8"))
    target = _target(case_dir, base_url or meta.get("base_url"), config)
    base = settings or RunSettings()
    settings = RunSettings(
        tier=meta.get("tier", base.tier),
        seed=int(meta.get("seed", base.seed)),
        replays=0,
        timeout_s=base.timeout_s,
        insecure=base.insecure,
        ca_file=base.ca_file,
    )
    host, port, _ = split_url(target.base_url)
    tls = (
        client_context(insecure=settings.insecure, ca_file=settings.ca_file)
        if target.base_url.startswith("https://")
        else None
    )
    requests = sorted(case_dir.glob("request-*.http"), key=lambda p: int(p.stem.split("-")[1]))
    for path in requests:
        n = path.stem.split("-")[1]
        ex = exchange(host, port, path.read_bytes(), settings.timeout_s, tls)
        if ex.response is None:
            out.write(f"request-{n}: no HTTP response ({ex.error}); {len(ex.raw)} octets\n")
            continue
        recorded = case_dir / f"response-{n}.http"
        same = recorded.is_file() and same_but_volatile(
            recorded.read_bytes(), ex.response, target.volatile_headers
        )
        out.write(
            f"request-{n}: HTTP {ex.response.status} {ex.response.reason}; "
            f"{'same as' if same else 'differs from'} the recording "
            "(volatile fields left out)\n"
        )
    check_id = meta["check_id"]
    if check_id == "preflight":
        first = preflight(target, settings)
        out.write(f"preflight: {'passes' if first.ok else first.diagnosis}\n")
        return first.exit_code
    check = next((c for c in all_checks() if c.id == check_id), None)
    if check is None:
        raise ValueError(f"case.json names check {check_id!r}, which this suite does not have")
    ctx = Context(target, settings)
    try:
        result = run_check(check, ctx)
    finally:
        ctx.clean_up()
    out.write(f"{check.id}: {result.verdict.value} {result.message}\n")
    if result.verdict in (Verdict.PASS, Verdict.WARN, Verdict.INFO):
        return EXIT_PASS
    if result.verdict.failing:
        return EXIT_FAIL
    return EXIT_CANNOT_JUDGE
