"""Target tricks: Content-Id references that try to leave the batch's own origin.

MB-SUB-2 decides them: after RFC 3986 §5.2 resolution against the batch request's target URI, a
part's target with another scheme or authority, userinfo, a network-path reference or a fragment
is answered 400. Spellings of the batch's own origin (scheme and host in any case, the default
port written out) are the same origin and run (RFC 3986 §6.2.2, §6.2.3). References that are not
URI-references at all (backslashes, raw non-ASCII) are malformed Content-Ids (MB-PART-4).
"""

from __future__ import annotations

from ._case import Case, batch, part, post, statuses

__all__ = ["CASES"]


def refused(case_id: str, target: str, *, host: str = "test") -> Case:
    return Case(
        case_id,
        post(batch(part("GET", target)), host=host),
        statuses(400),
        "MB-SUB-2: a target with another scheme or authority, userinfo, a network-path reference "
        "or a fragment is answered 400 (MB-PART-4 when it is no URI-reference)",
    )


def same_origin(case_id: str, target: str, *, host: str = "test") -> Case:
    return Case(
        case_id,
        post(batch(part("GET", target)), host=host),
        statuses(200),
        "MB-SUB-2 and RFC 3986 §6.2.2-6.2.3: case-insensitive scheme and host, default port",
        check="all_parts_200",
    )


CASES = [
    refused("network-path-other-host", "//evil/books/1"),
    refused("network-path-own-host", "//test/books/1"),
    refused("userinfo", "http://u@test/books/1"),
    refused("userinfo-with-password", "http://u:p@test/books/1"),
    refused("userinfo-hiding-host", "http://test@evil/books/1"),
    refused("backslash-authority", "\\\\evil\\books\\1"),
    refused("backslash-in-path", "/books\\1"),
    refused("decimal-ip", "http://2130706433/books/1", host="127.0.0.1"),
    refused("octal-ip", "http://0177.0.0.1/books/1", host="127.0.0.1"),
    refused("short-ip", "http://127.1/books/1", host="127.0.0.1"),
    refused("ipv6-loopback", "http://[::1]/books/1", host="127.0.0.1"),
    refused("idna-raw-utf8", "http://t\u00e9st/books/1"),
    refused("idna-punycode-other-host", "http://xn--tst-bma/books/1"),
    refused("other-scheme-ftp", "ftp://test/books/1"),
    refused("other-scheme-https", "https://test/books/1"),
    refused("scheme-without-authority", "http:/books/1"),
    refused("other-port", "http://test:8080/books/1"),
    refused("fragment", "/books/1#top"),
    refused("asterisk", "*"),
    same_origin("absolute-same-origin", "http://test/books/1"),
    same_origin("absolute-upper-case-scheme-and-host", "HTTP://TEST/books/1"),
    same_origin("absolute-default-port", "http://test:80/books/1"),
    same_origin("absolute-ip-default-port", "http://127.0.0.1:80/books/1", host="127.0.0.1"),
    same_origin("relative-dot-segments", "/books/../books/./1"),
    Case(
        "outer-target-without-leading-slash",
        post(batch(part()), target="batch"),
        statuses(400, 301),
        "RFC 9112 §3 and §3.2.1: origin-form starts with '/'; an invalid request-line SHOULD be "
        "answered 400 or 301, never run",
    ),
    Case(
        "outer-absolute-form",
        post(batch(part()), target="http://test/batch"),
        statuses(200),
        "RFC 9112 §3.2.2: a server MUST accept the absolute-form of request-target",
        check="all_parts_200",
    ),
]
