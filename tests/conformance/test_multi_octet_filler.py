"""The two-octet filler the octet-limit checks send is exactly the octets asked, in half as many
characters (rounded up), so a server counting characters sees fewer than the limit."""

from __future__ import annotations

import pytest

from mixbatch_conformance.checks.limit_octets import multi_octet


@pytest.mark.parametrize("octets", [0, 1, 2, 7, 8])
def test_multi_octet_filler_is_exactly_the_octets_asked(octets: int) -> None:
    filler = multi_octet(octets)
    assert len(filler) == octets
    assert len(filler.decode()) == (octets + 1) // 2
