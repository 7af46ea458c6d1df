"""Planted readings of the places draft-02 now fixes, or lets go two ways, in the framing, the
top-level Content-Type, target resolution, the method refusal, negotiation, the XML abort
report and the connection after a refusal (spec 3.1.1, 3.2.2, 4.1, 5.3, 6.1, 6.3, 11).

- Content with no delimiter line at all placed two octets before its end, neither at its length
  nor at 0; content ending on a delimiter line without its CRLF placed in the part before the
  one that line opened (MB-STATUS-4, spec 5.3).
- A batch with two Content-Type lines run by its first or its last line, or refused without
  naming MB-WIRE-4; a batch without Content-Type refused 400 naming MB-WIRE-2, where the 400
  names MB-WIRE-4 (MB-WIRE-4, MB-STATUS-4, spec 3.1.1).
- A Content-Id that repeats the batch's scheme without an authority resolved by RFC 3986's
  non-strict form, the scheme dropped (MB-SUB-2, spec 3.2.2).
- A method no specification defines answered 501 naming the Batch-Mode rule (MB-STATUS-4,
  spec 4.1).
- An Accept range carrying a parameter other than the weight read as admitting nothing; an
  Accept of empty list elements only refused 406; an Accept member that is no media range read
  as asking for the JSON form, or read by its type when its parameters do not parse; an
  Accept-Charset without utf-8 narrowing the forms to multipart (MB-MULTI-1, spec 6.1).
- The XML abort report carrying a DAV:href and an mb:content-id of a part, or the batch
  endpoint for its DAV:href (MB-MULTI-6, spec 6.3).
- A 400 given before the content was read whole closing the connection at 64 KiB of content, or
  after small chunked content (MB-PIPE-1, spec 11).
"""

from __future__ import annotations

