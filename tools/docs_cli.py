"""Markdown for the CLI reference page, taken from the CLI's own `--help` at build time.

Theory of operation: the page cannot go stale because nobody writes it. At every docs build
this module runs `python -m mixbatch --help`, reads the subcommand names from the usage's
`{a,b,...}` choice list, runs `python -m mixbatch <cmd> --help` for each (and for the nested
commands of `conformance`, which dispatches `discover` and `replay` itself), and prints every
text verbatim in a code block, each command's exit statuses included (its help's epilog). The
output of `python -m mixbatch --version` follows the top-level help. The interpreter is the one running the build, with a fixed
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

__all__ = ["HelpText", "cli_page", "collect_help", "command_summaries", "subcommands"]

#: Commands that parse their own sub-commands without an argparse choice list.
NESTED = {"conformance": ("discover", "replay")}
_CHOICES = re.compile(r"\{([a-z][a-z0-9_-]*(?:,[a-z][a-z0-9_-]*)+)\}")
_LISTED = re.compile(r"^    ([a-z][a-z0-9_-]*)(?:\s|$)")
_TIMEOUT_S = 60
#: The one run whose output is not a help text.
VERSION_ARGV = ("--version",)


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


def command_summaries(top_help: str) -> dict[str, str]:
    """Subcommand name -> its one-line help, as the top-level help lists them, in its order.

    argparse lists subcommands either as a `{a,b,...}` choice list (names only) or, with a
    metavar, under the positional arguments: a name at four spaces, its help on the same line
    or, for a long name, on the next, deeper-indented lines.
    """
    match = _CHOICES.search(top_help)
    if match:
        return dict.fromkeys(match.group(1).split(","), "")
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    in_positionals = False
    for line in top_help.splitlines():
        if not line.startswith(" "):
            in_positionals = line.strip().lower().startswith("positional arguments")
            current = None
            continue
        if not in_positionals:
            continue
        if m := _LISTED.match(line):
            current = found.setdefault(m.group(1), [])
            current.append(line[m.end() :].strip())
        elif current is not None and line.startswith("      "):
            current.append(line.strip())
        else:
            current = None
    return {name: " ".join(w for w in words if w) for name, words in found.items()}


def subcommands(top_help: str) -> list[str]:
    """The subcommand names the top-level help offers, in its order."""
    return list(command_summaries(top_help))


def collect_help() -> list[HelpText]:
    """`--help` of the CLI, its `--version`, then `--help` of each subcommand and of each nested
    command, in page order."""
    top = _run_help(("--help",))
    texts = [top]
    if not top.ok:
        return texts
    texts.append(_run_help(VERSION_ARGV))
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
    version = next((t for t in texts if t.argv == VERSION_ARGV), None)
    texts = [t for t in texts if t.argv != VERSION_ARGV]
    summaries = command_summaries(top.stdout)
    index = ["| Command | Summary |", "|---|---|"]
    for text in texts[1:]:
        words = text.argv[:-1]
        if not text.ok:
            summary = "help failed at build time"
        elif len(words) == 1:
            summary = summaries.get(words[0], "") or _description(text.stdout)
        else:
            summary = _description(text.stdout)
        anchor = "-".join(("cmd", *words))
        link = f"[`mixbatch {' '.join(words)}`](#{anchor})"
        index.append(f"| {link} | {_sentence(summary)} |")
    sections = [_section(t) for t in texts]
    if version is not None:
        sections.insert(1, _version_section(version))
    return "\n".join(index) + "\n\n" + "\n".join(sections)


def _version_section(text: HelpText) -> str:
    if text.ok:
        return "\n".join(
            [f"`{text.command}` prints:", "", "```text", text.stdout.rstrip("\n"), "```", ""]
        )
    detail = (text.stderr or text.stdout).strip() or "(no output)"
    return f'!!! failure "`{text.command}` exited with status {text.returncode}"\n\n    {detail}\n'


def _description(help_text: str) -> str:
    """argparse's description: the paragraph right after the usage, unless it is a section."""
    paragraphs = [p.strip() for p in help_text.split("\n\n")]
    if len(paragraphs) > 1 and not paragraphs[1].splitlines()[0].endswith(":"):
        return " ".join(paragraphs[1].split())
    return ""


def _sentence(text: str) -> str:
    """The text as one table-safe sentence with a capital and a full stop ('' stays '')."""
    text = text.strip().replace("|", "\\|")
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if text.endswith(".") else text + "."


def main() -> int:
    sys.stdout.write(cli_page(collect_help()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
