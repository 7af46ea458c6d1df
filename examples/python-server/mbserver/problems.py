"""RFC 9457 problem documents (MB-STATUS-4) and the exception that carries one."""

import json

TYPE_BASE = "https://mixbatch.dev/problems/"


class Problem(Exception):
    """A refusal of a whole request: status, requirement, place and limit."""

    def __init__(self, status, slug, title, detail=None, requirement=None,
                 part_index=None, byte_offset=None, limit=None, value=None,
                 headers=None, close=False, **extra):
        super().__init__(f"{status} {title}: {detail or ''}")
        self.status = status
        self.slug = slug
        self.title = title
        self.detail = detail
        self.requirement = requirement
        self.part_index = part_index
        self.byte_offset = byte_offset
        self.limit = limit
        self.value = value
        self.headers = list(headers or [])
        self.close = close
        self.extra = extra

    def document(self):
        doc = {"type": TYPE_BASE + self.slug, "title": self.title, "status": self.status}
        if self.detail:
            doc["detail"] = self.detail
        if self.requirement:
            doc["requirement"] = self.requirement
        if self.part_index is not None:
            doc["part_index"] = self.part_index
        if self.byte_offset is not None:
            doc["byte_offset"] = self.byte_offset
        if self.limit is not None:
            doc["limit"] = self.limit
            if self.value is not None:
                doc["value"] = self.value
        doc.update(self.extra)
        return doc

    def body(self):
        return dump(self.document())


def dump(doc):
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def envelope(requirement, title, detail, part_index, byte_offset, status=400, slug="malformed-batch"):
    return Problem(status, slug, title, detail, requirement=requirement,
                   part_index=part_index, byte_offset=byte_offset)


def limit_exceeded(limit, value, title, detail, part_index=None, byte_offset=None,
                   status=413, requirement="MB-STATUS-3", close=False):
    return Problem(status, "limit-exceeded", title, detail, requirement=requirement,
                   part_index=part_index, byte_offset=byte_offset, limit=limit, value=value,
                   close=close)