import re
from typing import Any

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import (
    boundary_of,
    edit_problem,
    is_batch,
    map_xml,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: A parameter with no "=" or no name before it (RFC 9110 §5.6.6).
_BROKEN_PARAMETER = re.compile(r";[ \t]*(?:[^=; \t]+[ \t]*(?:;|$)|=)")

#: The content length spec 11 has a server discard behind an early refusal, at least.
DISCARDED_OCTETS = 65_536
#: The JSON form's media type.
JSON_FORM = "application/vnd.mixbatch.multistatus+json"
#: A method no specification defines, as the method refusal check sends it.
UNRECOGNISED_METHOD = "MBSUITEUNDEFINED"
#: An Accept member that is no media range, as the negotiation check sends it.
UNPARSED_MEMBER = "mb-suite-word"


def _content_types(req: RelayRequest) -> list[tuple[str, str]]:
    return [(n, v) for n, v in req.headers if n.lower() == "content-type"]


def _no_delimiter_placed_before_end(req: RelayRequest, resp: RelayResponse) -> None:
    """Content with no delimiter line placed at the CRLF a missing delimiter would follow."""
    if req.method != "POST" or resp.status != 400 or len(req.body) < 2 or b"\r\n--" in req.body:
        return
    if req.body.startswith(b"--"):
        return

    def edit(doc: dict[str, Any]) -> None:
        if doc.get("requirement") in {"MB-WIRE-18", "MB-WIRE-13"}:
            doc["byte_offset"] = len(req.body) - 2
            doc["part_index"] = 0

    edit_problem(resp, edit)


def _dash_boundary_at_end_in_last_part(req: RelayRequest, resp: RelayResponse) -> None:
    """Content ending on a delimiter line without its CRLF placed in the part before it."""
    b = boundary_of(req)
    if resp.status != 400 or not b or not is_batch(req):
        return
    if re.search(rb"\r\n--" + re.escape(b.encode("latin-1")) + rb"[ \t]*\Z", req.body) is None:
        return

    def edit(doc: dict[str, Any]) -> None:
        index = doc.get("part_index")
        if doc.get("requirement") == "MB-WIRE-13" and isinstance(index, int) and index > 0:
            doc["part_index"] = index - 1

    edit_problem(resp, edit)


def _one_content_type(keep: int) -> Any:
    """A batch with several Content-Type lines reaches the server with the line at `keep`."""

    def edit(req: RelayRequest) -> None:
        lines = _content_types(req)
        if req.method != "POST" or len(lines) < 2:
            return
        kept = lines[keep]
        others = [(n, v) for n, v in req.headers if n.lower() != "content-type"]
        req.headers = [*others, kept]

    return edit


def _repeated_content_type_unnamed(req: RelayRequest, resp: RelayResponse) -> None:
    if req.method == "POST" and len(_content_types(req)) > 1 and resp.status == 400:
        edit_problem(resp, lambda doc: doc.pop("requirement", None))


def _missing_content_type_400_names_wire_2(req: RelayRequest, resp: RelayResponse) -> None:
    """A batch without Content-Type refused 400, its document still naming MB-WIRE-2."""
    if req.method != "POST" or _content_types(req) or resp.status != 415:
        return
    if b"Http-Method" not in req.body:
        return
    resp.status = 400
    resp.headers = [(n, v) for n, v in resp.headers if n.lower() != "accept-post"]

    def edit(doc: dict[str, Any]) -> None:
        doc["status"] = 400

    edit_problem(resp, edit)


def _scheme_dropped(req: RelayRequest) -> None:
    """A Content-Id of the form `<scheme:path>`, without `//`, resolved as `<path>`: RFC 3986
    §5.2.2's non-strict reading of a scheme equal to the base URI's."""
    if not is_batch(req):
        return
    req.body = re.sub(rb"(?im)^(Content-Id:[ \t]*<)https?:(?!//)", rb"\1", req.body)


def _unrecognised_method_501_names_mode(req: RelayRequest, resp: RelayResponse) -> None:
    if req.method != UNRECOGNISED_METHOD or resp.status not in (405, 501):
        return
    resp.status = 501
    resp.headers = [(n, v) for n, v in resp.headers if n.lower() != "allow"]

    def edit(doc: dict[str, Any]) -> None:
        doc["status"] = 501
        doc["requirement"] = "MB-PROC-12"

    edit_problem(resp, edit)


def _accept_members(req: RelayRequest) -> list[str]:
    return [v for n, v in req.headers if n.lower() == "accept"]


def _set_accept(req: RelayRequest, value: str) -> None:
    req.headers = [(n, v) for n, v in req.headers if n.lower() != "accept"]
    req.headers.append(("Accept", value))


def _parameters_admit_nothing(req: RelayRequest) -> None:
    """Each Accept range carrying a parameter other than q admits nothing (image/png)."""
    lines = _accept_members(req)
    if not is_batch(req) or not lines:
        return
    members = [m.strip() for m in ",".join(lines).split(",") if m.strip()]
    changed = False
    out = []
    for member in members:
        params = [p.strip() for p in member.split(";")[1:] if p.strip()]
        if any(not p.lower().startswith("q=") for p in params):
            weight = [p for p in params if p.lower().startswith("q=")]
            out.append(";".join(["image/png", *weight]))
            changed = True
        else:
            out.append(member)
    if changed:
        _set_accept(req, ", ".join(out))


def _empty_elements_refused(req: RelayRequest) -> None:
    """An Accept of empty list elements only, read as admitting nothing (406)."""
    lines = _accept_members(req)
    joined = ",".join(lines)
    if is_batch(req) and "," in joined and not joined.replace(",", "").strip():
        _set_accept(req, "image/png")


def _unparsed_read_as_json(req: RelayRequest) -> None:
    lines = _accept_members(req)
    if is_batch(req) and [v.strip() for v in lines] == [UNPARSED_MEMBER]:
        _set_accept(req, JSON_FORM)


def _broken_parameters_dropped(req: RelayRequest) -> None:
    """An Accept member whose parameters do not parse read by the type before them, as a reader
    that keeps the type it read when the parameters fail does: `application/xml;charset` is
    taken for `application/xml`."""
    lines = _accept_members(req)
    if not is_batch(req) or not lines:
        return
    members = [m.strip() for m in ",".join(lines).split(",")]
    kept = [m.split(";", 1)[0] if _BROKEN_PARAMETER.search(m) else m for m in members]
    if kept != members:
        _set_accept(req, ", ".join(kept))


def _charset_narrows_forms(req: RelayRequest) -> None:
    """A batch whose Accept-Charset names no utf-8 offered the multipart form alone, as a
    server does that takes the 207 forms for UTF-8 text a client refused."""
    charset = ",".join(v for n, v in req.headers if n.lower() == "accept-charset").lower()
    if is_batch(req) and charset and "utf-8" not in charset.replace("utf-8;q=0", ""):
        _set_accept(req, "multipart/mixed")


def _xml_abort_names_part(body: bytes) -> bytes:
    """The XML abort report with a DAV:href and an mb:content-id naming the part it stops at."""
    return re.sub(
        rb"(<D:response>)(<mb:index>(\d+)</mb:index><mb:outcome>aborted</mb:outcome>)",
        rb"\1<D:href>/plant/part/\3</D:href>\2<mb:content-id>plant/part/\3</mb:content-id>",
        body,
    )


def _xml_abort_names_endpoint(body: bytes) -> bytes:
    """The XML abort report with the batch endpoint for its DAV:href, as a writer does that fills
    every response's href with the request target when the result has none."""
    return re.sub(
        rb"(<D:response>)(?:<D:href\s*/>|<D:href>\s*</D:href>)?(<mb:index>\d+</mb:index>"
        rb"<mb:outcome>aborted</mb:outcome>)",
        rb"\1<D:href>/batch</D:href>\2",
        body,
    )


def _early_400_closes_at_discard_length(req: RelayRequest, resp: RelayResponse) -> None:
    if resp.status == 400 and len(req.body) >= DISCARDED_OCTETS:
        resp.close = True


def _early_400_of_chunked_content_closes(req: RelayRequest, resp: RelayResponse) -> None:
    if resp.status == 400 and req.chunks:
        resp.close = True


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    P(
        "no-delimiter-content-placed-before-its-end",
        "MB-STATUS-4 content with no delimiter line placed neither at its length nor at 0",
        ("reject-content-without-delimiter-line",),
        on_response=_no_delimiter_placed_before_end,
    ),
    P(
        "dash-boundary-at-end-placed-in-part-before",
        "MB-STATUS-4 content ending on a delimiter line without its CRLF placed in the part "
        "before the one the line opened",
        ("reject-unclosed-after-dash-boundary", "reject-unclosed-after-transport-padding"),
        on_response=_dash_boundary_at_end_in_last_part,
    ),
    P(
        "repeated-content-type-first-line-taken",
        "MB-WIRE-4 a batch with two Content-Type lines run by its first line",
        ("envelope-refusal-names-broken-requirement",),
        on_request=_one_content_type(0),
    ),
    P(
        "repeated-content-type-last-line-taken",
        "MB-WIRE-4 a batch with two Content-Type lines run by its last line",
        ("envelope-refusal-names-broken-requirement",),
        on_request=_one_content_type(-1),
    ),
    P(
        "repeated-content-type-refusal-unnamed",
        "MB-STATUS-4 the 400 for two Content-Type lines names no requirement",
        ("envelope-refusal-names-broken-requirement",),
        on_response=_repeated_content_type_unnamed,
    ),
    P(
        "missing-content-type-400-names-media-type-rule",
        "MB-STATUS-4 a batch without Content-Type refused 400 naming MB-WIRE-2, not MB-WIRE-4",
        ("envelope-refusal-names-broken-requirement",),
        on_response=_missing_content_type_400_names_wire_2,
    ),
    P(
        "scheme-without-authority-resolved-non-strict",
        "MB-SUB-2 a Content-Id repeating the batch's scheme without an authority run as its path",
        (
            "reject-target-scheme-without-authority",
            "reject-target-scheme-without-authority-rootless",
        ),
        on_request=_scheme_dropped,
    ),
    P(
        "unrecognised-method-501-names-mode-rule",
        "MB-STATUS-4 the 501 for a method no specification defines names MB-PROC-12",
        ("method-refusal-names-requirement",),
        on_response=_unrecognised_method_501_names_mode,
    ),
    P(
        "accept-range-parameters-admit-nothing",
        "MB-MULTI-1 an Accept range with a parameter other than the weight admits no form",
        ("accept-range-parameters-ignored",),
        on_request=_parameters_admit_nothing,
    ),
    P(
        "accept-of-empty-elements-refused",
        "MB-MULTI-1 an Accept of empty list elements only answered 406, not as absent",
        ("accept-default-multipart",),
        on_request=_empty_elements_refused,
    ),
    P(
        "accept-broken-parameters-read-by-type",
        "MB-MULTI-1 an Accept member whose parameters do not parse read by its type",
        ("accept-unparsed-member-beside-valid",),
        on_request=_broken_parameters_dropped,
    ),
    P(
        "accept-charset-narrows-forms",
        "MB-MULTI-1 an Accept-Charset without utf-8 answered in the multipart form alone",
        ("accept-alone-chooses-the-form",),
        on_request=_charset_narrows_forms,
    ),
    P(
        "accept-unparsed-member-read-as-json",
        "MB-MULTI-1 an Accept member that is no media range read as asking for the JSON form",
        ("accept-unparsed-member-beside-valid",),
        on_request=_unparsed_read_as_json,
    ),
    P(
        "xml-abort-entry-names-a-part",
        "MB-MULTI-6 the XML abort report carries a DAV:href and an mb:content-id",
        ("batch-abort-in-every-form",),
        on_response=map_xml(_xml_abort_names_part),
    ),
    P(
        "xml-abort-entry-names-endpoint",
        "MB-MULTI-6 the XML abort report's DAV:href names the batch endpoint",
        ("batch-abort-in-every-form",),
        on_response=map_xml(_xml_abort_names_endpoint),
    ),
    P(
        "early-400-closes-at-64-kib",
        "MB-PIPE-1 a 400 given before 65,536 octets of content were read closes the "
        "connection, marked, the request behind it unanswered",
        ("pipelining-behind-early-refusals-of-long-content",),
        on_response=_early_400_closes_at_discard_length,
    ),
    P(
        "early-400-of-chunked-content-closes",
        "MB-PIPE-1 a 400 given before small chunked content was read closes the connection, "
        "marked, the request behind it unanswered",
        ("pipelining-behind-early-refusals-of-chunked-content",),
        on_response=_early_400_of_chunked_content_closes,
    ),
)
