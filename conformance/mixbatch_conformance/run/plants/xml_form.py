"""Planted violations of the XML form (spec 6.3: MB-MULTI-3, MB-MULTI-6, and the XML side
of MB-MULTI-5 and MB-MULTI-12).

Each plant edits the XML multistatus document of a 207 answer as octets: responses reversed
or indexed one off, another namespace, a body not base64, broken into lines or cut at 64 KiB,
a DAV:status or DAV:href where the form wants none or another, a header field dropped, or the
abort report moved into a DAV:responsedescription.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import map_xml

__all__ = ["PLANTS"]


def _xml_skipped_index_off(response: bytes) -> bytes:
    if b"<mb:outcome>skipped</mb:outcome>" not in response:
        return response
    return re.sub(
        rb"<mb:index>(\d+)</mb:index>",
        lambda m: b"<mb:index>%d</mb:index>" % (int(m[1]) + 1),
        response,
    )


def _xml_index(body: bytes) -> bytes:
    return re.sub(
        rb"<mb:index>(\d+)</mb:index>", lambda m: b"<mb:index>%d</mb:index>" % (int(m[1]) + 1), body
    )


def _xml_cid(body: bytes) -> bytes:
    return re.sub(
        rb"<mb:content-id>([^<]*)</mb:content-id>",
        rb"<mb:content-id>&lt;\1&gt;</mb:content-id>",
        body,
    )


def _xml_reverse(body: bytes) -> bytes:
    items = re.findall(rb"<D:response>.*?</D:response>", body, re.S)
    if len(items) < 2:
        return body
    head = body[: body.index(items[0])]
    return head + b"\n".join(reversed(items)) + b"\n</D:multistatus>\n"


def _xml_namespace(body: bytes) -> bytes:
    return body.replace(b"https://mixbatch.dev/ns/multistatus", b"urn:plant:multistatus")


def _xml_plain_body(body: bytes) -> bytes:
    import base64

    return re.sub(
        rb'<mb:body encoding="base64">([^<]*)</mb:body>',
        lambda m: (
            b'<mb:body encoding="base64">'
            + base64.b64decode(m[1]).replace(b"<", b"&lt;").replace(b"&", b"&amp;")
            + b"</mb:body>"
        ),
        body,
    )


def _xml_body_mime_base64(body: bytes) -> bytes:
    """mb:body written as MIME encoders write base64: lines of 76, each ended by a newline."""
    import base64

    return re.sub(
        rb'<mb:body encoding="base64">([^<]*)</mb:body>',
        lambda m: (
            b'<mb:body encoding="base64">'
            + base64.encodebytes(base64.b64decode(m[1]))
            + b"</mb:body>"
        ),
        body,
    )


def _xml_drop_header(body: bytes) -> bytes:
    return re.sub(rb'<mb:header name="ETag">[^<]*</mb:header>', b"", body)


def _xml_status_text(body: bytes) -> bytes:
    return body.replace(b"HTTP/1.1 404", b"HTTP/1.1 410")


def _xml_abort_extra_header(body: bytes) -> bytes:
    return re.sub(
        rb"(<mb:outcome>aborted</mb:outcome>.*?)(<mb:body)",
        rb'\1<mb:header name="Retry-After">1</mb:header>\2',
        body,
        flags=re.S,
    )


def _xml_abort_index(body: bytes) -> bytes:
    def shift(m: re.Match[bytes]) -> bytes:
        return re.sub(
            rb"<mb:index>(\d+)</mb:index>",
            lambda n: b"<mb:index>%d</mb:index>" % (int(n[1]) + 1),
            m[0],
        )

    return re.sub(
        rb"<D:response>(?:(?!</D:response>).)*aborted(?:(?!</D:response>).)*</D:response>",
        shift,
        body,
        flags=re.S,
    )


def _xml_abort_as_description(body: bytes) -> bytes:
    """The abort report moved out of the responses into a DAV:responsedescription holding its
    problem document, as a WebDAV reader of a partial answer would put it."""
    found = re.search(
        rb"<D:response>(?:(?!</D:response>).)*<mb:outcome>aborted</mb:outcome>"
        rb"(?:(?!</D:response>).)*</D:response>",
        body,
        flags=re.S,
    )
    if found is None:
        return body
    inner = re.search(rb"<mb:body[^>]*>(.*?)</mb:body>", found[0], flags=re.S)
    text = inner[1] if inner else b""
    body = body[: found.start()] + body[found.end() :]
    description = b"<D:responsedescription>" + text + b"</D:responsedescription>"
    return body.replace(b"</D:multistatus>", description + b"</D:multistatus>")


def _xml_skipped_status(body: bytes) -> bytes:
    """Give each skipped entry a DAV:status of 424, as if it had run and failed."""
    m = re.search(rb'xmlns:([A-Za-z0-9_-]+)="DAV:"', body)
    prefix = m[1] if m else b"D"
    status = b"<%s:status>HTTP/1.1 424 Failed Dependency</%s:status>" % (prefix, prefix)
    return re.sub(rb"(<[A-Za-z0-9_:-]*outcome>skipped</)", status + rb"\1", body)


def _xml_rolled_back_status(body: bytes) -> bytes:
    """Drop DAV:status from every response with an outcome: rolled-back parts lose theirs."""
    return re.sub(
        rb"<([A-Za-z0-9_-]+:)?status>[^<]*</\1?status>((?:(?!</[A-Za-z0-9_:-]*response>).)*"
        rb"outcome>rolled-back<)",
        rb"\2",
        body,
        flags=re.S,
    )


#: The XML writer's buffer: a body longer than this is cut to it.
_XML_BUFFER = 65_535


def _xml_body_cut(body: bytes) -> bytes:
    """Cut each XML body to one 64 KiB buffer, as a writer that encodes from one read would."""
    import base64

    def cut(m: re.Match[bytes]) -> bytes:
        data = base64.b64decode(m[1])[:_XML_BUFFER]
        return b'<mb:body encoding="base64">' + base64.b64encode(data) + b"</mb:body>"

    return re.sub(rb'<mb:body encoding="base64">([^<]*)</mb:body>', cut, body)


def _xml_responses(fn: Callable[[bytes], bytes]) -> Callable[[bytes], bytes]:
    """Apply `fn` to each DAV:response element of an XML form."""
    return lambda body: re.sub(
        rb"<D:response>.*?</D:response>", lambda m: fn(m[0]), body, flags=re.S
    )


def _xml_skipped_without_href(response: bytes) -> bytes:
    if b"<mb:outcome>skipped</mb:outcome>" not in response:
        return response
    return re.sub(rb"<D:href>[^<]*</D:href>", b"", response)


def _xml_href_as_written(response: bytes) -> bytes:
    cid = re.search(rb"<mb:content-id>([^<]*)</mb:content-id>", response)
    if cid is None:
        return response
    return re.sub(rb"<D:href>[^<]*</D:href>", b"<D:href>" + cid[1] + b"</D:href>", response)


def _xml_href_names_created(response: bytes) -> bytes:
    """A 201's DAV:href naming the resource it created (its Location), as a WebDAV server
    names the resource each response describes."""
    if b"HTTP/1.1 201" not in response:
        return response
    loc = re.search(rb'<mb:header name="Location">([^<]*)</mb:header>', response)
    if loc is None:
        return response
    path = re.sub(rb"^https?://[^/]+", b"", loc[1])
    return re.sub(rb"<D:href>[^<]*</D:href>", b"<D:href>" + path + b"</D:href>", response)


def _xml_status_trimmed(body: bytes) -> bytes:
    """A code with no registered reason phrase written `HTTP/1.1 299`, without the space (the
    reference server writes a generic phrase, `Status 299`, which the plant removes)."""
    return re.sub(
        rb"<D:status>(HTTP/1\.1 ([0-9]{3})) (?:Status \2)?</D:status>",
        rb"<D:status>\1</D:status>",
        body,
    )


def _xml_rolled_back_bare(response: bytes) -> bytes:
    """A rolled-back response with its header fields and body dropped (an undone effect)."""
    if b"<mb:outcome>rolled-back</mb:outcome>" not in response:
        return response
    response = re.sub(rb"<mb:header [^>]*>[^<]*</mb:header>", b"", response)
    return re.sub(rb"(<mb:body[^>]*>)[^<]*(</mb:body>)", rb"\1\2", response)


def _xml_leaves_out_unrun(body: bytes) -> bytes:
    """Leave out each DAV:response without a DAV:status (a part that did not run), as if
    RFC 4918's status were required of every response."""
    return re.sub(
        rb"\s*<D:response>(?:(?!</D:response>).)*?</D:response>", _keep_if_status, body, flags=re.S
    )


