"""The code of docs/guides/client.md runs: each example file it includes is executed against a
live server (the Starlette test app behind the batch middleware)."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from ..asgi.app import make_batched_app
from .servers import reference_server, uvicorn_server

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "guides" / "examples"
GUIDE = EXAMPLES.parent / "client.md"
NAMES = ("client_sync", "client_stream", "client_async")


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"guide_example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with uvicorn_server(make_batched_app()) as base:
        yield base


def test_the_guide_includes_every_example() -> None:
    text = GUIDE.read_text()
    for name in NAMES:
        assert f'--8<-- "docs/guides/examples/{name}.py"' in text


def test_sync_example(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert load("client_sync").main(url) == [200, 404, 201]
    assert capsys.readouterr().out.startswith("200 Summary(ok=2, failed=1")


def test_stream_example(url: str) -> None:
    assert load("client_stream").main(url) == [0, 1]


def test_async_example(url: str) -> None:
    assert load("client_async").main(url) == [200, 200]


def test_atomic_example_against_the_reference_server(capsys: pytest.CaptureFixture[str]) -> None:
    text = (EXAMPLES.parent / "atomic-and-references.md").read_text()
    assert '--8<-- "docs/guides/examples/client_atomic.py"' in text
    with reference_server() as base:
        assert load("client_atomic").main(base) == ["committed", "rolled-back"]
    out = capsys.readouterr().out
    assert out.startswith("committed [201, 200, 200]\n")
    assert "0 201 True False\n1 404 False False\n2 None False True\n" in out
