"""The code of docs/guides/fastapi.md runs: each example file the guide includes is imported
and exercised against a live server."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from mixbatch.asgi import BatchMiddleware
from mixbatch.client import Batch, BatchClient

from ..client.servers import uvicorn_server
from .app import make_app

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "guides" / "examples"
GUIDE = EXAMPLES.parent / "fastapi.md"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"guide_example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_guide_includes_every_example_it_relies_on() -> None:
    text = GUIDE.read_text()
    for name in ("starlette_app", "fastapi_app", "authorize_part"):
        assert f'--8<-- "docs/guides/examples/{name}.py"' in text


def test_starlette_example_batches() -> None:
    module = load("starlette_app")
    assert isinstance(module.app, BatchMiddleware)
    with uvicorn_server(module.app) as url, BatchClient(f"{url}/batch") as client:
        result = client.send(Batch().get("/books/1").get("books/3"))
    assert result.mode == "batch"
    assert [r.status for r in result] == [200, 404]
    assert json.loads(result[0].body)["title"] == "Weaving the Web"


def test_fastapi_example_batches() -> None:
    pytest.importorskip("fastapi", reason="FastAPI is not a dependency of this project")
    module = load("fastapi_app")
    with uvicorn_server(module.app) as url, BatchClient(f"{url}/batch") as client:
        result = client.send(Batch().get("/books/1").get("/books/2"))
    assert [r.status for r in result] == [200, 404]


def test_authorize_part_example_refuses_writes() -> None:
    app = load("authorize_part").wrap(make_app())
    with uvicorn_server(app) as url, BatchClient(f"{url}/batch") as client:
        result = client.send(Batch().get("/books/1").delete("/books/1").get("/books/1"))
    assert [r.status for r in result] == [200, 403, 200]
