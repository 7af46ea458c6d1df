"""Top-level field grammars: Content-Type and its boundary (MB-WIRE-2/4), Accept
(MB-MULTI-1, MB-STATUS-9), Prefer: batch-on-error (MB-PROC-11/13), Batch-Mode (MB-PROC-17).

All values are str holding one character per octet (latin-1), as the codec delivers them.
"""

import re

TCHAR = "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
TOKEN_RE = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
OWS = " \t"
BCHARS_NOSPACE = set("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'()+_,-./:=?")


def is_token(s):
    return bool(s) and TOKEN_RE.fullmatch(s) is not None


def ascii_lower(s):
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in s)


class GrammarError(ValueError):
    pass


def _skip_ows(s, i):
    while i < len(s) and s[i] in OWS:
        i += 1
    return i


def _token(s, i):
    m = TOKEN_RE.match(s, i)
    if not m:
        return None, i
    return m.group(0), m.end()


def _quoted(s, i):
    """Parse a quoted-string at s[i] == '"'; return (unescaped value, next index)."""
    assert s[i] == '"'
    i += 1
    out = []
    while i < len(s):
        c = s[i]
        if c == '"':
            return "".join(out), i + 1
        if c == "\\":
            if i + 1 >= len(s):
                raise GrammarError("quoted-pair at end")
            n = s[i + 1]
            if not (n == "\t" or " " <= n <= "~" or ord(n) >= 0x80):
                raise GrammarError("bad quoted-pair")
            out.append(n)
            i += 2
            continue
        if c == "\t" or c == " " or c == "!" or "#" <= c <= "[" or "]" <= c <= "~" or ord(c) >= 0x80:
            out.append(c)
            i += 1
            continue
        raise GrammarError("bad character in quoted-string")
    raise GrammarError("unterminated quoted-string")


def parse_media_type(value):
    """RFC 9110 8.3.1: type "/" subtype parameters. Returns (type, subtype, [(name, value)])
    with type, subtype and names lower-cased. Raises GrammarError with .partial set to
    (type, subtype) when the type parsed but the parameters did not."""
    s = value.strip(OWS)
    t, i = _token(s, 0)
    if t is None or i >= len(s) or s[i] != "/":
        raise GrammarError("no media type")
    st, i = _token(s, i + 1)
    if st is None:
        raise GrammarError("no subtype")
    mt = (ascii_lower(t), ascii_lower(st))
    params = []
    try:
        while True:
            i = _skip_ows(s, i)
            if i >= len(s):
                break
            if s[i] != ";":
                raise GrammarError("expected ';'")
            i = _skip_ows(s, i + 1)
            if i >= len(s) or s[i] == ";":
                continue  # empty parameter
            name, i = _token(s, i)
            if name is None:
                raise GrammarError("parameter without a name")
            if i >= len(s) or s[i] != "=":
                raise GrammarError("parameter without '='")
            i += 1
            if i < len(s) and s[i] == '"':
                v, i = _quoted(s, i)
            else:
                v, i = _token(s, i)
                if v is None:
                    raise GrammarError("parameter without a value")
            params.append((ascii_lower(name), v))
    except GrammarError as e:
        e.partial = mt
        raise
    return mt[0], mt[1], params


def valid_boundary(b):
    if not 1 <= len(b) <= 70 or b.endswith(" "):
        return False
    return all(c in BCHARS_NOSPACE or c == " " for c in b)


# ---------------------------------------------------------------- Accept

def _parse_qvalue(v):
    if re.fullmatch(r"0(\.[0-9]{0,3})?|1(\.0{0,3})?", v):
        return float(v)
    return None


