"""Part targets (spec 3.2.2, 8.3, 8.4): the RFC 3986 URI-reference grammar applied
exactly, strict resolution (RFC 3986 5.2.2), the same-origin check (MB-SUB-2) and the
nesting check (MB-SUB-4)."""

import ipaddress
import re

UNRESERVED = r"A-Za-z0-9\-._~"
SUB_DELIMS = r"!$&'()*+,;="
PCT = r"%[0-9A-Fa-f]{2}"
PCHAR = rf"(?:[{UNRESERVED}{SUB_DELIMS}:@]|{PCT})"
PATH_RE = re.compile(rf"(?:{PCHAR}|/)*")
QUERY_RE = re.compile(rf"(?:{PCHAR}|[/?])*")
SCHEME_RE = re.compile(r"[A-Za-z][A-Za-z0-9+\-.]*")
USERINFO_RE = re.compile(rf"(?:[{UNRESERVED}{SUB_DELIMS}:]|{PCT})*")
REGNAME_RE = re.compile(rf"(?:[{UNRESERVED}{SUB_DELIMS}]|{PCT})*")
IPVFUTURE_RE = re.compile(rf"[vV][0-9A-Fa-f]+\.[{UNRESERVED}{SUB_DELIMS}:]+")
PORT_RE = re.compile(r"[0-9]*")
SPLIT_RE = re.compile(r"^(?:([^:/?#]+):)?(?://([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$", re.S)


class Ref:
    __slots__ = ("scheme", "authority", "path", "query", "fragment")

    def __init__(self, scheme, authority, path, query, fragment):
        self.scheme, self.authority, self.path = scheme, authority, path
        self.query, self.fragment = query, fragment

    def origin_form(self):
        return (self.path or "/") + ("?" + self.query if self.query is not None else "")


def split_authority(auth):
    """Return (userinfo or None, host, port str or None) or raise ValueError."""
    userinfo = None
    if "@" in auth:
        userinfo, auth = auth.split("@", 1)
        if not USERINFO_RE.fullmatch(userinfo):
            raise ValueError("bad userinfo")
    if auth.startswith("["):
        end = auth.find("]")
        if end < 0:
            raise ValueError("unterminated IP-literal")
        lit = auth[1:end]
        rest = auth[end + 1:]
        if not IPVFUTURE_RE.fullmatch(lit):
            if "%" in lit:
                raise ValueError("zone id")
            try:
                ipaddress.IPv6Address(lit)
            except ValueError:
                raise ValueError("bad IPv6 literal")
        host = auth[:end + 1]
        if rest == "":
            return userinfo, host, None
        if not rest.startswith(":"):
            raise ValueError("text after IP-literal")
        port = rest[1:]
    else:
        if ":" in auth:
            host, port = auth.split(":", 1)
        else:
            host, port = auth, None
        if not REGNAME_RE.fullmatch(host):
            raise ValueError("bad host")
    if port is not None and not PORT_RE.fullmatch(port):
        raise ValueError("bad port")
    return userinfo, host, port


def parse_reference(s):
    """Parse a URI-reference exactly (RFC 3986 4.1); raise ValueError when it is none."""
    if any(ord(c) > 0x7E or ord(c) <= 0x20 for c in s):
        raise ValueError("character outside the URI grammar")
    m = SPLIT_RE.match(s)
    if not m:
        raise ValueError("unparseable")
    scheme, auth, path, query, frag = m.groups()
    if scheme is not None and not SCHEME_RE.fullmatch(scheme):
        raise ValueError("bad scheme")
    if auth is not None:
        split_authority(auth)
        if path and not path.startswith("/"):
            raise ValueError("path after authority must be absolute")
    if not PATH_RE.fullmatch(path):
        raise ValueError("bad path")
    if scheme is None and auth is None and ":" in path.split("/", 1)[0]:
        # RFC 3986 4.2: a relative-path reference's first segment (path-noscheme) holds no colon.
        raise ValueError("colon in the first segment of a relative-path reference")
    if query is not None and not QUERY_RE.fullmatch(query):
        raise ValueError("bad query")
    if frag is not None and not QUERY_RE.fullmatch(frag):
        raise ValueError("bad fragment")
    return Ref(scheme, auth, path, query, frag)


