"""Spec 3.2.4's comparison of a sub-request with the same request sent alone (core.echo)."""

from __future__ import annotations

from mixbatch_conformance.core.echo import Echo, differences

OWN = (("Accept", "text/plain"), ("X-Mb-A", "1"))
CREDENTIALS = (("Authorization", "Bearer t"), ("Cookie", "a=1"), ("Cookie", "b=2"))


def _echo(*headers: tuple[str, str]) -> Echo:
    return Echo("GET", "/echo", tuple(headers), b"")


def test_inherited_credentials_may_stand_anywhere() -> None:
    # Spec 3.2.4: the lines of Authorization and of Cookie "are compared apart from the
    # others, each field as the ordered list of its own lines, wherever they stand".
    alone = _echo(*OWN, *CREDENTIALS)
    assert differences(_echo(*CREDENTIALS, *OWN), alone) == []
    assert differences(_echo(OWN[0], *CREDENTIALS, OWN[1]), alone) == []
    assert (
        differences(_echo(("cookie", "a=1"), *OWN, ("Cookie", "b=2"), CREDENTIALS[0]), alone) == []
    )


def test_credential_lines_keep_their_own_order() -> None:
    alone = _echo(*OWN, *CREDENTIALS)
    swapped = _echo(*OWN, CREDENTIALS[0], CREDENTIALS[2], CREDENTIALS[1])
    assert differences(swapped, alone)
    assert differences(_echo(*OWN, *CREDENTIALS[:2]), alone)


def test_other_fields_keep_their_order() -> None:
    alone = _echo(*OWN, *CREDENTIALS)
    assert differences(_echo(OWN[1], OWN[0], *CREDENTIALS), alone)
