# mixbatch: two commands on a fresh machine.
#   make run   the conformance suite against the embedded reference server, then a report
#   make test  every test tier that fits in ten minutes (lint, types, unit, spec, suite self-test, docs)
# Each target installs what it needs from the project's own files: uv (when missing) and the
# locked environment.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
PYTHON ?= python3
UV := $(PYTHON) -m uv
VENV := .venv
PY := $(VENV)/bin/python
# mkdocs-material prints an end-of-life banner for mkdocs 2 on every build; it is noise here.
export NO_MKDOCS_2_WARNING := 1
REPORT_DIR ?= reports/latest

.PHONY: asan fuzz run test deep results bench bench-quick docs docs-build browser lint typecheck unit env clean

# env also builds the codec's C fast path in place (hatch_build.py; a no-op when up to date).
# Without a C compiler it says so and everything runs on the pure-Python parser; make test then
# fails in tests/codec/test_accel.py::test_fast_path_is_built, so CI cannot lose it silently.
env: $(VENV)/.synced
	@$(PY) hatch_build.py

# --compile-bytecode: the tests start hundreds of Python processes (workers, servers, CLI runs,
# mitmdump); each one compiling its imports from source again costs about a second.
$(VENV)/.synced: pyproject.toml uv.lock .python-version
	@$(PYTHON) -m uv --version >/dev/null 2>&1 || $(PYTHON) -m pip install --quiet --disable-pip-version-check uv
	$(UV) sync --locked --all-extras --quiet --compile-bytecode
	@touch $@

# The wheel and the sdist in dist/: `pip install dist/mixbatch-*.whl` gives the mixbatch command,
# the conformance suite and the spec files it reads (the wheel carries spec/ as mixbatch/_spec).
.PHONY: dist
dist: env
	rm -rf dist
	$(UV) build --out-dir dist

run: env
	$(PY) -m mixbatch conformance --tier smoke --report $(REPORT_DIR)

lint: env
	$(VENV)/bin/ruff check reference-impl conformance tests bench tools docs/hooks hatch_build.py
	$(VENV)/bin/ruff format --check reference-impl conformance tests bench tools docs/hooks hatch_build.py
	$(VENV)/bin/lint-imports --no-cache

typecheck: env
	$(VENV)/bin/mypy

# Debian's chromium for the docs' browser check (tests/docs/test_browser.py); a no-op when present.
browser:
	bash tools/ensure_chromium.sh

# pytest exits 5 when it collected nothing: tools/pytest_strict.py turns that into a failure.
# The suite includes the strict docs build (tests/docs) and the browser check. It runs on
# pytest-xdist workers: each starts its own reference server and relay, and a file's tests stay
# on one worker (--dist loadfile), so a module's fixtures are built once. Four workers a core:
# most of the suite's time is spent waiting on servers (time budgets, delay resources, slow
# parts, clients that leave mid-answer), not computing, so the waits of one worker overlap
# another's work (on 2 cores: 5 min 41 s with 4 workers against 9 min 20 s with 2 once; later,
# with more waiting tests, 8 min 0 s with 6 against 9 min 30 s with 4, the same tests passing).
# Four a core since: a run with 6 kept the cores 73 % busy (15 min of CPU in 10 min 23 s).
# The files that run for minutes start first (tests/conftest.py LONG_FILES), in place of
# xdist's own order by count of tests, so no long file starts last. --durations=20 lists the
# slowest tests at the end of every run, so a run that nears ten minutes names what to split.
# Bytecode is written (PYTHONDONTWRITEBYTECODE emptied, should the shell set it), and one
# collection ahead of the workers writes the assertion-rewritten test modules once: without it
# every worker compiles and rewrites the same 800 modules (13 s of CPU each, 5 s from bytecode).
PYTEST_WORKERS ?= $(shell echo $$(( $$(nproc) * 4 )))
unit: export PYTHONDONTWRITEBYTECODE :=
unit: env browser
	@$(PY) -m pytest --collect-only -q > $(VENV)/collect.log || { cat $(VENV)/collect.log; exit 1; }
	$(PY) tools/pytest_strict.py -q -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=20

