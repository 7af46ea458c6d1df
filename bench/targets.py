"""The published performance targets, as data plus a predicate each.

Each target names the scenario figure it reads, the bound, and the thesis' figure where there
is one. ``evaluate`` turns a results document into one record per target with ``measured``,
``passed`` (None when its scenario did not run) and ``where`` (which cell was used: in quick mode
a smaller N or batch than the target names, and the record says so). ``explain`` adds the
profile of the code that missed, so the report can name hot spots.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import http1, parsers, profiling

__all__ = ["TARGETS", "Target", "evaluate", "explain"]

Reading = tuple[float, str] | None  # (measured value, where it was measured)


def _a_cell(results: dict[str, Any], size: int) -> dict[str, Any] | None:
    a = results.get("methods_vs_floor")
    if not a:
        return None
    grid = a["grids"][0]  # the 2 ms grid
    cells = [c for c in grid["cells"] if c["payload_bytes"] == size]
    return max(cells, key=lambda c: c["n"]) if cells else None


def _batch_pct(results: dict[str, Any]) -> Reading:
    cell = _a_cell(results, 1024)
    if cell is None:
        return None
    return cell["percent_of_serial"]["batch"]["median"], f"methods_vs_floor, N={cell['n']} x 1 KiB"


def _pipelined_pct(results: dict[str, Any]) -> Reading:
    cell = _a_cell(results, 1024)
    if cell is None:
        return None
    return cell["percent_of_serial"]["pipelined"][
        "median"
    ], f"methods_vs_floor, N={cell['n']} x 1 KiB"


def _floor(results: dict[str, Any]) -> Reading:
    cell = _a_cell(results, 1024)
    if cell is None:
        return None
    return cell["ratio_to_floor"]["batch"]["median"], f"methods_vs_floor, N={cell['n']} x 1 KiB"


def _under_floor(results: dict[str, Any]) -> Reading:
    """The lowest method/floor ratio of any method, cell and repetition."""
    a = results.get("methods_vs_floor")
    if not a:
        return None
    lowest, where = float("inf"), ""
    for grid in a["grids"]:
        rtt = grid["path"]["rtt_measured_ms"]
        for cell in grid["cells"]:
            for method, ratio in cell["ratio_to_floor"].items():
                if ratio["min"] < lowest:
                    lowest = ratio["min"]
                    where = f"{method}, N={cell['n']} x {cell['payload_bytes']} B, RTT {rtt:.1f} ms"
    return lowest, f"methods_vs_floor, lowest: {where}"


def _h2_cell(results: dict[str, Any], grid_index: int = 0) -> tuple[dict[str, Any], str] | None:
    """The smallest-N cell of one RTT grid (0: 2 ms, 1: 20 ms)."""
    b = results.get("http2_vs_batch")
    if not b or not b.get("available") or len(b["grids"]) <= grid_index:
        return None
    grid = b["grids"][grid_index]
    cell = min(grid["cells"], key=lambda c: c["n"])
    rtt = grid["path"]["rtt_measured_ms"]
    return cell, f"http2_vs_batch, N={cell['n']}, RTT {rtt:.1f} ms, best rows"


def _h2_python(results: dict[str, Any]) -> Reading:
    found = _h2_cell(results)
    if found is None:
        return None
    cell, where = found
    ratio = cell["over_batch"].get("hypercorn")
    return (ratio["median"], where) if ratio else None


def _h2_nginx(results: dict[str, Any]) -> Reading:
    found = _h2_cell(results)
    if found is None:
        return None
    cell, where = found
    ratio = cell["over_batch"].get("nginx")
    return (ratio["median"], where) if ratio else None


def _h2_nginx_far(results: dict[str, Any]) -> Reading:
    found = _h2_cell(results, 1)
    if found is None:
        return None
    cell, where = found
    ratio = cell["over_batch"].get("nginx")
    return (ratio["median"], where) if ratio else None


def _cpu_per_part(results: dict[str, Any]) -> Reading:
    a = results.get("methods_vs_floor")
    t = (a or {}).get("throughput", {})
    if "server_cpu_per_request_us" not in t:
        return None
    return (
        t["server_cpu_per_request_us"]["batch"]["median"],
        f"methods_vs_floor throughput, N={t['n']} x 1 KiB, no relay",
    )


def _codec_vs_multipart(results: dict[str, Any]) -> Reading:
    d = results.get("parsers")
    if not d:
        return None
    label, shape = next(iter(d["shapes"].items()))  # the small-parts shape comes first
    parsers = shape["parsers"]
    ours = parsers["mixbatch"]["parts_per_second"]["median"]
    theirs = parsers["multipart2"]["parts_per_second"]["median"]
    return ours / theirs, f"parsers, {label}, both fed 64 KiB chunks"


def _codec_vs_scan(results: dict[str, Any]) -> Reading:
    d = results.get("parsers")
    if not d:
        return None
    label, shape = list(d["shapes"].items())[1]  # the large-parts shape
    parsers = shape["parsers"]
    best = max(
        ("mixbatch", "mixbatch_whole"), key=lambda k: parsers[k]["mbyte_per_second"]["median"]
    )
    ratio = (
        parsers[best]["mbyte_per_second"]["median"]
        / parsers["find_scan"]["mbyte_per_second"]["median"]
    )
    return ratio, f"parsers, {label}, best codec feed ({best})"


def _subrequests(results: dict[str, Any]) -> Reading:
    a = results.get("methods_vs_floor")
    if not a:
        return None
    t = a["throughput"]
    return t["batch_over_serial"][
        "median"
    ], f"methods_vs_floor throughput, N={t['n']} x 1 KiB, no relay"


def _rss(results: dict[str, Any]) -> Reading:
    e = results.get("scale")
    if not e:
        return None
    growth = max(e["upload"]["rss_growth_mib"]["median"], e["download"]["rss_growth_mib"]["median"])
    return (
        growth,
        f"scale, {e['big_batch_bytes'] // (1024 * 1024)} MiB batch, worse of upload/download",
    )


@dataclass(frozen=True, slots=True)
class Target:
    id: str
    statement: str
    read: Callable[[dict[str, Any]], Reading]
    bound: float
    at_most: bool  # True: measured <= bound passes; False: measured >= bound passes
    unit: str
    thesis: str = ""


TARGETS = (
    Target(
        "batch-vs-serial",
        "batch <= 3 % of serial at 2 ms RTT, 10,000 x 1 kB",
        _batch_pct,
        3.0,
        True,
        "%",
        "20 %",
    ),
    Target(
        "pipelined-vs-serial",
        "pipelined <= 10 % of serial at 2 ms RTT, 10,000 x 1 kB",
        _pipelined_pct,
        10.0,
        True,
        "%",
        "46 %",
    ),
    Target("batch-vs-floor", "batch within 1.5x of the floor", _floor, 1.5, True, "x"),
    Target(
        "no-method-under-floor",
        "no method, in any repetition, under the floor (configured RTT + max(transfer, CPU))",
        _under_floor,
        1.0,
        False,
        "x",
    ),
    Target(
        "batch-vs-h2-python",
        "batch >= 3x faster than HTTP/2 from a Python server (hypercorn), h2load, 500 items",
        _h2_python,
        3.0,
        False,
        "x",
        "seed: compound 1.8x-3.26x",
    ),
    Target(
        "batch-vs-h2-nginx",
        "batch at least as fast as HTTP/2 from nginx (static files), h2load, 500 items",
        _h2_nginx,
        1.0,
        False,
        "x",
        "seed: compound 1.8x-3.26x",
    ),
    Target(
        "batch-vs-h2-nginx-far",
        "batch >= 2.5x faster than HTTP/2 from nginx (static files), h2load, 500 items, 20 ms RTT",
        _h2_nginx_far,
        2.5,
        False,
        "x",
    ),
    Target(
        "server-cpu-per-part",
        "server CPU per part in one batch <= 10 us, 10,000 GETs of 1 KiB",
        _cpu_per_part,
        10.0,
        True,
        "us",
    ),
    Target(
        "codec-vs-multipart",
        "codec >= 3x the parts/s of multipart 2.x, 10,000 x 1 KB",
        _codec_vs_multipart,
        3.0,
        False,
        "x",
    ),
    Target(
        "codec-vs-scan",
        "codec at >= 50 % of a bare bytes.find scan, 100 x 1 MB",
        _codec_vs_scan,
        0.5,
        False,
        "x",
    ),
    Target(
        "subrequests-vs-serial",
        "sub-requests/s in one batch >= 10x sequential keep-alive requests/s",
        _subrequests,
        10.0,
        False,
        "x",
    ),
    Target("rss-1gib", "<= 64 MiB server RSS growth for a 1 GiB batch", _rss, 64.0, True, "MiB"),
)


def evaluate(results: dict[str, Any]) -> list[dict[str, Any]]:
    records = []
    for target in TARGETS:
        reading = target.read(results)
        record: dict[str, Any] = {
            "id": target.id,
            "statement": target.statement,
            "bound": target.bound,
            "unit": target.unit,
            "thesis": target.thesis,
        }
        if reading is None:
            record.update(measured=None, passed=None, where="scenario not run")
        else:
            value, where = reading
            passed = value <= target.bound if target.at_most else value >= target.bound
            record.update(measured=value, passed=passed, where=where)
        records.append(record)
    return records


def explain(records: list[dict[str, Any]], results: dict[str, Any], quick: bool) -> None:
    """Attach a profile and a reason to every missed target (in place)."""
    n_small = 2000 if quick else 10000
    for record in records:
        if record["passed"] is not False:
            continue
        why: dict[str, Any] = {}
        if record["id"] in ("codec-vs-multipart", "codec-vs-scan"):
            small = (2000, 1024) if quick else (10000, 1024)
            large = (100, 1 << 20)
            n, size = small if record["id"] == "codec-vs-multipart" else large
            boundary, content = parsers.build_message(n, size)
            why["profile_codec"] = profiling.profile_call(
                lambda b=boundary, c=content: parsers.PARSERS["mixbatch"](c, b)
            )
        elif record["id"] in ("subrequests-vs-serial", "batch-vs-serial", "batch-vs-floor"):
            why["profile_server_batch"] = profiling.profile_server(
                http1.batch_of_gets, (n_small, 1024)
            )
            if record["id"] == "subrequests-vs-serial":
                why["profile_server_serial"] = profiling.profile_server(
                    http1.serial_gets, (n_small // 4, 1024)
                )
                cpu = results["methods_vs_floor"]["throughput"]["server_cpu_per_request_us"]
                why["server_cpu_per_request_us"] = {k: v["median"] for k, v in cpu.items()}
        record["why"] = why
