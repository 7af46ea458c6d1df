#!/usr/bin/env bash
# Run the codec's C fast path under AddressSanitizer and UndefinedBehaviorSanitizer: build
# its sources (hatch_build.SOURCES) with both into a scratch copy of the package, put that copy
# first on the path, and run the tests that drive it (every vector, planted faults, every plant
# at every position, the writer held equal to the pure-Python one, the module's own checks --
# its per-load state, a subinterpreter, every allocation failing in turn -- and the deep tier's
# 200,000 random edits). The checkout's own build is never replaced, so
# anything else running from the checkout meanwhile keeps its normal extension.
# `make asan`; outside `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
INCLUDE=$($PY -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
SO_NAME=$($PY -c 'import hatch_build; print(hatch_build.target().name)')
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
cp -r reference-impl/mixbatch "$SCRATCH/mixbatch"
SOURCES=$($PY -c 'import hatch_build; print(*hatch_build.SOURCES)')
# $SOURCES stays unquoted: it is a list of paths, none with a space.
gcc -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
    -fPIC -shared -fvisibility=hidden -I "$INCLUDE" $SOURCES -o "$SCRATCH/mixbatch/codec/$SO_NAME"
export PYTHONPATH="$SCRATCH"
# CPython itself is not built with ASan, so its own allocations are not leak-checked.
export LD_PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)"
export ASAN_OPTIONS=detect_leaks=0
# The tests must load the sanitized build, not the checkout's.
$PY -c 'import sys, mixbatch.codec._accel as a; assert a.__file__.startswith(sys.argv[1]), a.__file__' \
    "$SCRATCH"
$PY tools/pytest_strict.py -q tests/codec/test_accel.py tests/codec/test_accel_module.py \
    tests/codec/test_accel_write.py tests/codec/test_vectors.py
# ... and the deep tier's long random differential run, which needs the tier option.
$PY tools/pytest_strict.py -q -m deep --mixbatch-tier deep tests/codec/test_accel_fuzz.py