def _keep_if_status(m: re.Match[bytes]) -> bytes:
    return m[0] if b"<D:status>" in m[0] else b""


P = Mutation
_XML = ("multistatus-xml",)
PLANTS: tuple[Mutation, ...] = (
    # MB-MULTI-3: XML, one response per part, in order, each with its index.
    P("xml-index-off-by-one", "MB-MULTI-3 index", _XML, on_response=map_xml(_xml_index)),
    P("xml-responses-reversed", "MB-MULTI-3 order", _XML, on_response=map_xml(_xml_reverse)),
    # MB-MULTI-6: each response's mb:index, a skipped part's included.
    P(
        "xml-skipped-index-off",
        "MB-MULTI-6 a skipped response's mb:index",
        ("error-policy-stop",),
        on_response=map_xml(_xml_responses(_xml_skipped_index_off)),
    ),
    # MB-MULTI-5: the same results in every form.
    P(
        "xml-field-dropped",
        "MB-MULTI-5 XML fields",
        ("representations-equivalent",),
        on_response=map_xml(_xml_drop_header),
    ),
    # MB-MULTI-6: the XML form's elements and namespace.
    P("xml-wrong-namespace", "MB-MULTI-6 namespace", _XML, on_response=map_xml(_xml_namespace)),
    P(
        "xml-body-not-base64",
        "MB-MULTI-6 body encoding",
        _XML,
        on_response=map_xml(_xml_plain_body),
    ),
    P(
        "xml-body-mime-base64",
        "MB-MULTI-6 body base64 with line breaks",
        _XML,
        on_response=map_xml(_xml_body_mime_base64),
    ),
    P("xml-status-differs", "MB-MULTI-6 DAV:status", _XML, on_response=map_xml(_xml_status_text)),
    P(
        "xml-content-id-bracketed",
        "MB-MULTI-6 content-id",
        ("multistatus-content-ids",),
        on_response=map_xml(_xml_cid),
    ),
    # MB-MULTI-6: every part's href, and the status line's space before an empty phrase.
    P(
        "xml-skipped-without-href",
        "MB-MULTI-6 no DAV:href on a skipped part",
        ("multistatus-skipped-entries",),
        on_response=map_xml(_xml_responses(_xml_skipped_without_href)),
    ),
    P(
        "xml-href-as-written",
        "MB-MULTI-6 DAV:href as the Content-Id wrote it",
        ("multistatus-content-ids",),
        on_response=map_xml(_xml_responses(_xml_href_as_written)),
    ),
    P(
        "xml-href-names-created-member",
        "MB-MULTI-6 a 201's DAV:href names the member its Location names",
        ("created-fields-every-form",),
        on_response=map_xml(_xml_responses(_xml_href_names_created)),
    ),
    P(
        "xml-status-trimmed",
        "MB-MULTI-6 DAV:status without the space before an empty phrase",
        ("multistatus-status-codes",),
        on_response=map_xml(_xml_status_trimmed),
    ),
    # MB-MULTI-12: the abort report in the 207 forms.
    P(
        "xml-abort-index-off",
        "MB-MULTI-12 XML index",
        ("batch-abort-in-every-form",),
        on_response=map_xml(_xml_abort_index),
    ),
    P(
        "xml-abort-as-response-description",
        "MB-MULTI-12 XML abort report",
        ("batch-abort-in-every-form",),
        on_response=map_xml(_xml_abort_as_description),
    ),
    P(
        "xml-abort-extra-field",
        "MB-MULTI-12 XML fields",
        ("batch-abort-in-every-form",),
        on_response=map_xml(_xml_abort_extra_header),
    ),
    # MB-MULTI-6: DAV:status for every part that ran, a rolled-back one included, and no other.
    P(
        "xml-skipped-entry-status",
        "MB-MULTI-6 skipped status",
        ("multistatus-skipped-entries",),
        on_response=map_xml(_xml_skipped_status),
    ),
    P(
        "xml-rolled-back-without-status",
        "MB-MULTI-6 rolled-back status",
        ("atomic-failure-outcomes",),
        on_response=map_xml(_xml_rolled_back_status),
    ),
    # MB-MULTI-5: a rolled-back part keeps its fields and body in the XML form too.
    P(
        "xml-rolled-back-fields-dropped",
        "MB-MULTI-5 rolled-back fields and body in the XML form",
        ("atomic-failing-edges", "atomic-failure-outcomes"),
        on_response=map_xml(_xml_responses(_xml_rolled_back_bare)),
    ),
    # MB-MULTI-5: the same bodies, whatever their size, in every form.
    P(
        "xml-body-cut-at-64k",
        "MB-MULTI-5 XML bodies over 64 KiB",
        ("random-bodies-every-form",),
        on_response=map_xml(_xml_body_cut),
    ),
    # MB-MULTI-3: a part that did not run has its response too.
    P(
        "xml-leaves-out-unrun-parts",
        "MB-MULTI-3 responses without a status left out",
        ("entries-for-every-part-in-every-mode",),
        on_response=map_xml(_xml_leaves_out_unrun),
    ),
)
