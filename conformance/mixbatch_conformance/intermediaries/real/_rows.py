"""Running the suite through real intermediaries, one row (program and variant) at a time.

``rows_from(items)`` reads ``nginx`` (its default variant), ``nginx:gzip``, ``nginx:all`` (every
variant it has) or ``real`` (every program, every variant). ``run_rows`` starts the origins
(reference servers unless ``--target`` names one), runs the suite once direct (``REPORT/direct``,
the run a hop is compared with) and then once through each row (``REPORT/<program>-<variant>``),
with the same seed, and writes ``REPORT/matrix.json``: per row the program's version, whether it
ran, its exit status, and where its report is. Each row's folder gets ``hop.json`` before the
suite starts (which program, where the origin-side recordings are, for hop blame) and the
program's configuration and logs in ``hop/`` afterwards. A program that is not installed is
a row marked not applicable with its install command, never a failure.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mixbatch_conformance.intermediaries.real import (
    INTERMEDIARIES,
    TWO_ORIGINS,
    Intermediary,
    install_command,
    split_name,
)
from mixbatch_conformance.intermediaries.real._launch import (
    NotInstalled,
    RealIntermediaryError,
    free_port,
    start_real,
)
from mixbatch_conformance.intermediaries.real._origin import (
    reference_description,
    reference_origins,
)
from mixbatch_conformance.intermediaries.real._probe import probe

__all__ = ["MATRIX_FILE", "Row", "is_row", "rows_from", "run_rows"]

MATRIX_FILE = "matrix.json"
#: The folder of the direct run every row is compared with.
DIRECT = "direct"
#: Exit status of a run with checks that fail (the suite's EXIT_NONCONFORMANT).
NONCONFORMANT = 1
#: Exit status of a run that could not test (the suite's EXIT_HARNESS).
COULD_NOT_TEST = 3


@dataclass(frozen=True, slots=True)
class Row:
    """One program in one variant."""

    intermediary: Intermediary
    variant: str

    @property
    def slug(self) -> str:
        return f"{self.intermediary.name}-{self.variant}"

    @property
    def label(self) -> str:
        return f"{self.intermediary.name}:{self.variant}"


def is_row(item: str) -> bool:
    """Whether ``item`` names a real intermediary (rather than a mitmproxy scenario)."""
    return item == "real" or item.partition(":")[0] in INTERMEDIARIES


def rows_from(items: Sequence[str]) -> list[Row]:
    """The rows ``items`` name, in order, each once; ValueError for an unknown variant."""
    rows: list[Row] = []
    for item in items:
        if item == "real":
            rows.extend(Row(i, v) for i in INTERMEDIARIES.values() for v in i.variants)
            continue
        name, _, variant = item.partition(":")
        if variant == "all":
            chosen = INTERMEDIARIES[name]
            rows.extend(Row(chosen, v) for v in chosen.variants)
            continue
        found = split_name(item)
        if found is None:
            raise ValueError(f"{item!r} names no real intermediary")
        rows.append(Row(*found))
    return list(dict.fromkeys(rows))


def _option(rest: list[str], name: str) -> str | None:
    for i, arg in enumerate(rest):
        if arg == name and i + 1 < len(rest):
            return rest[i + 1]
        if arg.startswith(name + "="):
            return arg.removeprefix(name + "=")
    return None


def _without(rest: list[str], name: str) -> list[str]:
    out: list[str] = []
    skip = False
    for arg in rest:
        if skip:
            skip = False
        elif arg == name:
            skip = True
        elif not arg.startswith(name + "="):
            out.append(arg)
    return out


@contextlib.contextmanager
def _origins(target: str | None, count: int, config: str | None) -> Iterator[tuple[list[str], str]]:
    """The origin URLs and the target description file every run uses."""
    with tempfile.TemporaryDirectory(prefix="mixbatch-rows-") as tmp:
        if target is not None:
            yield [target] * count, config or ""
            return
        with reference_origins(count) as urls:
            path = Path(tmp) / "target.json"
            path.write_text(json.dumps(reference_description(urls[0]), indent=2))
            yield urls, str(path)


def _write(path: Path, doc: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")


def _point_taps_at(folder: Path, taps: list[Path]) -> None:
    path = folder / "hop.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["taps"] = [str(t) for t in taps]
    _write(path, doc)


def _blamed(folder: Path) -> list[str]:
    """The checks the hop blame (written with the row's report) puts on the hop."""
    path = folder / "hop-blame.json"
    if not path.is_file():
        return []
    doc = json.loads(path.read_text(encoding="utf-8"))
    return [str(b["check_id"]) for b in doc.get("blamed", [])]


def _row_exit(code: int, blamed: list[str]) -> int:
    """A row's share of the matrix run's exit status.

    A check that times out or cannot be judged only through the hop (the hop closed the
    connection, never answered) is a finding about the hop, published in its row like a
    failure, so it counts as one; a row that could not test with nothing put on the hop is
    still a harness problem."""
    return NONCONFORMANT if code == COULD_NOT_TEST and blamed else code


def run_rows(
    rows: Sequence[Row],
    target: str | None,
    rest: list[str],
    suite_main: Callable[[list[str]], int],
    *,
    say: Callable[[str], None] = print,
) -> int:
    """Run the suite direct and through each row; the worst exit status of the direct run and
    the rows (see ``_row_exit``)."""
    report = _option(rest, "--report")
    seed = _option(rest, "--seed") or str(secrets.randbits(32))
    base = _without(_without(_without(rest, "--report"), "--seed"), "--config")
    base = [arg for arg in base if arg != "--http2"]
    base += ["--seed", seed]
    root = Path(report) if report else None
    count = 2 if any(r.variant in TWO_ORIGINS for r in rows) else 1
    entries: list[dict[str, Any]] = []
    worst = 0
    with _origins(target, count, _option(rest, "--config")) as (origins, config):
        configured = ["--config", config] if config else []
        direct_report = ["--report", str(root / DIRECT)] if root else []
        say(f"direct: testing {origins[0]} (seed {seed})")
        direct = suite_main(["--target", origins[0], *configured, *base, *direct_report])
        for row in rows:
            entry: dict[str, Any] = {
                "intermediary": row.intermediary.name,
                "variant": row.variant,
                "package": row.intermediary.package,
                "version": row.intermediary.version(),
                "report": row.slug,
            }
            entries.append(entry)
            used = origins if row.variant in TWO_ORIGINS else origins[:1]
            try:
                with contextlib.ExitStack() as own, contextlib.ExitStack() as hop_stack:
                    port = None
                    if target is None and row.variant in row.intermediary.tls_variants:
                        # Behind TLS the origin is told the front end's https address, so
                        # absolute https:// part targets on it are same-origin (MB-SUB-2).
                        port = free_port()
                        public = f"https://127.0.0.1:{port}"
                        used = own.enter_context(reference_origins(len(used), public))
                    hop = hop_stack.enter_context(
                        start_real(row.intermediary, row.variant, used, port=port)
                    )
                    folder = root / row.slug if root else None
                    if folder is not None:
                        _write(
                            folder / "hop.json",
                            {
                                "intermediary": row.intermediary.name,
                                "variant": row.variant,
                                "version": entry["version"],
                                "url": hop.url,
                                "origins": list(used),
                                "direct_report": str(root / DIRECT) if root else None,
                                "taps": [str(t) for t in hop.taps],
                            },
                        )
                    tls = ["--ca-file", str(hop.ca_file)] if hop.ca_file else []
                    if row.variant in row.intermediary.http2_variants:
                        tls.append("--http2")
                    # Behind a load balancer the comparison requests go through it too, to the
                    # process that holds the state the batch saw.
                    baseline = hop.url if row.variant in TWO_ORIGINS else used[0]
                    row_report = ["--report", str(folder)] if folder else []
                    say(f"via {row.label}: testing {hop.url} in front of {', '.join(used)}")
                    code = suite_main(
                        [
                            *("--target", hop.url, *configured, "--baseline", baseline),
                            *("--via-scenario", row.label, *tls, *base, *row_report),
                        ]
                    )
                    observed = probe(
                        hop.url,
                        hop.taps,
                        ca_file=hop.ca_file,
                        http2=row.variant in row.intermediary.http2_variants,
                    )
                    entry["observed"] = observed.as_dict()
                    if folder is not None:
                        hop.keep(folder / "hop")
                        # The run's own dir goes when the program stops; the kept copies of the
                        # recordings stay, so hop blame can be written again from the folder.
                        _point_taps_at(
                            folder, [folder / "hop" / f"origin-{n}" for n in range(len(hop.taps))]
                        )
            except NotInstalled as exc:
                say(f"via {row.label}: not applicable: {exc}")
                entry.update(status="not-installed", install=install_command(row.intermediary))
                continue
            except RealIntermediaryError as exc:
                say(f"via {row.label}: could not start: {exc}")
                entry.update(status="did-not-start", error=str(exc)[-2000:])
                worst = max(worst, COULD_NOT_TEST)
                continue
            entry.update(status="ran", exit=code)
            blamed = _blamed(root / row.slug) if root else []
            entry["blamed"] = blamed
            if blamed:
                say(f"via {row.label}: fail only through the hop: {', '.join(blamed)}")
            worst = max(worst, _row_exit(code, blamed))
    if root is not None:
        _write(
            root / MATRIX_FILE,
            {"seed": int(seed), "direct": {"report": DIRECT, "exit": direct}, "rows": entries},
        )
    return max(worst, direct)
