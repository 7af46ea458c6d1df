"""What the suite compares when it learns whether a target takes a request variant.

Theory of operation: before a variant (core.variants) is sent, `Context` sends one request as
written and in the variant, and the variant is used only when the answers agree in what
`probe_answer` reads: the status, the media type, each part's `Http-Status-Code` and, where
an answer (or a part) is the echo resource's description, the request the echo saw under the
comparison of spec 3.2.4 (core.echo). A target whose HTTP stack hands the application another
request for a variant (a value keeping the whitespace around it, a target in absolute-form
where origin-form is due) breaks HTTP there, and that fault belongs to the checks that judge
it, not to every check that happens to send the variant.

The variants that respell values (`VALUE_VARIANTS`) need a list to respell: their probe also
carries `VALUE_PROBE_ACCEPT`. The echo reports the field lines it received (MB-TEST-2), so the
echo of a request whose `Accept` went as two lines lists two; `probe_answer(..., lists=True)`
therefore reads each list field as RFC 9110 reads it (core.variants.field_view: the lines
combined in order, empty elements, OWS and empty parameters left out), and a stack that loses
a line or a member still shows: the members differ.
"""

from __future__ import annotations

from mixbatch_conformance.core.echo import comparable_headers, read_echo
from mixbatch_conformance.core.validator import parse_media_type, read_multipart
from mixbatch_conformance.core.variants import field_view
from mixbatch_conformance.transport.http import Response

__all__ = ["PROBE_FIELDS", "VALUE_PROBE_ACCEPT", "probe_answer"]

#: Fields the probe sends beside the request's own, so that the echo reports values, and two
#: names whose order received is not their order by name.
PROBE_FIELDS = (("X-Mb-Variant-Probe", "mb variant probe"), ("X-Mb-Probe-Order", "second"))
#: The `Accept` of the probe of a value variant, for a one-part batch (True) and for the GET
#: alone (False). The batch's puts `multipart/mixed` between two ranges that admit no multipart
#: answer: read whole it chooses `multipart/mixed` (MB-MULTI-1: "MUST choose `multipart/mixed`
#: when `Accept` ... gives `multipart/mixed` a quality value at least as high as any other
#: representation it offers"), read by its first or its last line alone another form or 406
#: (MB-STATUS-9). The batch's own fields reach no part (MB-SUB-6), so the GET alone, whose
#: echo reports its fields (MB-TEST-2), shows what the target's HTTP stack made of them.
VALUE_PROBE_ACCEPT = {
    True: "application/vnd.mixbatch.multistatus+json;q=0.1, multipart/mixed, application/xml;q=0.1",
    False: "application/json, text/plain;q=0.5",
}

_Seen = tuple[object, ...]


def probe_answer(
    resp: Response | None, volatile: tuple[str, ...] = (), *, lists: bool = False
) -> _Seen | None:
    """What two answers to the probe must share, or None when there was no answer. With
    `lists`, the echo's list fields are compared as RFC 9110 reads them (see above)."""
    if resp is None:
        return None
    seen: list[object] = [resp.status, resp.media_type, _request_seen(resp.body, volatile, lists)]
    if resp.media_type == "multipart/mixed":
        try:
            _, params = parse_media_type(resp.get("Content-Type") or "")
            parts = read_multipart(resp.body, params.get("boundary", "")).parts
        except ValueError:
            return (*seen, "unreadable multipart")
        for part in parts:
            seen += [part.get("Http-Status-Code"), _request_seen(part.body, volatile, lists)]
    return tuple(seen)


def _request_seen(content: bytes, volatile: tuple[str, ...], lists: bool) -> _Seen | None:
    echo = read_echo(content)
    if echo is None:
        return None
    authority = echo.authority.lower() if echo.authority is not None else None
    headers: tuple[object, ...] = comparable_headers(echo.headers, volatile)
    if lists:
        headers = _lists_read(comparable_headers(echo.headers, volatile))
    return (echo.method, echo.target, authority, echo.body, headers)


def _lists_read(headers: tuple[tuple[str, str], ...]) -> tuple[object, ...]:
    """`headers` with each field's lines in one entry where the first stood, read by
    `field_view`; values map to octets one character to one octet (MB-TEST-2)."""
    lines: dict[str, list[bytes]] = {}
    for name, value in headers:
        lines.setdefault(name, []).append(value.encode("latin-1", "replace"))
    return tuple(
        (name, field_view(name.encode("latin-1", "replace"), v)) for name, v in lines.items()
    )
