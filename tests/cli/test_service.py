"""What ``serve`` and ``proxy`` share: options become a config, and failures become exit statuses
(2 for an invalid option, 1 for an address that cannot be bound, 0 after a stop)."""

from __future__ import annotations

import argparse
import errno

import pytest

from mixbatch.cli import _serve, build_parser
from mixbatch.cli._serve import config_from_args
from mixbatch.cli._service import run_service
from mixbatch.server import ServerConfig


def _args() -> argparse.Namespace:
    return argparse.Namespace(host="127.0.0.1", port=8081, log_level="WARNING")


def test_a_service_that_runs_to_its_end_exits_0_having_served_the_config_built() -> None:
    served: list[object] = []

    async def serve(config: object) -> None:
        served.append(config)

    assert run_service("proxy", _args(), lambda args: ("config of", args.port), serve) == 0
    assert served == [("config of", 8081)]


def test_an_invalid_option_exits_2_with_its_message_and_serves_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    served: list[object] = []

    def config_from(args: argparse.Namespace) -> object:
        raise ValueError("ProxyConfig.run_ahead must be positive, got 0")

    async def serve(config: object) -> None:
        served.append(config)

    assert run_service("proxy", _args(), config_from, serve) == 2
    assert capsys.readouterr().err == (
        "mixbatch proxy: ProxyConfig.run_ahead must be positive, got 0\n"
    )
    assert served == []


def test_an_address_that_cannot_be_bound_exits_1_naming_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    async def serve(config: object) -> None:
        raise OSError(errno.EADDRINUSE, "address already in use")

    assert run_service("serve", _args(), lambda args: args, serve) == 1
    assert capsys.readouterr().err == (
        f"mixbatch serve: cannot listen on 127.0.0.1:8081: [Errno {errno.EADDRINUSE}] "
        "address already in use\n"
    )


def test_an_interrupt_is_a_normal_stop() -> None:
    async def serve(config: object) -> None:
        raise KeyboardInterrupt

    assert run_service("serve", _args(), lambda args: args, serve) == 0


def test_serve_options_left_alone_give_the_default_server_config() -> None:
    args = build_parser().parse_args(["serve"])
    assert config_from_args(args) == ServerConfig()


def _serve_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    subparsers = parser.add_subparsers()
    _serve.add_parser(subparsers)
    serve: argparse.ArgumentParser = subparsers.choices["serve"]
    return serve


def test_every_numeric_serve_option_reaches_its_server_config_field() -> None:
    parser = _serve_parser()
    numbers: dict[str, int | float] = {}
    for dest, default in vars(parser.parse_args([])).items():
        if isinstance(default, bool) or not isinstance(default, int | float):
            continue
        # A value of its own for each option, so that two options swapped would show.
        numbers[dest] = default + len(numbers) + (1 if isinstance(default, int) else 0.5)
    assert {"port", "max_parts", "batch_timeout", "max_batches_in_flight"} <= numbers.keys()
    argv: list[str] = []
    for name, number in numbers.items():
        argv += ["--" + name.replace("_", "-"), str(number)]
    numbers["port"] = 0
    config = config_from_args(parser.parse_args([*argv, "--port", "0"]))
    for name, number in numbers.items():
        holder = config.limits if hasattr(config.limits, name) else config
        assert getattr(holder, name) == number, name


def test_the_serve_options_for_a_front_end_and_the_data_directory_reach_the_config() -> None:
    argv = ["--host", "127.0.0.2", "--trust-forwarded", "--data", "/tmp/mixbatch-data"]
    argv += ["--public-origin", "https://api.example.test"]
    config = config_from_args(_serve_parser().parse_args(argv))
    assert (config.host, config.trust_forwarded) == ("127.0.0.2", True)
    assert config.public_origin == "https://api.example.test"
    assert str(config.data_dir) == "/tmp/mixbatch-data"


def test_an_invalid_serve_option_is_a_value_error_naming_it() -> None:
    with pytest.raises(ValueError, match="max_parts"):
        config_from_args(_serve_parser().parse_args(["--max-parts", "0"]))
