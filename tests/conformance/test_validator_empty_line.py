"""The reader reports a part whose header section runs into the next delimiter to senders.

MB-WIRE-7 makes a sender write the empty line after every part header section; MB-WIRE-21
makes a receiver accept a part without it. The reader keeps both: the part is read, and a
non-fatal finding citing MB-WIRE-7 with no receiver requirement says the sender broke it.
"""

from __future__ import annotations

import pytest

from mixbatch_conformance.core.validator import read_multipart

FIELDS = {
    "head": b"Http-Status-Code: 200\r\nContent-Id: <a>\r\nContent-Length: 0\r\n",
    "no-content": b"Http-Status-Code: 204\r\nContent-Id: <b>\r\n",
    "not-modified": b"Http-Status-Code: 304\r\nContent-Id: <c>\r\n",
    "skipped": b"Http-Status-Code: 424\r\nBatch-Outcome: skipped\r\nContent-Id: <d>\r\n",
    "no-fields": b"",
}
WHOLE = b"Http-Status-Code: 200\r\nContent-Id: <z>\r\nContent-Length: 2\r\n\r\nok"


def _body(parts: list[bytes]) -> bytes:
    return b"--b1\r\n" + b"\r\n--b1\r\n".join(parts) + b"\r\n--b1--\r\n"


@pytest.mark.parametrize("kind", sorted(FIELDS))
@pytest.mark.parametrize("where", [0, 1, 2])
def test_reports_a_missing_empty_line_in_any_position(kind: str, where: int) -> None:
    parts = [WHOLE, WHOLE, WHOLE]
    parts[where] = FIELDS[kind]
    env = read_multipart(_body(parts), "b1")
    assert len(env.parts) == 3
    assert env.parts[where].body == b""
    missing = [f for f in env.findings if f.sender == "MB-WIRE-7"]
    assert len(missing) == 1
    assert missing[0].receiver is None
    assert not missing[0].fatal
    assert f"part {where}" in missing[0].message


@pytest.mark.parametrize("kind", sorted(FIELDS))
def test_accepts_the_empty_line_before_an_empty_body(kind: str) -> None:
    env = read_multipart(_body([FIELDS[kind] + b"\r\n", WHOLE]), "b1")
    assert env.findings == ()
    assert env.parts[0].body == b""
    assert env.complete
