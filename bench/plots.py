"""PNG plots of a results document (matplotlib, Agg backend: no display needed).

One file per scenario that ran, named after it: methods_vs_floor as time against payload at the
largest N (the thesis' own graph) plus the percentage bars beside the thesis; http2_vs_batch as
one panel of every row per N and RTT; uvicorn_pipelining and batching_proxy as bars; parsers as
parts/s bars per shape; scale as time per part and RSS growth against N. Error bars span min
to max.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib import ticker

__all__ = ["write_plots"]


def _err(s: dict[str, Any], scale: float = 1.0) -> tuple[float, list[float]]:
    m = s["median"] * scale
    return m, [m - s["min"] * scale, s["max"] * scale - m]


def _bars(ax: Any, labels: list[str], summaries: list[dict[str, Any]], scale: float = 1.0) -> None:
    values = [_err(s, scale) for s in summaries]
    ax.bar(
        labels,
        [v[0] for v in values],
        yerr=[[v[1][0] for v in values], [v[1][1] for v in values]],
        capsize=4,
        color="#4878a8",
    )


def _plot_a(a: dict[str, Any], out: Path) -> list[Path]:
    grid = a["grids"][0]
    n = max(c["n"] for c in grid["cells"])
    cells = sorted((c for c in grid["cells"] if c["n"] == n), key=lambda c: c["payload_bytes"])
    sizes = [c["payload_bytes"] // 1024 for c in cells]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    for method in ("serial", "pipelined", "batch"):
        values = [_err(c["seconds"][method], 1000) for c in cells]
        left.errorbar(
            sizes,
            [v[0] for v in values],
            yerr=[[v[1][0] for v in values], [v[1][1] for v in values]],
            marker="o",
            capsize=3,
            label=method,
        )
    left.plot(sizes, [c["floor_seconds"]["median"] * 1000 for c in cells], "k--", label="floor")
    left.set(
        xlabel="payload (KiB)",
        ylabel="ms",
        yscale="log",
        title=f"N={n}, RTT {grid['path']['rtt_measured_ms']:.1f} ms",
    )
    left.legend()
    width = 0.2
    xs = range(len(cells))
    for offset, (label, getter) in enumerate(
        (
            ("pipelined (here)", lambda c: c["percent_of_serial"]["pipelined"]["median"]),
            ("pipelined (thesis)", lambda c: (c["thesis"] or {}).get("pipelined_pct", 0)),
            ("batch (here)", lambda c: c["percent_of_serial"]["batch"]["median"]),
            ("batch (thesis)", lambda c: (c["thesis"] or {}).get("batch_pct", 0)),
        )
    ):
        right.bar(
            [x + (offset - 1.5) * width for x in xs], [getter(c) for c in cells], width, label=label
        )
    right.set_xticks(list(xs), [f"{s} KiB" for s in sizes])
    right.set(ylabel="% of serial time", title="percent of serial, here vs thesis ch. 6")
    right.legend(fontsize=8)
    fig.tight_layout()
    path = out / "methods_vs_floor.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return [path]


def _simple(
    title: str,
    labels: list[str],
    summaries: list[dict[str, Any]],
    ylabel: str,
    path: Path,
    log: bool = False,
) -> Path:
    fig, ax = plt.subplots(figsize=(6.5, 4))
    _bars(ax, labels, summaries)
    ax.set(title=title, ylabel=ylabel)
    if log:
        ax.set_yscale("log")
    ax.tick_params(axis="x", labelsize=8)
    if len(labels) > 4:  # long parser names would run into each other
        plt.setp(ax.get_xticklabels(), rotation=30, ha="right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _plot_d(d: dict[str, Any], out: Path) -> list[Path]:
    paths = []
    for label, shape in d["shapes"].items():
        names = list(shape["parsers"])
        paths.append(
            _simple(
                f"parsers: parts/s, {label}",
                names,
                [shape["parsers"][n]["parts_per_second"] for n in names],
                "parts/s (log)",
                out / f"parsers_{label}.png",
                log=True,
            )
        )
    return paths


def _plot_e(e: dict[str, Any], out: Path) -> list[Path]:
    growth = e["growth"]
    ns = [g["n"] for g in growth]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.plot(ns, [g["us_per_part"]["median"] for g in growth], "o-")
    left.set(xscale="log", xlabel="parts", ylabel="us per part", title="scale: time per part")
    right.plot(ns, [g["rss_growth_mib"]["median"] for g in growth], "o-")
    right.set(xscale="log", xlabel="parts", ylabel="MiB", title="scale: server RSS growth")
    fig.tight_layout()
    path = out / "scale.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return [path]


def _plot_b(b: dict[str, Any], out: Path) -> list[Path]:
    panels = [(g["path"]["rtt_measured_ms"], c) for g in b["grids"] for c in g["cells"]]
    rows = len(panels[0][1]["rows"])
    fig, axes = plt.subplots(
        len(panels), 1, figsize=(9, 0.32 * rows * len(panels) + 1.2), squeeze=False
    )
    for ax, (rtt, cell) in zip(axes[:, 0], panels, strict=True):
        measured = [r for r in cell["rows"] if r["seconds"] is not None]  # failed rows: text
        labels = [r["label"] for r in measured]
        values = [_err(r["seconds"], 1000) for r in measured]
        colors = ["#c0504d" if r["side"] == "h2" else "#4878a8" for r in measured]
        ax.barh(
            labels,
            [v[0] for v in values],
            xerr=[[v[1][0] for v in values], [v[1][1] for v in values]],
            color=colors,
            capsize=3,
        )
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(ticker.NullFormatter())  # minor labels would overlap
        ax.invert_yaxis()
        ax.tick_params(axis="y", labelsize=7)
        ax.set(xlabel="ms (log)", title=f"N={cell['n']}, RTT {rtt:.1f} ms (red: HTTP/2)")
    fig.tight_layout()
    path = out / "http2_vs_batch.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return [path]


def write_plots(results: dict[str, Any], out: Path) -> list[Path]:
    paths: list[Path] = []
    if "methods_vs_floor" in results:
        paths += _plot_a(results["methods_vs_floor"], out)
    if results.get("http2_vs_batch", {}).get("available"):
        paths += _plot_b(results["http2_vs_batch"], out)
    if "uvicorn_pipelining" in results:
        c = results["uvicorn_pipelining"]
        names = list(c["seconds"])
        paths.append(
            _simple(
                f"uvicorn_pipelining: N={c['n']}, seconds (log)",
                names,
                [c["seconds"][k] for k in names],
                "seconds",
                out / "uvicorn_pipelining.png",
                log=True,
            )
        )
    if "parsers" in results:
        paths += _plot_d(results["parsers"], out)
    if "scale" in results:
        paths += _plot_e(results["scale"], out)
    if results.get("batching_proxy", {}).get("available"):
        f = results["batching_proxy"]
        names = list(f["seconds"])
        paths.append(
            _simple(
                f"batching_proxy: 3G link, N={f['n']}, seconds (log)",
                names,
                [f["seconds"][k] for k in names],
                "seconds",
                out / "batching_proxy.png",
                log=True,
            )
        )
    return paths