# Lint and the type check run beside the tests, at the lowest priority (nice 19): they need
# one core for about a minute, and take it from the time the tests leave a core idle (they wait
# on servers), never from the tests, some of which a server must answer within its budget. The
# tests print as they go; lint's and the type check's output follows theirs, and either
# failing fails make test.
test: env browser
	@static=0; unit=0; \
	nice -n 19 $(MAKE) --no-print-directory lint typecheck > $(VENV)/static.log 2>&1 & pid=$$!; \
	$(MAKE) --no-print-directory unit || unit=$$?; \
	wait $$pid || static=$$?; \
	cat $(VENV)/static.log; \
	if [ $$static -ne 0 ]; then echo "make test: lint or the type check failed" >&2; fi; \
	exit $$(( unit != 0 || static != 0 ))

# mkdocs build --strict without -q: -q would hide the warnings that strict mode counts.
docs-build: env
	$(VENV)/bin/mkdocs build --strict -d site

deep: env
	$(PY) tools/pytest_strict.py -q -m deep --mixbatch-tier deep

# The deep socket fuzz: FUZZ_CASES mutated batches, the same bytes to the reference server and to
# the proxy in front of another, as separate processes; the result and each finding's minimal
# reproducer go to docs/results/fuzz.json. FUZZ_SEED picks the run, FUZZ_ARGS=--resume continues
# one from its checkpoint in reports/fuzz/. Outside make test.
FUZZ_CASES ?= 1000000
FUZZ_SEED ?= 1
fuzz: env
	$(PY) -m tests.adversarial.fuzz_driver --cases $(FUZZ_CASES) --seed $(FUZZ_SEED) $(FUZZ_ARGS)

# The C fast path under AddressSanitizer + UBSan (tools/asan_accel.sh); outside make test.
asan: env
	bash tools/asan_accel.sh

# The full benchmark run takes about 20 minutes on 2 cores and writes bench/results/, which the
# docs publish; bench-quick takes about two and writes reports/bench-quick/, so a quick look
# never replaces the published full run.
bench: env
	$(PY) -m bench

results: env
	$(PY) tools/publish_results.py

bench-quick: env
	$(PY) -m bench --quick --out reports/bench-quick

# The C programs the HTTP/2 comparison runs (h2load from nghttp2-client, nginx; curl is already
# there); bench/external.py names this same command when one of them is missing. Needs root.
# The suite through the proxies people deploy (conformance/mixbatch_conformance/intermediaries/
# real): installs those that are missing (Debian packages; needs root, and skips the install
# when it cannot), runs the standard tier direct and through every program and variant with
# one seed, and regenerates docs/results/intermediaries.md and its data from that run. Checks
# that fail through a hop are results, not a failed target; a harness error (exit 3) fails it.
INTERMEDIARY_PACKAGES := nginx haproxy apache2 caddy varnish squid trafficserver h2o lighttpd
INTERMEDIARIES_SEED ?= 1
INTERMEDIARIES_DIR ?= reports/intermediaries
.PHONY: intermediaries
intermediaries: env
	@missing=$$(for p in $(INTERMEDIARY_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $$missing; \
	  else echo "not root: not installing $$missing (their rows are N/A)"; fi; \
	fi
	rm -rf $(INTERMEDIARIES_DIR)
	$(PY) -m mixbatch conformance --via real --tier standard --seed $(INTERMEDIARIES_SEED) \
	  --report $(INTERMEDIARIES_DIR) --no-progress --quiet || [ $$? -le 1 ]
	$(PY) -m mixbatch_conformance.intermediaries.real.publish $(INTERMEDIARIES_DIR) docs/results

.PHONY: bench-deps
bench-deps:
	apt-get update && apt-get install -y nghttp2-client nginx

docs: env
	$(VENV)/bin/mkdocs serve -a 127.0.0.1:8000

clean:
	rm -rf $(VENV) site reports .mypy_cache .ruff_cache
