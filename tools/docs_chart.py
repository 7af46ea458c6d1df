"""The home page's latency chart: an inline SVG computed from the thesis' model.

Theory of operation: the figures are not typed in, they are computed from the model the spec
states in section 1.1. A client sends N requests of B bits over a link with latency L and
capacity C bits per millisecond. One by one, each request pays L plus its transmission time
B / C; as one batch, the latency is paid once and the transmission time N times. With the
thesis' numbers (N = 10,000, B = 8,000 bits, L = 10 ms, C = 10 Mb/s) that is 108 s against
8.01 s. Each bar is split into its latency share and its transmission share, which is the
point of the chart: batching removes latency, not bytes.

The SVG is self-contained (no fonts, scripts or external references) and takes its colours
from the theme's CSS custom properties, so it follows the light and dark palettes. Run as a
script to print it.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from html import escape

__all__ = ["THESIS_MODEL", "LatencyModel", "latency_chart_svg"]


@dataclass(frozen=True)
class LatencyModel:
    """The crude model of spec section 1.1: latency plus transmission, nothing else."""

    requests: int
    bits_per_request: int
    latency_ms: float
    bits_per_ms: float

    @property
    def transmission_ms(self) -> float:
        """Transmission time of all requests together, the same either way."""
        return self.requests * self.bits_per_request / self.bits_per_ms

    @property
    def one_by_one_ms(self) -> tuple[float, float]:
        """(latency share, transmission share) when every request waits for the previous one."""
        return self.requests * self.latency_ms, self.transmission_ms

    @property
    def batched_ms(self) -> tuple[float, float]:
        """(latency share, transmission share) when all requests travel as one batch."""
        return self.latency_ms, self.transmission_ms


#: The thesis' example: 10,000 requests of 8,000 bits at 10 ms and 10 Mb/s.
THESIS_MODEL = LatencyModel(
    requests=10_000, bits_per_request=8_000, latency_ms=10.0, bits_per_ms=10_000.0
)

_WIDTH = 680
_LABEL_W = 130
_BAR_W = 440
_BAR_H = 34
_TOP = 44


def _seconds(ms: float) -> str:
    s = ms / 1000
    return f"{s:,.0f} s" if s >= 100 else f"{s:,.2f} s".replace(".00 s", " s")


def latency_chart_svg(model: LatencyModel = THESIS_MODEL) -> str:
    """A horizontal stacked bar chart of the two totals, as one line of SVG markup."""
    rows = [("One by one", model.one_by_one_ms), ("One batch", model.batched_ms)]
    longest = max(sum(parts) for _, parts in rows)
    scale = _BAR_W / longest
    height = _TOP + len(rows) * (_BAR_H + 26) + 34
    title = (
        f"{model.requests:,} requests of {model.bits_per_request:,} bits at "
        f"{model.latency_ms:g} ms latency and {model.bits_per_ms * 1000 / 1e6:g} Mb/s"
    )
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_WIDTH} {height}" '
        f'width="100%" role="img" aria-labelledby="mb-chart-title mb-chart-desc" '
        f'class="mb-latency-chart">',
        f'<title id="mb-chart-title">{escape(title)}</title>',
        f'<desc id="mb-chart-desc">One by one: {_seconds(sum(model.one_by_one_ms))}. '
        f"As one batch: {_seconds(sum(model.batched_ms))}.</desc>",
        f'<text x="0" y="18" style="fill:var(--md-default-fg-color);font-size:15px;'
        f'font-weight:bold">{escape(title)}</text>',
    ]
    for i, (label, (latency, transmission)) in enumerate(rows):
        y = _TOP + i * (_BAR_H + 26)
        lat_w = max(latency * scale, 1.5)  # keep one batch's 10 ms latency visible
        tx_w = transmission * scale
        out += [
            f'<text x="0" y="{y + _BAR_H * 0.65:.1f}" '
            f'style="fill:var(--md-default-fg-color);font-size:14px">{escape(label)}</text>',
            f'<rect x="{_LABEL_W}" y="{y}" width="{lat_w:.1f}" height="{_BAR_H}" '
            f'style="fill:var(--md-accent-fg-color)"><title>latency {_seconds(latency)}'
            f"</title></rect>",
            f'<rect x="{_LABEL_W + lat_w:.1f}" y="{y}" width="{tx_w:.1f}" height="{_BAR_H}" '
            f'style="fill:var(--md-primary-fg-color)"><title>transmission '
            f"{_seconds(transmission)}</title></rect>",
            f'<text x="{_LABEL_W + lat_w + tx_w + 8:.1f}" y="{y + _BAR_H * 0.65:.1f}" '
            f'style="fill:var(--md-default-fg-color);font-size:14px;font-weight:bold">'
            f"{_seconds(latency + transmission)}</text>",
        ]
    legend_y = height - 14
    out += [
        f'<rect x="{_LABEL_W}" y="{legend_y - 11}" width="12" height="12" '
        f'style="fill:var(--md-accent-fg-color)"/>',
        f'<text x="{_LABEL_W + 18}" y="{legend_y}" style="fill:var(--md-default-fg-color);'
        f'font-size:13px">latency</text>',
        f'<rect x="{_LABEL_W + 90}" y="{legend_y - 11}" width="12" height="12" '
        f'style="fill:var(--md-primary-fg-color)"/>',
        f'<text x="{_LABEL_W + 108}" y="{legend_y}" style="fill:var(--md-default-fg-color);'
        f'font-size:13px">transmission</text>',
        "</svg>",
    ]
    return "".join(out)


def main() -> int:
    sys.stdout.write(latency_chart_svg() + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
