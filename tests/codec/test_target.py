"""Target resolution follows RFC 3986 §5.2 and keeps sub-requests on the batch's origin."""

from __future__ import annotations

import pytest

from mixbatch.codec import (
    Fields,
    RemoteProtocolError,
    RequestPartStart,
    remove_dot_segments,
    resolve_part_target,
    resolve_target,
)

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


@pytest.mark.parametrize(
    ("reference", "scheme", "authority"),
    [
        ("http://127.0.0.1:80/books/1", "http", "127.0.0.1"),
        ("http://127.0.0.1/books/1", "http", "127.0.0.1:80"),
        ("http://127.0.0.1:/books/1", "http", "127.0.0.1"),
        ("https://Example.Test:443/books/1", "https", "example.test"),
        ("http://[::1]:80/books/1", "http", "[::1]"),
        ("http://a:8080/books/1", "http", "A:8080"),
    ],
)
def test_a_default_or_empty_port_names_the_same_origin(
    reference: str, scheme: str, authority: str
) -> None:
    # RFC 3986 §6.2.3: an absent port equals the scheme's default port.
    assert resolve_target("/batch", reference, scheme=scheme, authority=authority) == "/books/1"


@pytest.mark.parametrize(
    ("reference", "authority"),
    [("http://a:8080/x", "a"), ("http://a/x", "a:8080"), ("http://a:443/x", "a")],
)
def test_another_port_is_another_origin(reference: str, authority: str) -> None:
    with pytest.raises(RemoteProtocolError) as info:
        resolve_target("/batch", reference, scheme="http", authority=authority)
    assert info.value.requirement == "MB-SUB-2"


@pytest.mark.parametrize(
    "target", ["/%62atch", "/%62%61%74%63%68", "/b%61tch?x=1", "http://A:80/batch", "/a/../batch"]
)
def test_every_spelling_of_the_batch_path_is_a_nested_batch(target: str) -> None:
    start = RequestPartStart(0, "GET", target, Fields(), 0, 20)
    with pytest.raises(RemoteProtocolError) as info:
        resolve_part_target(
            start, base="/batch", scheme="http", authority="a", batch_paths=("/batch",)
        )
    assert (info.value.requirement, info.value.offset) == ("MB-SUB-4", 20)


def test_a_percent_encoded_reserved_character_is_not_decoded() -> None:
    # %2F is a reserved "/" and stays one segment (RFC 3986 §2.2), so this is not /batch.
    start = RequestPartStart(0, "GET", "/%2Fbatch", Fields(), 0, 20)
    target = resolve_part_target(
        start, base="/batch", scheme="http", authority="a", batch_paths=("/batch",)
    )
    assert target == "/%2Fbatch"


def test_remove_dot_segments_matches_rfc3986_section_5_2_4_walkthrough() -> None:
    assert remove_dot_segments("/a/b/c/./../../g") == "/a/g"
    assert remove_dot_segments("mid/content=5/../6") == "mid/6"


def test_refuses_the_asterisk_form_with_mb_sub_8() -> None:
    with pytest.raises(RemoteProtocolError) as info:
        resolve_target("/batch", "*", scheme="http", authority="a")
    assert info.value.requirement == "MB-SUB-8"


def _part(index: int, target: str, offset: int) -> RequestPartStart:
    return RequestPartStart(index, "GET", target, Fields(), offset, offset + 9)


def test_a_remembered_resolution_depends_on_the_base_and_origin_too() -> None:
    for _ in range(2):
        assert resolve_part_target(_part(0, "g", 0), base="/b/c", scheme="http", authority="a")
        assert (
            resolve_part_target(_part(1, "g", 10), base="/x/y", scheme="http", authority="a")
            == "/x/g"
        )
        assert (
            resolve_part_target(_part(2, "g", 20), base="/b/c", scheme="http", authority="a")
            == "/b/g"
        )
    # The same absolute reference is on one origin and off another.
    here = _part(3, "http://a/g", 30)
    assert resolve_part_target(here, base="/b", scheme="http", authority="a") == "/g"
    with pytest.raises(RemoteProtocolError):
        resolve_part_target(here, base="/b", scheme="http", authority="other")


def test_a_repeated_refusal_names_each_part_and_offset() -> None:
    for index in range(3):
        with pytest.raises(RemoteProtocolError) as info:
            resolve_part_target(
                _part(index, "//elsewhere/x", 100 * index), base="/b", scheme="http", authority="a"
            )
        assert (info.value.part_index, info.value.offset) == (index, 100 * index + 9)


def test_resolutions_remembered_stay_bounded() -> None:
    from mixbatch.codec import _target

    for n in range(_target.RESOLVED_CACHE_SIZE + 5):
        assert (
            resolve_part_target(_part(n, f"/r/{n}", 0), base="/b", scheme="http", authority="a")
            == f"/r/{n}"
        )
    long = "/" + "x" * _target.RESOLVED_CACHE_MAX_CHARS
    assert resolve_part_target(_part(0, long, 0), base="/b", scheme="http", authority="a") == long
    assert len(_target._resolved) <= _target.RESOLVED_CACHE_SIZE
    assert all(key[0] != long for key in _target._resolved)


@pytest.mark.parametrize("reference", ["http:///x", "http://:80/x", "http://u@/x"])
def test_an_empty_host_matches_no_batch_even_one_without_a_host(reference: str) -> None:
    with pytest.raises(RemoteProtocolError) as caught:
        resolve_target("/batch", reference, scheme="http", authority="")
    assert caught.value.requirement == "MB-SUB-2"
