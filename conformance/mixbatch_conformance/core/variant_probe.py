"""What the suite compares when it learns whether a target takes a request variant.

Theory of operation: before a variant (core.variants) is sent, `Context` sends one request as
written and in the variant, and the variant is used only when the answers agree in what
`probe_answer` reads: the status, the media type, each part's `Http-Status-Code` and, where
an answer (or a part) is the echo resource's description, the request the echo saw under the
comparison of spec 3.2.4 (core.echo). A target whose HTTP stack hands the application another
request for a variant (a value keeping the whitespace around it, a target in absolute-form
where origin-form is due) breaks HTTP there, and that fault belongs to the checks that judge
it, not to every check that happens to send the variant.
"""

from __future__ import annotations

from mixbatch_conformance.core.echo import comparable_headers, read_echo
from mixbatch_conformance.core.validator import parse_media_type, read_multipart
from mixbatch_conformance.transport.http import Response

__all__ = ["PROBE_FIELDS", "probe_answer"]

#: Fields the probe sends beside the request's own, so that the echo reports values, and two
#: names whose order received is not their order by name.
PROBE_FIELDS = (("X-Mb-Variant-Probe", "mb variant probe"), ("X-Mb-Probe-Order", "second"))

_Seen = tuple[object, ...]


def probe_answer(resp: Response | None, volatile: tuple[str, ...] = ()) -> _Seen | None:
    """What two answers to the probe must share, or None when there was no answer."""
    if resp is None:
        return None
    seen: list[object] = [resp.status, resp.media_type, _request_seen(resp.body, volatile)]
    if resp.media_type == "multipart/mixed":
        try:
            _, params = parse_media_type(resp.get("Content-Type") or "")
            parts = read_multipart(resp.body, params.get("boundary", "")).parts
        except ValueError:
            return (*seen, "unreadable multipart")
        for part in parts:
            seen += [part.get("Http-Status-Code"), _request_seen(part.body, volatile)]
    return tuple(seen)


def _request_seen(content: bytes, volatile: tuple[str, ...]) -> _Seen | None:
    echo = read_echo(content)
    if echo is None:
        return None
    authority = echo.authority.lower() if echo.authority is not None else None
    headers = comparable_headers(echo.headers, volatile)
    return (echo.method, echo.target, authority, echo.body, headers)
