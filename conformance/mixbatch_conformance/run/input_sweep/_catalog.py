"""What the sweep may leave unnoticed, and the inputs the spec gives a server a rule for.

`UNSWEPT` names slots a server may ignore without breaking the spec, each with the spec's
reason. `SPEC_INPUTS` is the curated list of inputs the spec names, each with the server
requirement (one whose roles include the server) that gives a server a rule for it; `never_sent`
is the part of it no check sends. `_requirements` gives every other slot its requirement.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase

__all__ = ["SPEC_INPUTS", "UNSWEPT", "SpecInput", "never_sent", "unswept_reason"]

#: Slots no check need notice when a server ignores them, with the reason. A key with `*`
#: covers every slot it matches (fnmatch) except those `SPEC_INPUTS` names.
UNSWEPT: dict[str, str] = {
    "top-field:*": (
        "MB-SUB-6: 'A server MUST NOT apply any other header field of the batch request to a "
        "sub-request'; the spec gives the batch request's other fields no rule"
    ),
    "prefer:*": (
        "RFC 7240 §2 lets a server ignore a preference it does not support; mixbatch defines "
        "only batch-on-error (MB-PROC-6), and MB-SUB-6 keeps the others from the parts"
    ),
    "part-field:content-length*": (
        "a part's Content-Length, when right, says what the delimiters say (MB-WIRE-16), so "
        "ignoring it frames the same part; a wrong one (MB-WIRE-17, MB-WIRE-20) makes a "
        "malformed batch, which the sweep does not edit"
    ),
    "top-method:GET": (
        "MB-METHOD-2: the endpoint need not support GET; unsupported, it is answered 405 "
        "like any method the endpoint does not support"
    ),
    "top-method:PUT": "MB-METHOD-2: answered 405 like any method the endpoint does not support",
    "top-method:DELETE": "MB-METHOD-2: answered 405 like any method the endpoint does not support",
    "top-method:PATCH": "MB-METHOD-2: answered 405 like any method the endpoint does not support",
    "top-method:HEAD": (
        "MB-METHOD-2: the endpoint need not support HEAD; unsupported, it is answered 405 like "
        "any method the endpoint does not support"
    ),
    "top-method:TRACE": "MB-METHOD-2: answered 405 like any method the endpoint does not support",
    "top-method:[a-z]*": (
        "a method in another case is another method (RFC 9110 §9.1: 'The method token is "
        "case-sensitive'); the sweep's plant upper-cases it to one the endpoint refuses as well "
        "(MB-METHOD-2: 405 or 501), so a server that reads it either way answers alike"
    ),
    **{
        f"part-field:{name}{case}": (
            "a field a receiver could take for a target, sent only beside a missing Content-Id: "
            "the part is refused for the missing Content-Id whatever the field says (MB-PART-4), "
            "so a server that ignores the field answers alike"
        )
        for name in (
            "content-base",
            "content-id-x",
            "content_id",
            "contentid",
            "http-target",
            "location",
            "message-id",
        )
        for case in ("", "@name-case")
    },
    "part-field:content-length": (
        "a part's Content-Length, when right, says what the delimiters say (MB-WIRE-16) and the "
        "sub-request's length is the body's whether or not the part carries it (MB-PART-13); "
        "only a wrong one breaks a rule (MB-WIRE-17), which the malformed-batch vectors send; "
        "the part's own field line is the sub-request's too (MB-PART-8), which shows only "
        "through an echo that lists a received Content-Length, and the reference server's "
        "lists none (MB-TEST-2 lets it leave the field out)"
    ),
}


def unswept_reason(slot: object) -> str | None:
    """Why `slot` may go unnoticed, or None."""
    name = str(slot)
    if name in UNSWEPT:
        return UNSWEPT[name]
    if name in {i.slot for i in SPEC_INPUTS}:
        return None
    for pattern, reason in UNSWEPT.items():
        if "*" in pattern and fnmatchcase(name, pattern):
            return reason
    return None


@dataclass(frozen=True)
class SpecInput:
    """An input the spec gives a server a rule for, as the slot it would be recorded as."""

    slot: str
    requirement: str
    rule: str


#: The rule of a part's method: the same request sent alone has it, octet for octet (3.2.4).
SAME_METHOD = "the sub-request has the part's method, as the same request sent alone (3.2.4)"

#: The inputs the spec gives a server a rule for, as slots, with the requirement that does.
SPEC_INPUTS: tuple[SpecInput, ...] = (
    SpecInput(
        "top-field:content-type",
        "MB-WIRE-2",
        "a batch whose media type is not multipart/mixed is answered 415",
    ),
    SpecInput(
        "envelope@quoted-boundary",
        "MB-WIRE-4",
        "a boundary is accepted whether spelled as a token or a quoted-string",
    ),
    SpecInput("envelope@preamble", "MB-WIRE-9", "a receiver ignores the preamble"),
    SpecInput("envelope@epilogue", "MB-WIRE-9", "a receiver ignores the epilogue"),
    SpecInput("envelope@padding", "MB-WIRE-11", "transport padding after a delimiter is accepted"),
    SpecInput(
        "envelope@chunked",
        "MB-INTER-5",
        "chunked batch content is answered as the same content framed by Content-Length",
    ),
    SpecInput(
        "top-field:content-encoding",
        "MB-INTER-6",
        "a batch in a content coding the server does not support is answered 415 before any part runs",
    ),
    SpecInput(
        "top-method:GET", "MB-METHOD-3", "a GET to a batch endpoint with content is answered 400"
    ),
    SpecInput(
        "top-method:OPTIONS",
        "MB-LIMIT-2",
        "OPTIONS on a batch endpoint answers the capabilities document",
    ),
    SpecInput(
        "top-method:PUT",
        "MB-METHOD-2",
        "a method the endpoint does not support is answered 405 with Allow",
    ),
    SpecInput(
        "top-method:DELETE",
        "MB-METHOD-2",
        "a method the endpoint does not support is answered 405 with Allow",
    ),
    SpecInput(
        "top-field:accept", "MB-MULTI-1", "the representation of a batch result is chosen by Accept"
    ),
    SpecInput(
        "top-field:accept@list",
        "MB-MULTI-1",
        "multipart/mixed is chosen when its quality is at least any other's",
    ),
    SpecInput(
        "top-field:prefer",
        "MB-PROC-6",
        "Prefer: batch-on-error=stop stops after the first failing part",
    ),
    SpecInput(
        "prefer:batch-on-error",
        "MB-PROC-6",
        "a server honouring batch-on-error=stop skips every part after the first failing one",
    ),
    SpecInput(
        "top-field:prefer@list", "MB-PROC-6", "batch-on-error is read among other preferences"
    ),
    SpecInput(
        "top-field:prefer@repeated", "MB-PROC-6", "batch-on-error is read on any Prefer line"
    ),
    SpecInput(
        "top-field:batch-mode",
        "MB-PROC-12",
        "a Batch-Mode the server does not implement is answered 501",
    ),
    SpecInput(
        "top-field:batch-mode@list",
        "MB-PROC-17",
        "Batch-Mode is read as a comma-separated list of modes",
    ),
    SpecInput(
        "top-field:batch-mode@repeated",
        "MB-PROC-17",
        "Batch-Mode is a list field: several lines are one list",
    ),
    SpecInput(
        "top-field:authorization",
        "MB-SUB-5",
        "the batch's Authorization applies to parts without their own",
    ),
    SpecInput(
        "top-field:cookie", "MB-SUB-5", "the batch's Cookie applies to parts without their own"
    ),
    SpecInput(
        "top-field:content-type@name-case",
        "MB-WIRE-2",
        "field names are case-insensitive (RFC 9110 §5.1)",
    ),
    SpecInput(
        "top-field:prefer@name-case",
        "MB-PROC-6",
        "field names are case-insensitive (RFC 9110 §5.1)",
    ),
    SpecInput(
        "top-field:batch-mode@name-case",
        "MB-PROC-17",
        "field names are case-insensitive (RFC 9110 §5.1)",
    ),
    SpecInput(
        "top-field:authorization@name-case",
        "MB-SUB-5",
        "field names are case-insensitive (RFC 9110 §5.1)",
    ),
    SpecInput(
        "top-field:accept@name-case",
        "MB-MULTI-1",
        "field names are case-insensitive (RFC 9110 §5.1)",
    ),
    SpecInput(
        "part-field:http-method",
        "MB-PART-2",
        "a part without exactly one Http-Method token is answered 400",
    ),
    SpecInput(
        "part-field:http-method@repeated",
        "MB-PART-2",
        "a part with more than one Http-Method is answered 400",
    ),
    SpecInput(
        "part-field:http-method@name-case",
        "MB-PART-2",
        "http-method and HTTP-METHOD name the same field (3.2.1)",
    ),
    SpecInput(
        "part-field:content-id",
        "MB-PART-4",
        "a part without exactly one Content-Id is answered 400",
    ),
    SpecInput(
        "part-field:content-id@repeated",
        "MB-PART-4",
        "a part with more than one Content-Id is answered 400",
    ),
    SpecInput(
        "part-field:content-id@ows", "MB-PART-4", "optional whitespace around <...> is allowed"
    ),
    SpecInput("part-field:content-id@name-case", "MB-PART-4", "field names are case-insensitive"),
    SpecInput(
        "part-field:content-length",
        "MB-WIRE-17",
        "a part whose Content-Length differs from its body is answered 400",
    ),
    SpecInput(
        "part-field:content-length@repeated",
        "MB-WIRE-20",
        "a part with two Content-Length lines is answered 400",
    ),
    SpecInput(
        "part-field:content-type",
        "MB-PART-8",
        "a part's other fields are the sub-request's fields, in order",
    ),
    SpecInput("part-field:content-type@name-case", "MB-PART-8", "field names are case-insensitive"),
    SpecInput(
        "part-field:accept@repeated",
        "MB-PART-8",
        "a part's fields pass in order, every line of them",
    ),
    SpecInput(
        "part-field:content-type@ows",
        "MB-PART-8",
        "a field-line may carry OWS around its value (RFC 9110 §5.5), and the field still passes",
    ),
    SpecInput(
        "part-field:authorization", "MB-SUB-5", "a part's own Authorization wins over the batch's"
    ),
    SpecInput("part-field:cookie", "MB-SUB-5", "a part's own Cookie wins over the batch's"),
    SpecInput(
        "part-field:if-match",
        "MB-PROC-9",
        "a part's If-Match is evaluated as for the request alone",
    ),
    SpecInput(
        "part-field:if-match@list", "MB-PROC-9", "each entity-tag of an If-Match list is compared"
    ),
    SpecInput(
        "part-field:if-none-match",
        "MB-PROC-9",
        "a part's If-None-Match is evaluated as for the request alone",
    ),
    SpecInput(
        "part-field:if-none-match@list",
        "MB-PROC-9",
        "each entity-tag of an If-None-Match list is compared",
    ),
    SpecInput(
        "part-field:if-modified-since",
        "MB-PROC-9",
        "a part's If-Modified-Since is evaluated as for the request alone",
    ),
    SpecInput(
        "part-field:if-unmodified-since",
        "MB-PROC-9",
        "a part's If-Unmodified-Since is evaluated as for the request alone",
    ),
    SpecInput(
        "part-field:if-unmodified-since@name-case",
        "MB-PROC-9",
        "a precondition is read whatever the case of its name",
    ),
    SpecInput(
        "part-field:if-range",
        "MB-PART-8",
        # If-Range without Range changes nothing (RFC 9110 §13.1.5), and a resource
        # that serves no ranges ignores it: dropping it breaks only the field's passage.
        "a part's If-Range reaches its sub-request like any other field",
    ),
    SpecInput(
        "part-field:if-match@name-case",
        "MB-PROC-9",
        "a precondition is read whatever the case of its name",
    ),
    SpecInput(
        "part-field:connection",
        "MB-PART-10",
        "a part carrying a field MB-PART-9 forbids is answered 400",
    ),
    SpecInput(
        "part-field:keep-alive",
        "MB-PART-10",
        "a part carrying a field MB-PART-9 forbids is answered 400",
    ),
    SpecInput(
        "part-field:proxy-connection",
        "MB-PART-10",
        "a part carrying a field MB-PART-9 forbids is answered 400",
    ),
    SpecInput(
        "part-field:te", "MB-PART-10", "a part carrying a field MB-PART-9 forbids is answered 400"
    ),
    SpecInput(
        "part-field:transfer-encoding",
        "MB-PART-10",
        "a part carrying a field MB-PART-9 forbids is answered 400",
    ),
    SpecInput(
        "part-field:upgrade",
        "MB-PART-10",
        "a part carrying a field MB-PART-9 forbids is answered 400",
    ),
    SpecInput(
        "part-field:expect",
        "MB-PART-10",
        "a part carrying a field MB-PART-9 forbids is answered 400",
    ),
    SpecInput(
        "part-field:host", "MB-PART-10", "a part carrying a field MB-PART-9 forbids is answered 400"
    ),
    SpecInput(
        "part-field:trailer",
        "MB-PART-10",
        "a part carrying a field MB-PART-9 forbids is answered 400",
    ),
    SpecInput(
        "part-field:content-transfer-encoding",
        "MB-PART-10",
        "a part carrying a field MB-PART-9 forbids is answered 400",
    ),
    SpecInput(
        "part-field:http-status-code",
        "MB-PART-10",
        "a part carrying a field MB-PART-9 forbids is answered 400",
    ),
    SpecInput(
        "part-field:host@name-case",
        "MB-PART-10",
        "a forbidden field is refused whatever the case of its name",
    ),
    SpecInput("part-method:GET", "MB-SUB-1", SAME_METHOD),
    SpecInput("part-method:HEAD", "MB-SUB-1", SAME_METHOD),
    SpecInput("part-method:POST", "MB-SUB-1", SAME_METHOD),
    SpecInput("part-method:PUT", "MB-SUB-1", SAME_METHOD),
    SpecInput("part-method:DELETE", "MB-SUB-1", SAME_METHOD),
    SpecInput("part-method:PATCH", "MB-SUB-1", SAME_METHOD),
    SpecInput("part-method:OPTIONS", "MB-SUB-1", SAME_METHOD),
    SpecInput("part-method:CONNECT", "MB-SUB-3", "a part whose method is CONNECT is answered 400"),
    SpecInput("part-method:TRACE", "MB-SUB-3", "a part whose method is TRACE is answered 400"),
    SpecInput(
        "part-method:get",
        "MB-SUB-1",
        "method names are case-sensitive: get is routed as the request with get alone (3.2.1)",
    ),
    SpecInput(
        "target:absolute-path", "MB-PART-5", "the target is resolved against the batch's target URI"
    ),
    SpecInput(
        "target:relative", "MB-PART-5", "a relative reference resolves against the batch endpoint"
    ),
    SpecInput(
        "target:absolute-uri",
        "MB-PART-5",
        "an absolute URI on the batch's origin is its own target",
    ),
    SpecInput(
        "target:absolute-uri@host-case",
        "MB-SUB-2",
        "the batch's own host in another case is the same authority",
    ),
    SpecInput("target:network-path", "MB-SUB-2", "a network-path reference is answered 400"),
    SpecInput("target:fragment", "MB-SUB-2", "a target with a fragment is answered 400"),
    SpecInput("target:with-query", "MB-PART-5", "the query is part of the resolved target"),
    SpecInput("target:dot-segments", "MB-PART-5", "dot segments are removed by the resolution"),
    SpecInput(
        "target:userinfo", "MB-SUB-2", "an absolute target carrying userinfo is answered 400"
    ),
    SpecInput("target:other-scheme", "MB-SUB-2", "a target with another scheme is answered 400"),
    SpecInput("target:other-host", "MB-SUB-2", "a target naming another host is answered 400"),
    SpecInput("target:other-port", "MB-SUB-2", "a target naming another port is answered 400"),
    SpecInput("target:asterisk", "MB-SUB-8", "a part whose Content-Id is <*> is answered 400"),
    SpecInput(
        "target:batch-endpoint",
        "MB-SUB-4",
        "a part whose target is a batch endpoint is answered 400",
    ),
    SpecInput(
        "target:reference",
        "MB-PROC-18",
        "a reference in a Content-Id is replaced under Batch-Mode: references, and means nothing without it",
    ),
    SpecInput(
        "target:percent-encoded",
        "MB-PART-6",
        "the target is taken octet for octet, percent-encoding included",
    ),
)


def never_sent(recorded: Iterable[object]) -> list[dict[str, str]]:
    """The spec's inputs whose slot no check sent."""
    seen = {str(s) for s in recorded}
    return [
        {"input": i.slot, "requirement": i.requirement, "rule": i.rule}
        for i in SPEC_INPUTS
        if i.slot not in seen
    ]
