# Types of the C fast path in _accel.c (built by hatch_build.py).
from mixbatch.codec._limits import Limits

def configure(
    request_start: tuple[type, tuple[str, ...]],
    response_start: tuple[type, tuple[str, ...]],
    part_data: tuple[type, tuple[str, ...]],
    part_end: tuple[type, tuple[str, ...]],
    fields: tuple[type, tuple[str, ...]],
    forbidden_request: tuple[bytes, ...],
    forbidden_response: tuple[bytes, ...],
    forbidden_methods: tuple[bytes, ...],
    /,
) -> None: ...
def scan(
    buf: bytes,
    pos: int,
    base: int,
    index: int,
    request: bool,
    nl_dash: bytes,
    limits: Limits,
    events: list[object],
    /,
) -> tuple[int, int, int]: ...
def response_part(
    dash: bytes,
    first: bool,
    status: object,
    content_id: object,
    fields: object,
    body: object,
    not_allowed: tuple[bytes, ...],
    /,
) -> bytes | None: ...
