"""Conditional requests (RFC 9110 section 13) for the resources that have validators,
and HTTP-date reading and writing (RFC 9110 5.6.7)."""

import calendar
import re
import time

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
DAYS_L = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_M = "|".join(MONTHS)
_TIME = r"([0-9]{2}):([0-9]{2}):([0-9]{2})"
IMF_RE = re.compile(rf"(?:{'|'.join(DAYS)}), ([0-9]{{2}}) ({_M}) ([0-9]{{4}}) {_TIME} GMT")
RFC850_RE = re.compile(rf"(?:{'|'.join(DAYS_L)}), ([0-9]{{2}})-({_M})-([0-9]{{2}}) {_TIME} GMT")
ASCTIME_RE = re.compile(rf"(?:{'|'.join(DAYS)}) ({_M}) ([0-9]{{2}}| [0-9]) {_TIME} ([0-9]{{4}})")


def http_date(ts=None):
    t = time.gmtime(time.time() if ts is None else ts)
    return "%s, %02d %s %04d %02d:%02d:%02d GMT" % (
        DAYS[t.tm_wday], t.tm_mday, MONTHS[t.tm_mon - 1], t.tm_year, t.tm_hour, t.tm_min, t.tm_sec)


def parse_http_date(s):
    """Seconds since the epoch for a valid HTTP-date in any of the three forms, else None.
    Month and day names are case-sensitive (RFC 9110 uses %s strings)."""
    s = s.strip(" \t")
    m = IMF_RE.fullmatch(s)
    if m:
        day, mon, year, hh, mm, ss = m.groups()
    else:
        m = RFC850_RE.fullmatch(s)
        if m:
            day, mon, yy, hh, mm, ss = m.groups()
            now_year = time.gmtime().tm_year
            year = (now_year // 100) * 100 + int(yy)
            if year > now_year + 50:
                year -= 100
        else:
            m = ASCTIME_RE.fullmatch(s)
            if not m:
                return None
            mon, day, hh, mm, ss, year = m.groups()
    try:
        day, year, hh, mm, ss = int(day), int(year), int(hh), int(mm), int(ss)
        mon_i = MONTHS.index(mon) + 1
        if not (1 <= day <= calendar.monthrange(year, mon_i)[1]) or hh > 23 or mm > 59 or ss > 60:
            return None
        return calendar.timegm((year, mon_i, day, hh, mm, min(ss, 59), 0, 0, 0))
    except (ValueError, IndexError):
        return None


ETAG_RE = re.compile(r'(W/)?("[\x21\x23-\x7e\x80-\xff]*")')


def parse_etag_list(value):
    """'*' or a list of (weak, opaque) entity-tags; invalid elements are left out."""
    if value.strip(" \t") == "*":
        return "*"
    tags = []
    for el in value.split(","):
        el = el.strip(" \t")
        m = ETAG_RE.fullmatch(el)
        if m:
            tags.append((bool(m.group(1)), m.group(2)))
    return tags


def _split_etag(etag):
    if etag is None:
        return None
    weak = etag.startswith("W/")
    return weak, etag[2:] if weak else etag


def evaluate(req, etag, last_modified, exists=True):
    """RFC 9110 13.2.2. Returns None to proceed, or 304 / 412."""
    cur = _split_etag(etag) if exists else None
    safe = req.method in ("GET", "HEAD")
    im = req.field_list("If-Match")
    if im is not None:
        tags = parse_etag_list(im)
        if tags == "*":
            ok = exists
        else:
            ok = cur is not None and not cur[0] and any(not w and o == cur[1] for w, o in tags)
        if not ok:
            return 412
    else:
        ius = req.field_list("If-Unmodified-Since")
        if ius is not None and exists and last_modified is not None:
            d = parse_http_date(ius)
            if d is not None and last_modified > d:
                return 412
    inm = req.field_list("If-None-Match")
    if inm is not None:
        tags = parse_etag_list(inm)
        if tags == "*":
            match = exists
        else:
            match = cur is not None and any(o == cur[1] for w, o in tags)
        if match:
            return 304 if safe else 412
    elif safe and exists and last_modified is not None:
        ims = req.field_list("If-Modified-Since")
        if ims is not None:
            d = parse_http_date(ims)
            if d is not None and last_modified <= d:
                return 304
    return None
