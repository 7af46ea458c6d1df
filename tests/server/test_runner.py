"""Running the server as a process: ``serve`` binds, announces ``mixbatch listening on URL`` (the
line tools parse for the port), serves on loopback, and shuts down when cancelled."""

from __future__ import annotations

import asyncio
import gc
import io
import re

from mixbatch.server import ServerConfig
from mixbatch.server._runner import ANNOUNCEMENT, serve

#: Seconds any one step may take before the test fails.
STEP = 5.0


def test_serve_announces_its_url_serves_and_stops_when_cancelled() -> None:
    frozen: list[int] = []

    async def scenario() -> tuple[str, bytes, int]:
        announce = io.StringIO()
        task = asyncio.ensure_future(serve(ServerConfig(host="127.0.0.1", port=0), announce))
        for _ in range(int(STEP / 0.01)):
            if announce.getvalue() or task.done():
                break
            await asyncio.sleep(0.01)
        line = announce.getvalue()
        match = re.fullmatch(r"mixbatch listening on http://127\.0\.0\.1:(\d+)\n", line)
        assert match is not None, line
        port = int(match.group(1))
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /status/204 HTTP/1.1\r\nHost: t\r\n\r\n")
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), STEP)
        writer.close()
        frozen.append(gc.get_freeze_count())
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        frozen.append(gc.get_freeze_count())
        return line, head, port

    before = gc.get_freeze_count()
    line, head, port = asyncio.run(asyncio.wait_for(scenario(), 3 * STEP))
    # While it serves, what the process built before is out of the collector's way; not after.
    assert frozen[0] > before
    assert frozen[1] == 0
    assert line == ANNOUNCEMENT.format(url=f"http://127.0.0.1:{port}") + "\n"
    assert head.startswith(b"HTTP/1.1 204 ")

    async def refused() -> bool:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except ConnectionRefusedError:
            return True
        writer.close()
        return False

    assert asyncio.run(refused())
