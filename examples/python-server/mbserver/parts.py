"""Request parts (spec 3.2): Http-Method, Content-Id, forbidden fields, the part's
Content-Length, and the target checks of 8.3/8.4. Turns an envelope.RawPart into a
PartRequest, or raises the problem the first fault calls for."""

from .mediatype import is_token
from .problems import envelope as env_problem
from . import limits as L
from . import targets

FORBIDDEN = {
    "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade",
    "expect", "host", "trailer", "content-transfer-encoding", "http-status-code",
}


class PartRequest:
    __slots__ = ("index", "method", "content_id", "target", "fields", "body")

    def __init__(self, index, method, content_id, target, fields, body):
        self.index = index
        self.method = method            # str, case kept
        self.content_id = content_id    # the field value as received (OWS removed)
        self.target = target            # resolved origin-form target
        self.fields = fields            # [(name, value)] other than Http-Method/Content-Id
        self.body = body                # bytes

    @property
    def reference(self):
        return self.content_id[1:-1]


class PartValidator:
    """Callable for envelope.parse(on_part=...); collects PartRequests in order."""

    def __init__(self, origin, base_target, is_batch_path):
        self.origin = origin
        self.base_target = base_target
        self.is_batch_path = is_batch_path
        self.parts = []

    def __call__(self, raw):
        method = content_id = target = None
        cl_line = cl_value = None
        fields = []
        idx = raw.index
        for name, value, off in raw.fields:
            lname = name.lower()
            if lname == "http-method":
                if method is not None:
                    raise env_problem("MB-PART-2", "Repeated Http-Method",
                                      "A part carries more than one Http-Method field.", idx, off)
                if not is_token(value):
                    raise env_problem("MB-PART-2", "Invalid Http-Method",
                                      "The Http-Method value is not a method token.", idx, off)
                if value in ("CONNECT", "TRACE"):
                    raise env_problem("MB-SUB-3", "Method not allowed in a batch",
                                      f"{value} cannot be carried in a batch part.", idx, off)
                method = value
            elif lname == "content-id":
                if content_id is not None:
                    raise env_problem("MB-PART-4", "Repeated Content-Id",
                                      "A part carries more than one Content-Id field.", idx, off)
                if len(value) < 2 or value[0] != "<" or value[-1] != ">":
                    raise env_problem("MB-PART-4", "Malformed Content-Id",
                                      "The Content-Id value is not \"<\" URI-reference \">\".",
                                      idx, off)
                try:
                    target = targets.check_target(self.origin, self.base_target, value[1:-1],
                                                  self.is_batch_path)
                except targets.TargetRefused as e:
                    raise env_problem(e.requirement, e.title, e.detail, idx, off)
                except ValueError as e:
                    raise env_problem("MB-PART-4", "Malformed Content-Id",
                                      f"The Content-Id value is no URI reference ({e}).",
                                      idx, off)
                content_id = value
            else:
                if lname in FORBIDDEN:
                    raise env_problem("MB-PART-10", "Forbidden part header field",
                                      f"{name} is not allowed in a request part.", idx, off)
                if lname == "content-length":
                    if cl_line is not None:
                        raise env_problem("MB-WIRE-20", "Repeated Content-Length",
                                          "A part carries more than one Content-Length field.",
                                          idx, off)
                    if not value.isascii() or not value.isdigit():
                        raise env_problem("MB-WIRE-20", "Invalid Content-Length",
                                          "A part's Content-Length is not 1*DIGIT.", idx, off)
                    if len(value) > L.MAX_CONTENT_LENGTH_DIGITS:
                        # MB-WIRE-22: up to 18 digits are read as the number they are; a
                        # longer numeral is refused, never left to int()'s digit bound.
                        raise env_problem("MB-WIRE-22", "Content-Length numeral too long",
                                          "A part's Content-Length has more digits than "
                                          "this server reads.", idx, off)
                    cl_line, cl_value = off, int(value)
                fields.append((name, value))
        if method is None:
            raise env_problem("MB-PART-2", "Missing Http-Method",
                              "A part has no Http-Method field.", idx, raw.section_offset)
        if content_id is None:
            raise env_problem("MB-PART-4", "Missing Content-Id",
                              "A part has no Content-Id field.", idx, raw.section_offset)
        if cl_line is not None and cl_value != len(raw.body):
            raise env_problem("MB-WIRE-17", "Content-Length mismatch",
                              f"Content-Length says {cl_value} octets; the body has "
                              f"{len(raw.body)}.", idx, cl_line)
        self.parts.append(PartRequest(idx, method, content_id, target, fields, bytes(raw.body)))
