"""Where the time goes when a target is missed: cProfile of the codec or the server.

``profile_call`` profiles a plain function (the codec on a prepared message). ``profile_server``
runs the reference server in this process under cProfile while a spawned client
process drives a workload against it, so the figures are the server's alone. Each hot spot is
reported with its own time (``tottime``) as a percentage of the profile's busy total (time
blocked in epoll/poll, that is idle, is left out), and its cumulative time, so a report can name
the functions to work on.
"""

from __future__ import annotations

import asyncio
import cProfile
import multiprocessing
import pstats
from collections.abc import Callable
from typing import Any, TypedDict

from mixbatch.codec import Limits
from mixbatch.server import Server, ServerConfig, build_app

__all__ = ["HotSpot", "hot_spots", "profile_call", "profile_server"]

TOP = 12


class HotSpot(TypedDict):
    function: str
    calls: int
    tottime_s: float
    percent: float
    cumtime_s: float


def _is_idle(name: str) -> bool:
    return "of 'select." in name or "acquire' of '_thread.lock" in name


def hot_spots(profile: cProfile.Profile, top: int = TOP) -> list[HotSpot]:
    """The ``top`` functions by own time, with shortened paths."""
    stats = pstats.Stats(profile)
    table: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    # Waiting in epoll/poll is idle time, not work: it is left out of the total and the list.
    busy = {key: entry for key, entry in table.items() if not _is_idle(key[2])}
    total = sum(entry[2] for entry in busy.values()) or 1e-12
    rows = sorted(busy.items(), key=lambda item: item[1][2], reverse=True)[:top]
    out: list[HotSpot] = []
    for (filename, line, name), (_cc, calls, tottime, cumtime, _callers) in rows:
        short = filename.split("/site-packages/")[-1].split("/reference-impl/")[-1]
        out.append(
            {
                "function": f"{short}:{line}({name})",
                "calls": calls,
                "tottime_s": round(tottime, 4),
                "percent": round(100 * tottime / total, 1),
                "cumtime_s": round(cumtime, 4),
            }
        )
    return out


def profile_call(func: Callable[[], object]) -> list[HotSpot]:
    profile = cProfile.Profile()
    profile.enable()
    try:
        func()
    finally:
        profile.disable()
    return hot_spots(profile)


def _client(
    workload: Callable[..., object], address: tuple[str, int], args: tuple[Any, ...]
) -> None:
    workload(address, *args)


def profile_server(
    workload: Callable[..., object], args: tuple[Any, ...] = (), limits: Limits | None = None
) -> list[HotSpot]:
    """Profile the reference server while ``workload(address, *args)`` runs in a child process.

    Since Python 3.12 cProfile hooks ``sys.monitoring``, which sees every thread, so the client
    must live in another process for the profile to hold the server alone. ``workload`` must be
    a module-level function (it is pickled into a spawned process).
    """
    profile = cProfile.Profile()
    context = multiprocessing.get_context("spawn")

    async def main() -> int | None:
        config = ServerConfig(host="127.0.0.1", port=0, limits=limits or Limits())
        server = Server(build_app(config), config)
        await server.start()
        child = context.Process(target=_client, args=(workload, (server.host, server.port), args))
        child.start()
        loop = asyncio.get_running_loop()
        profile.enable()
        try:
            await asyncio.wait_for(loop.run_in_executor(None, child.join, 300), timeout=310)
        finally:
            profile.disable()
            if child.is_alive():
                child.terminate()
                child.join(5)
            await server.shutdown(grace=1.0)
        return child.exitcode

    exitcode = asyncio.run(main())
    if exitcode != 0:
        raise RuntimeError(f"profiled workload failed with exit code {exitcode}")
    return hot_spots(profile)
