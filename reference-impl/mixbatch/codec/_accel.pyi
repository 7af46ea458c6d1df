# Types of the C fast path in _accel.c (built by hatch_build.py).
def configure(
    request_start: tuple[type, tuple[str, ...]],
    response_start: tuple[type, tuple[str, ...]],
    part_data: tuple[type, tuple[str, ...]],
    part_end: tuple[type, tuple[str, ...]],
    fields: tuple[type, tuple[str, ...]],
    forbidden_request: tuple[bytes, ...],
    forbidden_response: tuple[bytes, ...],
    /,
) -> None: ...
def scan(
    buf: bytes,
    view: memoryview,
    pos: int,
    base: int,
    index: int,
    request: bool,
    dash: bytes,
    max_parts: int,
    max_header: int,
    max_part: int,
    events: list[object],
    /,
) -> tuple[int, int, int]: ...
