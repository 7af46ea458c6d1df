"""summary.md: the results document rendered as Markdown tables for the docs site.

Everything here is read from the results dictionary (the same one written to results.json), so
the page cannot disagree with the data. Figures are medians with the min-max spread of the
repetitions in brackets.
"""

from __future__ import annotations

from typing import Any

__all__ = ["render"]


def _spread(s: dict[str, Any], scale: float = 1.0, digits: int = 1) -> str:
    return f"{s['median'] * scale:.{digits}f} ({s['min'] * scale:.{digits}f}-{s['max'] * scale:.{digits}f})"


def _kib(n: int) -> str:
    return f"{n // 1024} KiB" if n < 1024 * 1024 else f"{n // (1024 * 1024)} MiB"


#: A one-minute load average at the start at or above this says other jobs were running.
BUSY_LOAD = 0.5


def _sharing(meta: dict[str, Any]) -> str:
    """What the load average at the start says about other jobs (the run's own load is after)."""
    if meta["loadavg_before"][0] >= BUSY_LOAD:
        return "other jobs shared the machine"
    return "no other job was running at the start"


def _meta(meta: dict[str, Any]) -> list[str]:
    return [
        f"Run: `{meta['command']}` on {meta['started']}, {meta['duration_s']:.0f} s, "
        f"{meta['repeats']} repetitions per figure, Python {meta['python']}, "
        f"{meta['cpu_count']} cores, load average {meta['loadavg_before'][0]:.1f} before and "
        f"{meta['loadavg_after'][0]:.1f} after ({_sharing(meta)}). "
        f"Placement: client on {meta['placement']['client']}, server on "
        f"{meta['placement']['server']}, relay {meta['placement']['relay']}.",
        "",
        "Every figure is the median of the repetitions with the min-max spread in brackets; "
        "ratios are taken per repetition, between methods measured in the same run.",
        "",
    ]


def _targets(records: list[dict[str, Any]]) -> list[str]:
    lines = [
        "## Targets",
        "",
        "| target | bound | measured | where | thesis | result |",
        "|---|---|---|---|---|---|",
    ]
    for r in records:
        measured = "-" if r["measured"] is None else f"{r['measured']:.3g} {r['unit']}"
        result = {True: "pass", False: "**FAIL**", None: "not run"}[r["passed"]]
        lines.append(
            f"| {r['statement']} | {r['bound']:g} {r['unit']} | {measured} | {r['where']} | "
            f"{r['thesis'] or '-'} | {result} |"
        )
    lines.append("")
    for r in records:
        why = r.get("why")
        if not why:
            continue
        lines.append(f"**Why `{r['id']}` missed.**")
        if "server_cpu_per_request_us" in why:
            cpu = why["server_cpu_per_request_us"]
            lines.append(
                f"Server CPU per request: {cpu['serial']:.0f} us alone, {cpu['batch']:.0f} us "
                "inside a batch; the batch can gain no more than their ratio once the network "
                "is gone."
            )
        for key, title in (
            ("profile_codec", "codec"),
            ("profile_server_batch", "server during one batch"),
            ("profile_server_serial", "server during serial requests"),
        ):
            if key in why:
                spots = ", ".join(f"`{h['function']}` {h['percent']:.0f} %" for h in why[key][:6])
                lines.append(f"Hot spots ({title}, own time): {spots}.")
        lines.append("")
    return lines


