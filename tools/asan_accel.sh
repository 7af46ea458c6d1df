#!/usr/bin/env bash
# Run the codec's C fast path under AddressSanitizer and UndefinedBehaviorSanitizer: rebuild
# _accel.c with both, run the tests that drive it (every vector, planted faults, every plant at
# every position, and the deep tier's 200,000 random edits), then put the normal build back.
# `make asan`; outside `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
SO=$($PY -c 'import hatch_build; print(hatch_build.target())')
INCLUDE=$($PY -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
BACKUP=$(mktemp)
cp "$SO" "$BACKUP"
trap 'cp "$BACKUP" "$SO"; touch "$SO"; rm -f "$BACKUP"' EXIT
gcc -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
    -fPIC -shared -I "$INCLUDE" reference-impl/mixbatch/codec/_accel.c -o "$SO"
# CPython itself is not built with ASan, so its own allocations are not leak-checked.
LD_PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)" \
ASAN_OPTIONS=detect_leaks=0 \
    $PY tools/pytest_strict.py -q tests/codec/test_accel.py tests/codec/test_vectors.py
# ... and the deep tier's long random differential run, which needs the tier option.
LD_PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)" \
ASAN_OPTIONS=detect_leaks=0 \
    $PY tools/pytest_strict.py -q -m deep --mixbatch-tier deep tests/codec/test_accel_fuzz.py
