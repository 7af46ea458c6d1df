"""Replay the spec's byte-exact request vectors through the envelope and part parsers.

    python3 -m mbserver.vectorcheck SPEC_EXAMPLES_DIR

For each NAME.request.http with its NAME.request.json: a valid vector must parse to the
expected parts (method, target, resolved target, fields, body); an invalid one must fail
with the expected requirement, status, part_index and byte_offset.
"""

import base64
import glob
import json
import os
import sys

from . import batch
from .limits import Limits
from .problems import Problem


def run_vector(jpath):
    d = json.load(open(jpath))
    data = open(jpath[:-5] + ".http", "rb").read()
    ctx = d["context"]
    lim = Limits(**d.get("limits", {}))
    try:
        parts = batch.parse_batch(data, d["content_type"], "http", ctx["authority"],
                                  ctx["target"], lim, lambda p: p == "/batch" or p == ctx["target"])
    except Problem as e:
        got = {"requirement": e.requirement, "status": e.status,
               "part_index": e.part_index, "byte_offset": e.byte_offset}
        if d["valid"]:
            return False, f"rejected a valid vector: {got} ({e.detail})"
        exp = {k: d["error"][k] for k in ("requirement", "status", "part_index", "byte_offset")}
        if got != exp:
            return False, f"expected {exp}, got {got} ({e.detail})"
        return True, ""
    if not d["valid"]:
        return False, f"accepted an invalid vector (expected {d['error']['requirement']})"
    exp = d["expect"]["parts"]
    if len(exp) != len(parts):
        return False, f"expected {len(exp)} parts, got {len(parts)}"
    for e, p in zip(exp, parts):
        body = base64.b64decode(e["body_base64"]) if "body_base64" in e else e["body_text"].encode()
        got = (p.method, p.reference, p.target, [list(f) for f in p.fields], p.body)
        want = (e["method"], e["target"], e["resolved_target"], e["fields"], body)
        if got != want:
            return False, f"part {p.index}: expected {want!r}, got {got!r}"
    return True, ""


def main(argv):
    d = argv[1] if len(argv) > 1 else "spec/examples"
    bad = 0
    files = sorted(glob.glob(os.path.join(d, "*.request.json")))
    for f in files:
        ok, msg = run_vector(f)
        if not ok:
            bad += 1
            print(f"FAIL {os.path.basename(f)[:-5]}: {msg}")
    print(f"{len(files) - bad}/{len(files)} request vectors agree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