def _methods_vs_floor(a: dict[str, Any]) -> list[str]:
    lines = ["## Methods vs floor: serial, pipelined, one batch (thesis ch. 6)", ""]
    for grid in a["grids"]:
        p = grid["path"]
        rate = grid.get("fastest_rate_mbyte_s", p["bandwidth_mbyte_s"])
        lines += [
            f"### RTT {2 * p['configured_one_way_ms']:g} ms configured, "
            f"{p['rtt_measured_ms']:.2f} ms measured through the relay; fastest rate seen "
            f"{rate:.0f} MB/s",
            "",
            "| N | payload | serial s | pipelined s | batch s | pipelined % of serial (thesis) | "
            "batch % of serial (thesis) | floor s | serial / floor | pipelined / floor | "
            "batch / floor |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for c in grid["cells"]:
            s = c["seconds"]
            pct = c["percent_of_serial"]
            thesis = c["thesis"]
            tp = f" ({thesis['pipelined_pct']:g} %)" if thesis else ""
            tb = f" ({thesis['batch_pct']:g} %)" if thesis else ""
            f = c["ratio_to_floor"]
            lines.append(
                f"| {c['n']} | {_kib(c['payload_bytes'])} | {_spread(s['serial'], digits=3)} | "
                f"{_spread(s['pipelined'], digits=3)} | {_spread(s['batch'], digits=3)} | "
                f"{_spread(pct['pipelined'])}{tp} | {_spread(pct['batch'])}{tb} | "
                f"{c['floor_seconds']['median']:.3f} | {f['serial']['median']:.1f} | "
                f"{f['pipelined']['median']:.2f} | {f['batch']['median']:.2f} |"
            )
        lines.append("")
    t = a["throughput"]
    rps = t["requests_per_second"]
    lines += [
        f"Server throughput, no relay, N={t['n']} x 1 KiB: serial keep-alive "
        f"{_spread(rps['serial'], digits=0)} requests/s; inside one batch "
        f"{_spread(rps['batch'], digits=0)} sub-requests/s; ratio "
        f"{_spread(t['batch_over_serial'], digits=2)}. Server CPU per request "
        f"{t['server_cpu_per_request_us']['serial']['median']:.0f} us serial, "
        f"{t['server_cpu_per_request_us']['batch']['median']:.0f} us per part in a batch.",
        "",
        "The floor is the configured RTT + max(transfer bound, CPU bound): the fewest octets any method "
        "received at the fastest rate the path was seen to carry, or the least server CPU any "
        "method needed, whichever is larger (`bench/methods_vs_floor.py` says why neither can be "
        "beaten). A ratio below 1 would mean the floor is wrong; a target checks it.",
        "",
    ]
    return lines


def _verdict(ratio: float) -> str:
    if ratio >= 1.0:
        return f"the batch wins, {ratio:.1f}x"
    return f"the batch loses, {ratio:.2f}x (HTTP/2 takes {100 * ratio:.0f} % of its time)"


def _http2_vs_batch(b: dict[str, Any]) -> list[str]:
    lines = ["## HTTP/2 multiplexing vs one batch (h2load, nginx, hypercorn)", ""]
    if not b.get("available"):
        return [*lines, f"Not measured: {b.get('reason')}.", ""]
    lines += [
        f"GETs of {_kib(b['payload_bytes'])} on one connection. HTTP/2: h2load (C) with "
        f"`-m` {', '.join(str(m) for m in b['streams'])} streams against hypercorn and against "
        "nginx serving the same octets as a static file. Batch: one POST to the reference "
        "server and to the ASGI middleware under uvicorn, sent by h2load --h1 and curl (C; "
        "connection set-up included, as on the HTTP/2 side) and by the Python client "
        "bench.http1 (connection opened before the clock, so never taken as the best). `/ best batch` is a "
        "row's time over the best C-client batch row: above 1 the batch is faster.",
        "",
    ]
    verdicts = []
    for grid in b["grids"]:
        rtt = grid["path"]["rtt_measured_ms"]
        for cell in grid["cells"]:
            rows = cell["rows"]
            best = rows[cell["best_batch"]]["seconds"]["median"]
            lines += [
                f"### N={cell['n']}, RTT {rtt:.2f} ms measured",
                "",
                "| side | server | client | streams | seconds | / best batch |",
                "|---|---|---|---|---|---|",
            ]
            for i, row in enumerate(rows):
                mark = (
                    " **best**" if i == cell["best_batch"] or i in cell["best_h2"].values() else ""
                )
                if row["seconds"] is None:  # the client counted failed requests: published
                    timing = f"failed: {row['failed']} | - |"
                else:
                    timing = (
                        f"{_spread(row['seconds'], digits=4)}{mark} | "
                        f"{row['seconds']['median'] / best:.2f} |"
                    )
                lines.append(
                    f"| {row['side']} | {row['server']} | {row['client']} | "
                    f"{row['streams'] or '-'} | {timing}"
                )
            lines.append("")
            bound = cell.get("batch_bound_seconds")
            if bound is not None:
                lines += [
                    f"No batch can take less than {bound * 1000:.1f} ms here (configured RTT "
                    "plus the payloads at the path's bulk rate), so none can beat a server by "
                    "more than its best HTTP/2 time over that bound: "
                    + ", ".join(
                        f"{server} {ceiling['median']:.2f}x"
                        for server, ceiling in cell["ceiling_over_batch"].items()
                    )
                    + ".",
                    "",
                ]
            for server in ("hypercorn", "nginx"):
                ratio = cell["over_batch"].get(server)
                ceiling = cell.get("ceiling_over_batch", {}).get(server)
                verdicts.append(
                    f"N={cell['n']}, RTT {rtt:.1f} ms, against {server}: "
                    + (_verdict(ratio["median"]) if ratio else "no HTTP/2 row completed")
                    + (f" (ceiling {ceiling['median']:.2f}x)" if ratio and ceiling else "")
                )
    lines += ["Best HTTP/2 row over best batch row, per server:", ""]
    lines += [f"- {v}" for v in verdicts]
    lines.append("")
    return lines


def _uvicorn_pipelining(c: dict[str, Any]) -> list[str]:
    s = c["seconds"]
    return [
        f"## uvicorn pipelining ({c['uvicorn_http']}) vs a mixbatch batch",
        "",
        f"N={c['n']} GETs of {_kib(c['payload_bytes'])}, RTT {c['path']['rtt_measured_ms']:.2f} ms "
        "measured.",
        "",
        "| method | seconds |",
        "|---|---|",
        *[f"| {name} | {_spread(v, digits=3)} |" for name, v in s.items()],
        "",
        f"uvicorn pipelined / batch: {_spread(c['uvicorn_pipelined_over_batch'], digits=2)}; "
        f"reference pipelined / batch: {_spread(c['reference_pipelined_over_batch'], digits=2)}.",
        "",
    ]


def _parsers(d: dict[str, Any]) -> list[str]:
    lines = ["## Parsers: the codec against other multipart parsers", ""]
    if "fast_path" in d:
        state = "built and used" if d["fast_path"] else f"not used ({d.get('fast_path_reason')})"
        lines += [
            f"mixbatch's C fast path: {state}; `mixbatch_pure` is the pure-Python reference parser.",
            "",
        ]
    for label, shape in d["shapes"].items():
        lines += [
            f"### {label} ({shape['message_bytes'] / 1e6:.1f} MB message)",
            "",
            "| parser | parts/s | MB/s | peak heap MiB | all parts and octets |",
            "|---|---|---|---|---|",
        ]
        for name, p in shape["parsers"].items():
            ok = "yes" if p["parts_ok"] and p["bytes_ok"] else f"no ({p['parts_found']} parts)"
            lines.append(
                f"| {name} | {_spread(p['parts_per_second'], digits=0)} | "
                f"{_spread(p['mbyte_per_second'], digits=0)} | {p['peak_heap_mib']:.1f} | {ok} |"
            )
        lines.append("")
    return lines


def _scale(e: dict[str, Any]) -> list[str]:
    lines = [
        "## Scale",
        "",
        f"One {e['big_batch_bytes'] // (1024 * 1024)} MiB batch each way, fresh server each run.",
        "",
        "| batch | seconds | MB/s | first part s | server RSS growth MiB |",
        "|---|---|---|---|---|",
    ]
    for name in ("upload", "download"):
        r = e[name]
        first = _spread(r["first_part_seconds"], digits=3) if "first_part_seconds" in r else "-"
        lines.append(
            f"| {name} | {_spread(r['seconds'], digits=2)} | {_spread(r['mbyte_per_second'], digits=0)} | "
            f"{first} | {_spread(r['rss_growth_mib'])} |"
        )
    lines += [
        "",
        "| N | seconds | us per part | server CPU us per part | server RSS growth MiB |",
        "|---|---|---|---|---|",
    ]
    for g in e["growth"]:
        # Results from before the server's CPU time was read have no such figure.
        cpu = _spread(g["server_cpu_per_part_us"]) if "server_cpu_per_part_us" in g else "-"
        lines.append(
            f"| {g['n']} | {_spread(g['seconds'], digits=3)} | {_spread(g['us_per_part'], digits=0)} | "
            f"{cpu} | {_spread(g['rss_growth_mib'])} |"
        )
    lines.append("")
    return lines


def _batching_proxy(f: dict[str, Any]) -> list[str]:
    title = "## Batching proxy on the thesis' 3G link (§4.3)"
    if not f.get("available"):
        return [title, "", f"Not available: {f.get('reason')}.", ""]
    s = f["seconds"]
    model, thesis = f["model_seconds"], f["thesis_model_seconds"]
    slow, fast = f["slow_link"], f["fast_link"]
    lines = [
        title,
        "",
        f"N={f['n']} GETs of {f['payload_bytes']} octets from {f['origin']}. Client link: RTT "
        f"{slow['rtt_ms']:g} ms at {slow['mbit_per_s']:g} Mb/s each way ({f['slow_rtt_ms_measured']:.0f} "
        f"ms measured); proxy-origin link: RTT {fast['rtt_ms']:g} ms at {fast['mbit_per_s']:g} Mb/s "
        f"({f['fast_rtt_ms_measured']:.1f} ms measured). The model is the thesis' formula for the "
        f"same N; the last column is the thesis' own N={f['thesis_n']:,}.",
        "",
        f"| method | seconds | model s | model at N={f['thesis_n']:,} |",
        "|---|---|---|---|",
    ]
    for name, v in s.items():
        lines.append(
            f"| {name} | {_spread(v, digits=3)} | {model[name]:.2f} | {thesis[name]:,.1f} |"
        )
    lines += [
        "",
        f"direct serial / proxied batch: {_spread(f['direct_serial_over_proxy_batch'], digits=1)}; "
        f"direct pipelined / proxied batch: {_spread(f['direct_pipelined_over_proxy_batch'], digits=2)}. "
        "The proxy removes the per-request round trips of a client that sends one request at a "
        "time; a client that pipelines over the same link removes them too, without a proxy.",
        "",
    ]
    return lines


def render(doc: dict[str, Any]) -> str:
    lines = ["# Benchmark results", ""]
    lines += _meta(doc["meta"])
    lines += _targets(doc["targets"])
    results = doc["scenarios"]
    for key, fn in (
        ("methods_vs_floor", _methods_vs_floor),
        ("http2_vs_batch", _http2_vs_batch),
        ("uvicorn_pipelining", _uvicorn_pipelining),
        ("parsers", _parsers),
        ("scale", _scale),
        ("batching_proxy", _batching_proxy),
    ):
        if key in results:
            lines += fn(results[key])
    lines += ["## Method", "", *doc["meta"]["method"], ""]
    return "\n".join(lines)
