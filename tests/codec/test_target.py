"""Target resolution follows RFC 3986 §5.2 and keeps sub-requests on the batch's origin."""

from __future__ import annotations

import pytest

from mixbatch.codec import RemoteProtocolError, remove_dot_segments, resolve_target

# RFC 3986 §5.4.1 normal examples, base "http://a/b/c/d;p?q", as origin-form results.
RFC3986_NORMAL = [
    ("g", "/b/c/g"),
    ("./g", "/b/c/g"),
    ("g/", "/b/c/g/"),
    ("/g", "/g"),
    ("?y", "/b/c/d;p?y"),
    ("g?y", "/b/c/g?y"),
    (";x", "/b/c/;x"),
    ("g;x", "/b/c/g;x"),
    ("", "/b/c/d;p?q"),
    (".", "/b/c/"),
    ("./", "/b/c/"),
    ("..", "/b/"),
    ("../", "/b/"),
    ("../g", "/b/g"),
    ("../..", "/"),
    ("../../", "/"),
    ("../../g", "/g"),
    # §5.4.2 abnormal examples
    ("../../../g", "/g"),
    ("../../../../g", "/g"),
    ("/./g", "/g"),
    ("/../g", "/g"),
    ("g.", "/b/c/g."),
    (".g", "/b/c/.g"),
    ("g..", "/b/c/g.."),
    ("..g", "/b/c/..g"),
    ("./../g", "/b/g"),
    ("./g/.", "/b/c/g/"),
    ("g/./h", "/b/c/g/h"),
    ("g/../h", "/b/c/h"),
    ("g;x=1/./y", "/b/c/g;x=1/y"),
    ("g;x=1/../y", "/b/c/y"),
    ("http://a/g", "/g"),
]


@pytest.mark.parametrize(("reference", "expected"), RFC3986_NORMAL)
def test_resolves_rfc3986_examples(reference: str, expected: str) -> None:
    assert resolve_target("/b/c/d;p?q", reference, scheme="http", authority="a") == expected


@pytest.mark.parametrize(
    "reference",
    ["http://b/g", "https://a/g", "//a/g", "//evil.test/x", "g#frag", "#s", "ftp://a/g"],
)
def test_refuses_targets_that_leave_the_origin(reference: str) -> None:
    with pytest.raises(RemoteProtocolError) as info:
        resolve_target("/b/c/d;p?q", reference, scheme="http", authority="a")
    assert info.value.requirement == "MB-SUB-2"
    assert info.value.status_hint == 400


def test_scheme_and_host_compare_case_insensitively() -> None:
    assert (
        resolve_target("/batch", "HTTP://Example.Test/x", scheme="http", authority="example.test")
        == "/x"
    )


def test_remove_dot_segments_matches_rfc3986_section_5_2_4_walkthrough() -> None:
    assert remove_dot_segments("/a/b/c/./../../g") == "/a/g"
    assert remove_dot_segments("mid/content=5/../6") == "mid/6"


def test_refuses_the_asterisk_form_with_mb_sub_8() -> None:
    with pytest.raises(RemoteProtocolError) as info:
        resolve_target("/batch", "*", scheme="http", authority="a")
    assert info.value.requirement == "MB-SUB-8"
