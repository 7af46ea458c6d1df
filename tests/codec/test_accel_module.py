"""The C fast path (codec/_accel.c) as an extension module: each load keeps its own state
(multi-phase init, PEP 489), it loads in a subinterpreter with its own GIL, it is configured
once, and when memory runs out it raises MemoryError with nothing leaked or half-done.

The subinterpreter and allocation-failure runs happen in a child process, so that a crash
there fails one test instead of ending the run.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from types import ModuleType

import pytest

from mixbatch.codec import Limits, PartEnd, RequestPartStart
from mixbatch.codec._accelerator import _SHAPES, _lower_names
from mixbatch.codec._parts import (
    FORBIDDEN_METHODS,
    FORBIDDEN_REQUEST_FIELDS,
    FORBIDDEN_RESPONSE_FIELDS,
)

from .test_accel import needs_accel

pytestmark = needs_accel

#: A request part with one ordinary field, X-A, after its first dash-boundary.
WIRE = b"--bb\r\nHttp-Method: GET\r\nContent-Id: </a>\r\nX-A: 1\r\n\r\n\r\n--bb--\r\n"
AFTER_DASH = 4


def _accel_path() -> str:
    from mixbatch.codec import _accel

    assert _accel.__file__ is not None
    return _accel.__file__


def _fresh() -> ModuleType:
    """A new, unconfigured instance of the extension, outside sys.modules."""
    spec = importlib.util.spec_from_file_location("mixbatch.codec._accel", _accel_path())
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _configure(module: ModuleType, *, also_forbidden: frozenset[str] = frozenset()) -> None:
    module.configure(
        *_SHAPES,
        _lower_names(FORBIDDEN_REQUEST_FIELDS | also_forbidden),
        _lower_names(FORBIDDEN_RESPONSE_FIELDS),
        _lower_names(FORBIDDEN_METHODS),
    )


def _scan(module: ModuleType) -> tuple[tuple[int, int, int], list[object]]:
    events: list[object] = []
    result = module.scan(WIRE, AFTER_DASH, 0, -1, True, b"\n--bb", Limits(), events)
    return result, events


def test_each_load_keeps_its_own_state() -> None:
    plain, strict = _fresh(), _fresh()
    with pytest.raises(RuntimeError, match="not configured"):
        _scan(plain)
    _configure(plain)
    with pytest.raises(RuntimeError, match="not configured"):
        _scan(strict)  # configuring one load left the other as it was
    _configure(strict, also_forbidden=frozenset({"x-a"}))
    (_, index, _), events = _scan(plain)
    assert index == 0
    assert [type(e) for e in events] == [RequestPartStart, PartEnd]
    assert _scan(strict) == ((AFTER_DASH, -1, -1), [])  # X-A is forbidden in this load only
    (_, index, _), _ = _scan(plain)
    assert index == 0


def test_configure_binds_a_load_once() -> None:
    module = _fresh()
    _configure(module)
    with pytest.raises(RuntimeError, match="already configured"):
        _configure(module)
    assert _scan(module)[0][1] == 0


def test_a_failed_configure_leaves_the_load_unconfigured() -> None:
    module = _fresh()
    broken = ((RequestPartStart, ("index", "method")), *_SHAPES[1:])
    with pytest.raises(ValueError, match="slot names"):
        module.configure(*broken, (), (), ())
    with pytest.raises(RuntimeError, match="not configured"):
        _scan(module)
    _configure(module)
    assert _scan(module)[0][1] == 0


def _run_child(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_it_runs_in_a_subinterpreter_with_its_own_gil() -> None:
    interpreters = pytest.importorskip(
        "_xxsubinterpreters", reason="this Python has no low-level subinterpreter module"
    )
    del interpreters
    from mixbatch.codec import _accel

    expected, _ = _scan(_accel)
    # The subinterpreter loads the extension file by itself and binds it to slotted dataclasses
    # of its own: importing the whole codec there would import hashlib, which CPython 3.12.1
    # cannot unload from a subinterpreter without crashing.
    child = f"""
        import _xxsubinterpreters as interpreters
        interp = interpreters.create()  # isolated: its own GIL, multi-phase modules only
        interpreters.run_string(interp, '''
        import importlib.util
        from dataclasses import dataclass

        spec = importlib.util.spec_from_file_location("mixbatch.codec._accel", {_accel_path()!r})
        accel = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(accel)

        def event(*names):
            return dataclass(frozen=True, slots=True)(
                type("Event", (), {{"__annotations__": dict.fromkeys(names, object)}})
            )

        class Limits:
            max_parts = max_part_header_bytes = max_part_fields = max_part_bytes = 100

        start = event("index", "method", "target", "fields", "offset", "target_offset")
        response = event("index", "status", "outcome", "content_id", "fields", "offset")
        data, end, fields = event("index", "data"), event("index", "length"), event("_pairs")
        accel.configure(
            (start, ("index", "method", "target", "fields", "offset", "target_offset")),
            (response, ("index", "status", "outcome", "content_id", "fields", "offset")),
            (data, ("index", "data")), (end, ("index", "length")), (fields, ("_pairs",)),
            (), (), (b"connect", b"trace"),
        )
        events = []
        wire = bytes.fromhex("{WIRE.hex()}")
        result = accel.scan(wire, {AFTER_DASH}, 0, -1, True, b"\\\\n--bb", Limits(), events)
        assert result == {expected!r}, result
        assert events[0].method == "GET" and events[0].target == "/a", events
        assert events[0].fields._pairs == (("X-A", "1"),), events
        assert events[1] == end(0, 0), events
        ''')
        interpreters.destroy(interp)
        print("ran in a subinterpreter")
    """
    done = _run_child(child)
    assert done.returncode == 0, done.stderr
    assert "ran in a subinterpreter" in done.stdout


def test_running_out_of_memory_raises_memory_error_cleanly() -> None:
    testcapi = pytest.importorskip("_testcapi", reason="this Python has no _testcapi")
    if not hasattr(testcapi, "set_nomemory"):
        pytest.skip("_testcapi has no set_nomemory")
    # Every allocation the scan makes fails once, in turn (and then every one from there on):
    # each run either gives the whole result or raises MemoryError -- never SystemError, a
    # crash or a half-built event -- and after all of them no object was leaked.
    child = """
        import gc, sys
        import _testcapi
        from mixbatch.codec import Limits
        from mixbatch.codec._accelerator import SCAN

        many = b"".join(b"X-%d: v\\r\\n" % i for i in range(40))  # beyond the on-stack room
        part = b"Http-Method: POST\\r\\nContent-Id: </b/%d>\\r\\nContent-Length: 4\\r\\n"
        wire = b"--bb" + b"".join(
            b"\\r\\n" + part % i + (many if i == 1 else b"") + b"\\r\\nbody\\r\\n--bb"
            for i in range(3)
        ) + b"--"
        limits = Limits()

        def scan():
            events = []
            return SCAN(wire, 4, 0, -1, True, b"\\n--bb", limits, events), events

        whole = scan()
        assert whole[0][1] == 2 and len(whole[1]) == 9, whole

        def failing_runs(stop_after):
            failures = successes = k = 0
            while successes < 20:
                _testcapi.set_nomemory(k, k + 1 if stop_after else 0)
                try:
                    got = scan()
                except MemoryError:
                    failures += 1
                    got = None
                finally:
                    _testcapi.remove_mem_hooks()
                if got is None:
                    successes = 0
                else:
                    assert got == whole, (k, got)
                    successes += 1
                k += 1
            return failures

        from mixbatch.codec import Fields, PartData, PartEnd, RequestPartStart
        held = (wire, limits, Fields, PartData, PartEnd, RequestPartStart)
        for mode in (True, False):
            failing_runs(mode)  # warm caches and free lists first
            gc.collect()
            refs = [sys.getrefcount(o) for o in held]
            blocks = sys.getallocatedblocks()
            failures = failing_runs(mode)
            gc.collect()
            assert failures > 30, failures
            assert [sys.getrefcount(o) for o in held] == refs
            grown = sys.getallocatedblocks() - blocks
            assert grown < failures // 4, (grown, failures)
            print("mode", mode, "failures", failures, "blocks grown", grown)
        print("out of memory handled")
    """
    done = _run_child(child)
    assert done.returncode == 0, done.stderr
    assert "out of memory handled" in done.stdout