def remove_dot_segments(path):
    out = []
    i = path
    while i:
        if i.startswith("../"):
            i = i[3:]
        elif i.startswith("./"):
            i = i[2:]
        elif i.startswith("/./"):
            i = i[2:]
        elif i == "/.":
            i = "/"
        elif i.startswith("/../"):
            i = i[3:]
            if out:
                out.pop()
        elif i == "/..":
            i = "/"
            if out:
                out.pop()
        elif i in (".", ".."):
            i = ""
        else:
            j = i.find("/", 1)
            if j < 0:
                j = len(i)
            out.append(i[:j])
            i = i[j:]
    return "".join(out)


def resolve(base, r):
    """RFC 3986 5.2.2, strict: a scheme in the reference is never ignored."""
    if r.scheme is not None:
        return Ref(r.scheme, r.authority, remove_dot_segments(r.path), r.query, r.fragment)
    if r.authority is not None:
        return Ref(base.scheme, r.authority, remove_dot_segments(r.path), r.query, r.fragment)
    if r.path == "":
        return Ref(base.scheme, base.authority, base.path,
                   r.query if r.query is not None else base.query, r.fragment)
    if r.path.startswith("/"):
        path = remove_dot_segments(r.path)
    else:
        if base.authority is not None and base.path == "":
            merged = "/" + r.path
        else:
            merged = base.path[:base.path.rfind("/") + 1] + r.path
        path = remove_dot_segments(merged)
    return Ref(base.scheme, base.authority, path, r.query, r.fragment)


_UNRES_PCT = re.compile(r"%([0-9A-Fa-f]{2})")


def normalize_path(path):
    """Decode percent-encoded unreserved characters (RFC 3986 6.2.2.2); routing and the
    nesting check both see paths through this."""
    def sub(m):
        c = chr(int(m.group(1), 16))
        if c.isascii() and (c.isalnum() or c in "-._~"):
            return c
        return m.group(0)
    return _UNRES_PCT.sub(sub, path)


def _port_num(port, scheme):
    if port is None or port == "":
        return {"http": 80, "https": 443}.get(scheme)
    return int(port)


class Origin:
    """The batch request's own scheme and authority, the base of every part target."""

    def __init__(self, scheme, authority):
        self.scheme = scheme
        self.authority = authority
        _, host, port = split_authority(authority)
        self.host = host.lower()
        self.port = _port_num(port, scheme)

    def same(self, ref):
        if ref.scheme is None or ref.scheme.lower() != self.scheme:
            return False
        if ref.authority is None:
            return False
        try:
            userinfo, host, port = split_authority(ref.authority)
        except ValueError:
            return False
        if userinfo is not None:
            return False
        return host.lower() == self.host and _port_num(port, self.scheme) == self.port


class TargetRefused(Exception):
    def __init__(self, requirement, title, detail):
        super().__init__(detail)
        self.requirement, self.title, self.detail = requirement, title, detail


def check_target(origin, base_target, raw, is_batch_path):
    """Resolve the Content-Id reference raw (between the brackets) against the batch
    request's target and apply MB-SUB-8, MB-SUB-2 and MB-SUB-4. Returns the resolved
    origin-form target. Raises ValueError for a malformed reference (MB-PART-4) and
    TargetRefused for a refused target."""
    ref = parse_reference(raw)
    if raw == "*":
        raise TargetRefused("MB-SUB-8", "Asterisk-form target", "A part's Content-Id is <*>.")
    if ref.scheme is None and ref.authority is not None:
        raise TargetRefused("MB-SUB-2", "Target leaves the origin",
                            "A network-path reference names an authority of its own.")
    bpath, _, bquery = base_target.partition("?")
    base = Ref(origin.scheme, origin.authority, bpath, bquery if "?" in base_target else None, None)
    res = resolve(base, ref)
    if res.fragment is not None:
        raise TargetRefused("MB-SUB-2", "Target leaves the origin", "The target has a fragment.")
    if not origin.same(res):
        raise TargetRefused("MB-SUB-2", "Target leaves the origin",
                            "The target's scheme or authority is not the batch request's own.")
    if is_batch_path(normalize_path(res.path or "/")):
        raise TargetRefused("MB-SUB-4", "Nested batch", "The target is a batch endpoint.")
    return res.origin_form()