def parse_accept(value):
    """Return a list of (type, subtype, q) for the valid elements of an Accept value, or
    None when it holds no element at all (absent, empty, only commas). Invalid elements are
    left out (spec 6.1 allows reading the valid elements alone)."""
    if value is None:
        return None
    out = []
    seen_any = False
    for raw in _split_commas(value):
        el = raw.strip(OWS)
        if not el:
            continue
        seen_any = True
        try:
            t, st, params = parse_media_type(el)
        except GrammarError:
            continue
        if t == "*" and st != "*":
            continue
        q = 1.0
        ok = True
        for name, v in params:
            if name == "q":
                qv = _parse_qvalue(v)
                if qv is None:
                    ok = False
                q = qv if qv is not None else 0.0
                break
        if ok:
            out.append((t, st, q))
    if not seen_any:
        return None
    return out


def _split_commas(value):
    """Split a list-valued field on commas that are not inside a quoted-string."""
    parts, cur, inq, esc = [], [], False, False
    for c in value:
        if inq:
            cur.append(c)
            if esc:
                esc = False
            elif c == "\\":
                esc = True
            elif c == '"':
                inq = False
        elif c == '"':
            inq = True
            cur.append(c)
        elif c == ",":
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    parts.append("".join(cur))
    return parts


def quality(ranges, mtype):
    """The q an Accept list gives the media type 'type/subtype': the most specific
    matching range decides; among equally specific ones the highest q."""
    t, st = mtype.split("/", 1)
    best_spec, best_q = -1, 0.0
    for rt, rst, q in ranges:
        if rt == t and rst == st:
            spec = 2
        elif rt == t and rst == "*":
            spec = 1
        elif rt == "*" and rst == "*":
            spec = 0
        else:
            continue
        if spec > best_spec or (spec == best_spec and q > best_q):
            best_spec, best_q = spec, q
    return best_q


def choose(accept_value, offers):
    """MB-MULTI-1: pick one of offers (offers[0] is multipart/mixed) or None for 406."""
    ranges = parse_accept(accept_value)
    if ranges is None:
        return offers[0]
    qs = [quality(ranges, o) for o in offers]
    top = max(qs)
    if top <= 0:
        return None
    if qs[0] >= top:
        return offers[0]
    return offers[qs.index(top)]


# ---------------------------------------------------------------- Prefer

def batch_on_error(prefer_lines):
    """Return 'stop', 'continue' or None for the first batch-on-error preference in the
    combined Prefer field (RFC 7240 section 2, MB-PROC-13, MB-PROC-11)."""
    if not prefer_lines:
        return None
    s = ", ".join(prefer_lines)
    for el in _split_commas(s):
        name, value, has_value = _preference_head(el)
        if name is None or ascii_lower(name) != "batch-on-error":
            continue
        if not has_value or value is None:
            return None
        v = ascii_lower(value)
        return v if v in ("stop", "continue") else None
    return None


def _preference_head(el):
    """Parse 'token [BWS "=" BWS word]' at the start of a preference element.
    Returns (name, value, has_value); value None when the word is malformed."""
    i = _skip_ows(el, 0)
    name, i = _token(el, i)
    if name is None:
        return None, None, False
    i = _skip_ows(el, i)
    if i >= len(el) or el[i] == ";":
        return name, None, False
    if el[i] != "=":
        return name, None, True  # junk after the name: a value we do not recognise
    i = _skip_ows(el, i + 1)
    if i >= len(el) or el[i] == ";":
        return name, "", True
    try:
        if el[i] == '"':
            v, j = _quoted(el, i)
        else:
            v, j = _token(el, i)
            if v is None:
                return name, None, True
    except GrammarError:
        return name, None, True
    j = _skip_ows(el, j)
    if j < len(el) and el[j] != ";":
        return name, None, True
    return name, v, True


# ---------------------------------------------------------------- Batch-Mode

def batch_modes(lines):
    """MB-PROC-17: the set of modes listed, or raise GrammarError when an element is not
    a token or the list holds no element."""
    modes = []
    for raw in ",".join(lines).split(","):
        el = raw.strip(OWS)
        if not el:
            continue
        if not is_token(el):
            raise GrammarError(f"not a mode token: {el!r}")
        modes.append(el)
    if not modes:
        raise GrammarError("Batch-Mode lists no mode")
    return modes
