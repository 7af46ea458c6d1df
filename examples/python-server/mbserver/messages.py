"""The request and response objects the resources see. A standalone request and a
sub-request are both a Request; the resources cannot tell them apart (MB-SUB-1)."""


class Request:
    __slots__ = ("method", "target", "authority", "headers", "body", "path", "query")

    def __init__(self, method, target, authority, headers, body):
        self.method = method          # str, case kept
        self.target = target          # origin-form path and query, as received/resolved
        self.authority = authority    # the authority the request was addressed to
        self.headers = headers        # [(name, value)] in order; str, one char per octet
        self.body = body              # bytes
        path, sep, query = target.partition("?")
        self.path = path
        self.query = query if sep else None

    def field_lines(self, name):
        n = name.lower()
        return [v for k, v in self.headers if k.lower() == n]

    def field_list(self, name):
        """The field lines combined with ', ' (RFC 9110 5.3), or None when absent."""
        lines = self.field_lines(name)
        return ", ".join(lines) if lines else None


class Response:
    __slots__ = ("status", "headers", "body")

    def __init__(self, status, headers=None, body=b""):
        self.status = status
        self.headers = list(headers or [])
        self.body = body

    def header(self, name):
        n = name.lower()
        for k, v in self.headers:
            if k.lower() == n:
                return v
        return None
