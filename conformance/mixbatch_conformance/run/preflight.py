"""The preflight: a few seconds that tell whether the target can be tested at all.

Theory of operation: before any check runs, the suite sends one one-part batch (a GET of the
declared `ok` resource, or OPTIONS / when no target file names one yet) to the batch
endpoint, with a short timeout, and reads what comes back:
- no TCP connection, a failed TLS handshake, no answer in time, or the connection closed
  without a byte: the target cannot be tested (exit 3);
- an HTTP answer that is not a batch response (200 multipart/mixed): wrong endpoint, missing
  credentials, or no batch support; the target cannot be tested as described (exit 3);
- octets that are not an HTTP/1.1 response at all: a FAIL of MB-STATUS-1 (a well-formed
  batch is answered 200), with the octets kept (exit 1);
- a 400 or a 5xx other than 503 whose problem document names one of the spec's requirements:
  the endpoint is a batch endpoint (it speaks the spec's refusals) and it refused a well-formed
  batch, a FAIL of MB-STATUS-1; the run goes on, since the other checks send other batches.
Each outcome is one `Preflight` with a one-line diagnosis saying what was sent, what came
back and what to check in the target file; `as_result` makes it a report entry, so that the
request and response octets are saved like any failing check's.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge, Verdict
from mixbatch_conformance.core.registry import BOTH_ROLES, Check, State
from mixbatch_conformance.core.settings import RunSettings
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.runner import CheckResult
from mixbatch_conformance.transport.http import Exchange, Response, TargetUnreachable, pipeline
from mixbatch_conformance.transport.tls import TlsFailure

__all__ = ["PREFLIGHT", "PREFLIGHT_TIMEOUT_S", "Preflight", "preflight"]

#: At most this many seconds for the preflight's answer (or the run's --timeout if shorter):
#: a batch of one GET takes milliseconds on any server that answers batches at all.
PREFLIGHT_TIMEOUT_S = 5.0
BOUNDARY = "mb-preflight-7f3a9c2e5b1d4086"
#: Statuses that say "no batch endpoint here" rather than "a batch endpoint that misbehaves".
_NO_ENDPOINT = {
    404: "no resource there",
    405: "POST not allowed there",
    501: "POST not implemented",
}

EXIT_OK, EXIT_NONCONFORMANT, EXIT_CANNOT_TEST = 0, 1, 3
#: A requirement ID as the spec's index spells them (MB-AREA-N).
_REQUIREMENT_ID = re.compile(r"MB-[A-Z]+-[0-9]+")


def _never(ctx: Context, judge: Judge) -> None:
    raise AssertionError("the preflight is run by run.preflight, not as a check")


#: The report entry the preflight appears as when it stops the run.
PREFLIGHT = Check(
    "preflight",
    ("MB-STATUS-1",),
    "core",
    "smoke",
    "The batch endpoint answers a one-part batch with 200 multipart/mixed.",
    _never,
    state=State.READ_ONLY,
    roles=BOTH_ROLES,
)


@dataclass
class Preflight:
    """What the preflight found: `exit_code` 0 means the run can go on."""

    exit_code: int
    diagnosis: str
    exchanges: list[Exchange] = field(default_factory=list)
    #: The finding is a FAIL, and the checks still run (a batch endpoint that refused it).
    goes_on: bool = False

    @property
    def ok(self) -> bool:
        return self.exit_code == EXIT_OK

    def as_result(self) -> CheckResult:
        judge = Judge("MB-STATUS-1")
        judge.exchanges.extend(self.exchanges)
        if self.goes_on:
            # MB-STATUS-1: a well-formed batch is answered 200.
            judge.expect_true(
                "status of a well-formed one-part batch",
                False,
                self.diagnosis,
                "200 with multipart/mixed content",
            )
            return CheckResult(PREFLIGHT, Verdict.FAIL, self.diagnosis, judge, 0.0)
        if self.exit_code == EXIT_NONCONFORMANT:
            judge.expect_true(
                "response is HTTP/1.1",
                False,
                self.diagnosis,
                "an HTTP/1.1 response with status 200 (RFC 9112 section 4)",
            )
            return CheckResult(PREFLIGHT, Verdict.FAIL, self.diagnosis, judge, 0.0)
        return CheckResult(PREFLIGHT, Verdict.SETUP_ERROR, self.diagnosis, judge, 0.0)


def preflight(target: Target, settings: RunSettings) -> Preflight:
    """Send the one-part batch and judge whether the run can go on."""
    ctx = Context(target, settings)
    timeout = min(PREFLIGHT_TIMEOUT_S, settings.timeout_s)
    ok = target.resource("ok")
    part = SubRequest("GET", ctx.path(ok)) if ok else SubRequest("OPTIONS", "/")
    body = compose_batch([part], BOUNDARY)
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    request = ctx.raw_request("POST", ctx.batch_path, head, body)
    sent = f"a one-part batch (POST {ctx.batch_path} with {part.method} {part.target})"
    where = f"{ctx.host}:{ctx.port}"
    try:
        [ex] = pipeline(ctx.host, ctx.port, [request], timeout, ctx.tls)
    except TlsFailure as exc:
        return Preflight(EXIT_CANNOT_TEST, str(exc), [Exchange(request, None, str(exc))])
    except TargetUnreachable as exc:
        why = f"{exc}; is the server running, and is base_url right?"
        return Preflight(EXIT_CANNOT_TEST, why, [Exchange(request, None, why)])
    except TimeoutError:
        why = f"no TCP connection to {where} within {timeout:g} s"
        return Preflight(EXIT_CANNOT_TEST, why, [Exchange(request, None, why)])
    except OSError as exc:
        why = f"cannot reach {where}: {exc}"
        return Preflight(EXIT_CANNOT_TEST, why, [Exchange(request, None, why)])
    resp = ex.response
    if resp is None:
        if ex.raw.startswith(b"\x15\x03"):
            return Preflight(
                EXIT_CANNOT_TEST,
                f"sent {sent} as plain HTTP; {where} answered with a TLS alert: use https://",
                [ex],
            )
        if ex.raw:
            return Preflight(
                EXIT_NONCONFORMANT,
                f"sent {sent}; got {len(ex.raw)} octets that are not an HTTP/1.1 response: "
                f"{ex.raw[:60]!r}",
                [ex],
            )
        if (ex.error or "").startswith("TimeoutError"):
            return Preflight(
                EXIT_CANNOT_TEST,
                f"sent {sent}; no response within {timeout:g} s: {where} accepts connections "
                "but does not answer (raise --timeout if it is only slow)",
                [ex],
            )
        return Preflight(
            EXIT_CANNOT_TEST, f"sent {sent}; the connection closed without a response", [ex]
        )
    got = f"{resp.status} {resp.reason}".strip() + (
        f" ({resp.media_type})" if resp.media_type else ""
    )
    if 200 <= resp.status < 300 and resp.media_type == "multipart/mixed":
        # A multipart answer with another 2xx (207, say) is a batch endpoint answering with the
        # wrong status: the checks judge it (MB-STATUS-1, MB-MULTI-2), the run goes on.
        return Preflight(EXIT_OK, f"sent {sent}; answered {got}", [ex])
    named = _named_requirement(resp)
    if named is not None and (
        resp.status == 400 or (500 <= resp.status <= 599 and resp.status != 503)
    ):
        return Preflight(
            EXIT_NONCONFORMANT,
            f"sent {sent}; it answered {got} naming {named}: a batch endpoint refused a "
            "well-formed batch, which MB-STATUS-1 answers 200; the other checks still run",
            [ex],
            goes_on=True,
        )
    if resp.status in _NO_ENDPOINT:
        hint = (
            f"{_NO_ENDPOINT[resp.status]}: is batch_endpoint ({target.batch_endpoint!r}) right, "
            "and does the server support batches?"
        )
    elif resp.status in (401, 403, 407):
        hint = "the server wants credentials: add them under credentials.headers in the target file"
    elif resp.status in (301, 302, 307, 308):
        hint = f"it redirects to {resp.get('Location')!r}: point base_url or batch_endpoint there"
    else:
        hint = (
            "not a batch response (200 multipart/mixed): check batch_endpoint and that the ok "
            f"resource ({ok or 'none declared'}) answers GET with 200"
        )
    return Preflight(EXIT_CANNOT_TEST, f"sent {sent}; it answered {got}; {hint}", [ex])


def _named_requirement(resp: Response) -> str | None:
    """The requirement a problem document names (`requirement`, an ID of this spec's form),
    or None when the answer is no such document."""
    if resp.media_type != "application/problem+json":
        return None
    try:
        doc = json.loads(resp.body)
    except ValueError:
        return None
    named = doc.get("requirement") if isinstance(doc, dict) else None
    return named if isinstance(named, str) and _REQUIREMENT_ID.fullmatch(named) else None
