"""Planted violations of the part header section's grammar (spec 3.2: MB-PART-2, MB-PART-4,
MB-PART-11): field names, field values and targets, octet by octet. Each entry accepts what
the grammar refuses, or refuses what it allows.
"""

from __future__ import annotations

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import accepts, body_has, refuses

__all__ = ["PLANTS"]

P = Mutation
PLANTS: tuple[Mutation, ...] = (
    # Spec 3.1 under MB-WIRE-21: one CRLF cannot end a field line and begin a delimiter, so a
    # dash-boundary line right after a field line lies in the header section (MB-PART-11).
    P(
        "delimiter-ending-header-line-accepted",
        "MB-PART-11 delimiter in the header section",
        ("reject-delimiter-ending-header-line", "reject-close-delimiter-ending-header-line"),
        on_response=accepts(body_has(rb"Content-Id: <[^>\r\n]*>\r\n--")),
    ),
    # MB-PART-2 and MB-PART-4: one field each, in any case, with a valid value.
    P(
        "http-method-repeat-case-sensitive",
        "MB-PART-2 repeated in another case",
        ("reject-http-method-repeated-other-case",),
        on_response=accepts(body_has(rb"Http-Method: GET\r\nHTTP-METHOD")),
    ),
    P(
        "http-method-value-unchecked",
        "MB-PART-2 whitespace or DEL",
        (
            "reject-http-method-whitespace-only",
            "reject-http-method-inner-space",
            "reject-http-method-del",
        ),
        on_response=accepts(body_has(rb"Http-Method: (GE T|GET\x7f|[ \t]+\r\n)")),
    ),
    P(
        "http-method-ows-refused",
        "MB-PART-2 trailing whitespace",
        ("accept-http-method-trailing-ows",),
        on_response=refuses(body_has(rb"Http-Method: GET[ \t]+\r\n")),
    ),
    P(
        "content-id-repeat-case-sensitive",
        "MB-PART-4 repeated in another case",
        ("reject-content-id-repeated-other-case",),
        on_response=accepts(body_has(rb"Content-Id: <[^>\r\n]*>\r\ncontent-id")),
    ),
    P(
        "content-id-brackets-searched",
        "MB-PART-4 text around the brackets",
        (
            "reject-content-id-empty",
            "reject-content-id-text-after",
            "reject-content-id-text-before",
            "reject-content-id-unclosed",
            "reject-content-id-nested-brackets",
        ),
        on_response=accepts(
            body_has(rb"Content-Id:( ?\r\n| <[^>\r\n]*> x| x <| <[^>\r\n]*\r\n| <<)")
        ),
    ),
    P(
        "content-id-ows-refused",
        "MB-PART-4 whitespace around the brackets",
        ("accept-content-id-surrounding-ows",),
        on_response=refuses(body_has(rb"Content-Id: \t <")),
    ),
    P(
        "percent-escape-unchecked",
        "MB-PART-4 percent-escape",
        (
            "reject-target-percent-not-hex-in-query",
            "reject-target-percent-one-digit-in-query",
            "reject-target-percent-at-end-of-query",
            "reject-target-percent-not-hex-in-path",
            "reject-target-percent-one-digit-in-path",
            "reject-target-percent-at-end-of-path",
            "reject-target-percent-in-absolute-form",
        ),
        on_response=accepts(body_has(rb"Content-Id: <[^>\r\n]*%(?![0-9A-Fa-f]{2})")),
    ),
    P(
        "target-octets-unchecked",
        "MB-PART-4 octets outside the URI grammar",
        (
            "reject-target-space",
            "reject-target-non-ascii",
            "reject-target-backslash",
            "reject-target-double-quote",
            "reject-target-brace",
            "reject-target-del",
        ),
        on_response=accepts(body_has(rb'Content-Id: <[^>\r\n]*[ \\"{}\x7f-\xff]')),
    ),
    # MB-PART-11: a field-line is a token, a colon and a field-value (RFC 9110 section 5).
    P(
        "control-octet-in-field-value",
        "MB-PART-11 control octet in a value",
        (
            "reject-field-value-nul",
            "reject-field-value-soh",
            "reject-field-value-unit-separator",
            "reject-field-value-del",
        ),
        on_response=accepts(body_has(rb"X-Mixbatch-Probe: a[\x00-\x08\x0b-\x1f\x7f]")),
    ),
    P(
        "field-value-ascii-only",
        "MB-PART-11 obs-text or HTAB in a value",
        ("accept-field-value-obs-text", "accept-field-value-inner-htab-and-space"),
        on_response=refuses(body_has(rb"X-Mixbatch-Probe: a[\t\x80-\xff]")),
    ),
    P(
        "field-name-not-a-token-accepted",
        "MB-PART-11 field name",
        (
            "reject-field-name-space",
            "reject-field-name-htab-before-colon",
            "reject-field-name-del",
            "reject-field-name-nul",
            "reject-field-name-obs-text",
            "reject-field-name-at-sign",
            "reject-field-name-parenthesis",
            "reject-field-name-slash",
            "reject-field-name-empty",
            "reject-first-field-line-leading-space",
        ),
        on_response=accepts(
            body_has(rb"\n(X Mix|X-Mixbatch\t|X-Mix[\x00\x7f\xe9@(]|X/Mix|: a\r| X-Mix)")
        ),
    ),
    P(
        "field-name-letters-only",
        "MB-PART-11 tchar",
        ("accept-field-name-token-specials",),
        on_response=refuses(body_has(rb"\nX-!#")),
    ),
    P(
        "boundary-in-field-value-refused",
        "MB-PART-11 dash-boundary in a value",
        ("accept-dash-boundary-in-field-value",),
        on_response=refuses(body_has(rb"X-Mixbatch-Note: --")),
    ),
    # MB-PART-2: Http-Method is any token; an unknown method is the resource's to answer.
    P(
        "http-method-from-known-list-only",
        "MB-PART-2 extension method refused",
        ("accept-http-method-extension-token",),
        on_response=refuses(
            body_has(
                rb"Http-Method: (?!(?:GET|HEAD|POST|PUT|DELETE|PATCH|OPTIONS|CONNECT|TRACE)\r\n)"
                rb"[^\r\n]*\r\n"
            ),
            400,
            "MB-PART-2",
        ),
    ),
)
