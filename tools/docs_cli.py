"""Markdown for the CLI reference page, taken from the CLI's own `--help` at build time.

Theory of operation: the page cannot go stale because nobody writes it. At every docs build
this module runs `python -m mixbatch --help`, reads the subcommand names from the usage's
`{a,b,...}` choice list, runs `python -m mixbatch <cmd> --help` for each (and for the nested
commands of `conformance`, which dispatches `discover` and `replay` itself), and prints every
text verbatim in a code block. The interpreter is the one running the build, with a fixed
terminal width so that the wrapping does not depend on who builds.

When a command fails (the CLI is missing from this checkout, or a subcommand crashes on
`--help`), the page says so, with the exit status and stderr, instead of hiding the gap.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass

__all__ = ["HelpText", "cli_page", "collect_help", "subcommands"]

#: Commands that parse their own sub-commands without an argparse choice list.
NESTED = {"conformance": ("discover", "replay")}
_CHOICES = re.compile(r"\{([a-z][a-z0-9_-]*(?:,[a-z][a-z0-9_-]*)+)\}")
_LISTED = re.compile(r"^    ([a-z][a-z0-9_-]*)(?:\s|$)")
_TIMEOUT_S = 60


@dataclass(frozen=True)
class HelpText:
    """The outcome of one `--help` run."""

    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and bool(self.stdout.strip())

    @property
    def command(self) -> str:
        return "mixbatch " + " ".join(self.argv)


def _run_help(argv: tuple[str, ...]) -> HelpText:
    env = dict(os.environ, COLUMNS="100", PYTHONIOENCODING="utf-8", NO_COLOR="1")
    env.pop("FORCE_COLOR", None)
    proc = subprocess.run(
        [sys.executable, "-m", "mixbatch", *argv],
        capture_output=True,
        text=True,
        timeout=_TIMEOUT_S,
        env=env,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    return HelpText(argv, proc.returncode, proc.stdout, proc.stderr)


def subcommands(top_help: str) -> list[str]:
    """The subcommand names the top-level help offers, in its order.

    argparse shows subcommands either as a `{a,b,...}` choice list or, with a metavar, as an
    indented list under the positional arguments, one name per line at four spaces.
    """
    match = _CHOICES.search(top_help)
    if match:
        return match.group(1).split(",")
    names: list[str] = []
    in_positionals = False
    for line in top_help.splitlines():
        if not line.startswith(" "):
            in_positionals = line.strip().lower().startswith("positional arguments")
            continue
        if in_positionals and (m := _LISTED.match(line)):
            names.append(m.group(1))
    return names


def collect_help() -> list[HelpText]:
    """`--help` of the CLI, of each subcommand and of each nested command, in page order."""
    top = _run_help(("--help",))
    texts = [top]
    if not top.ok:
        return texts
    for name in subcommands(top.stdout):
        texts.append(_run_help((name, "--help")))
        texts.extend(_run_help((name, nested, "--help")) for nested in NESTED.get(name, ()))
    return texts


def _section(text: HelpText) -> str:
    words = text.argv[:-1]
    title = "mixbatch " + " ".join(words) if words else "mixbatch"
    anchor = "-".join(("cmd", *words)) if words else "cmd-mixbatch"
    lines = [f"## `{title}` {{#{anchor}}}", "", f"`{text.command}`", ""]
    if text.ok:
        lines += ["```text", text.stdout.rstrip("\n"), "```", ""]
    else:
        detail = (text.stderr or text.stdout).strip() or "(no output)"
        lines += [
            f'!!! failure "`{text.command}` exited with status {text.returncode}"',
            "",
            "    This command's help could not be generated at build time:",
            "",
            "    ```text",
            *("    " + line for line in detail.splitlines()[-15:]),
            "    ```",
            "",
        ]
    return "\n".join(lines)


def cli_page(texts: list[HelpText]) -> str:
    """The page body: a list of commands, then one section per `--help` text."""
    top = texts[0]
    if not top.ok:
        return (
            '!!! warning "The `mixbatch` command is not available in this build"\n\n'
            "    `python -m mixbatch --help` failed, so this page has no command reference\n"
            "    yet. The conformance suite alone runs as `python -m mixbatch_conformance.cli`.\n\n"
            + _section(top)
        )
    index = ["| Command | Summary |", "|---|---|"]
    for text in texts[1:]:
        words = text.argv[:-1]
        summary = _first_sentence(text.stdout) if text.ok else "help failed at build time"
        index.append(
            f"| [`mixbatch {' '.join(words)}`](#{'-'.join(('cmd', *words))}) | {summary} |"
        )
    return "\n".join(index) + "\n\n" + "\n".join(_section(t) for t in texts)


def _first_sentence(help_text: str) -> str:
    """The description paragraph argparse prints after the usage lines, first sentence only."""
    paragraphs = [p.strip() for p in help_text.split("\n\n")]
    for para in paragraphs[1:]:
        if para and not para.lower().startswith(("usage:", "positional arguments", "options")):
            first = " ".join(para.split()).split(". ")[0].rstrip(".")
            return first.replace("|", "\\|") + "."
    return ""


def main() -> int:
    sys.stdout.write(cli_page(collect_help()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
