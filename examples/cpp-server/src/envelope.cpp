// Framing of the batch envelope: delimiters, line terminators, preamble and epilogue,
// transport padding, part bodies, Content-Length checks and the per-batch limits.
#include "envelope.hpp"

namespace mb {

namespace {

struct Cursor {
    std::string_view c;
    std::string db;  // dash-boundary
    bool starts_db(std::size_t p) const { return p <= c.size() && c.substr(p).substr(0, db.size()) == db; }
};

enum class DelimKind { Next, Close };

// Parses the delimiter line whose first '-' is at p. On success sets kind and next (the
// octet after the line's CRLF, or the end for a close delimiter).
bool delimiter_line(const Cursor& cur, std::size_t p, std::size_t part_for_line, DelimKind& kind, std::size_t& next,
                    Problem& err) {
    const auto& c = cur.c;
    std::size_t n = c.size();
    std::size_t q = p + cur.db.size();
    bool close = false;
    if (q + 1 < n && c[q] == '-' && c[q + 1] == '-') {
        close = true;
        q += 2;
    } else if (q + 1 == n && c[q] == '-') {
        // "--B-" at the end of content: text after the dash-boundary
        err = envelope_problem(400, "MB-WIRE-19", part_for_line, p, "Text after the dash-boundary on a delimiter line");
        return false;
    }
    while (q < n && (c[q] == ' ' || c[q] == '\t')) ++q;
    if (q == n) {
        if (close) {
            kind = DelimKind::Close;
            next = n;
            return true;
        }
        err = envelope_problem(400, "MB-WIRE-13", part_for_line, n, "Content ends without the close delimiter");
        return false;
    }
    if (c[q] == '\r') {
        if (q + 1 < n && c[q + 1] == '\n') {
            kind = close ? DelimKind::Close : DelimKind::Next;
            next = q + 2;
            return true;
        }
        err = envelope_problem(400, "MB-WIRE-8", part_for_line, p, "Bare CR ending a delimiter line");
        return false;
    }
    if (c[q] == '\n') {
        err = envelope_problem(400, "MB-WIRE-8", part_for_line, p, "Bare LF ending a delimiter line");
        return false;
    }
    err = envelope_problem(400, "MB-WIRE-19", part_for_line, p, "Text after the dash-boundary on a delimiter line");
    return false;
}

}  // namespace

bool parse_envelope(std::string_view content, std::string_view boundary, const Limits& limits,
                    std::vector<RequestPart>& parts, Problem& err) {
    Cursor cur{content, "--" + std::string(boundary)};
    const std::size_t n = content.size();
    parts.clear();

    // 1. The first delimiter line: at the start, or after a CRLF in the preamble.
    std::size_t p = std::string_view::npos, from = 0;
    while (true) {
        std::size_t f = content.find(cur.db, from);
        if (f == std::string_view::npos) {
            err = envelope_problem(400, "MB-WIRE-18", 0, n, "The batch has no delimiter line, so no parts");
            return false;
        }
        if (f == 0 || (content[f - 1] == '\n' && f >= 2 && content[f - 2] == '\r')) {
            p = f;
            break;
        }
        if (content[f - 1] == '\n') {
            err = envelope_problem(400, "MB-WIRE-8", 0, f, "Bare LF before the first delimiter line");
            return false;
        }
        from = f + 1;
    }

    while (true) {
        // p: first '-' of a delimiter line that opens part parts.size() (or closes).
        DelimKind kind;
        std::size_t h;
        if (!delimiter_line(cur, p, parts.size(), kind, h, err)) return false;
        if (kind == DelimKind::Close) {
            if (parts.empty()) {
                err = envelope_problem(400, "MB-WIRE-18", 0, p, "The batch has no parts");
                return false;
            }
            return true;  // the epilogue is ignored
        }
        std::size_t pi = parts.size();
        if (pi >= limits.max_parts) {
            err = envelope_problem(413, "MB-STATUS-3", pi, p, "Too many parts");
            err.limit = "max_parts";
            err.value = std::int64_t(limits.max_parts);
            err.detail = "Part " + std::to_string(pi) + " would exceed the limit of " +
                         std::to_string(limits.max_parts) + " parts per batch; no part ran.";
            return false;
        }
        RequestPart part;
        part.index = pi;
        part.header_offset = h;
        PartHeaderState st;
        std::size_t L = h, section_bytes = 0, nfields = 0;
        std::size_t body_start = 0, delim = 0;
        bool no_body = false;
        // 2. The part header section.
        while (true) {
            if (L >= n) {
                err = envelope_problem(400, "MB-WIRE-13", pi, n, "Content ends without the close delimiter");
                return false;
            }
            if (content[L] == '\r' && L + 1 < n && content[L + 1] == '\n') {
                if (cur.starts_db(L + 2)) {
                    no_body = true;  // MB-WIRE-21: this CRLF begins the delimiter
                    delim = L + 2;
                } else {
                    body_start = L + 2;
                }
                break;
            }
            if (content[L] == '\n') {
                err = envelope_problem(400, "MB-WIRE-8", pi, L, "Bare LF in a part header section");
                return false;
            }
            std::size_t e = L;
            while (e < n && content[e] != '\r' && content[e] != '\n') ++e;
            if (e >= n) {
                err = envelope_problem(400, "MB-WIRE-13", pi, n, "Content ends without the close delimiter");
                return false;
            }
            if (content[e] == '\n') {
                err = envelope_problem(400, "MB-WIRE-8", pi, L, "Bare LF ending a part header line");
                return false;
            }
            if (e + 1 >= n || content[e + 1] != '\n') {
                err = envelope_problem(400, "MB-WIRE-8", pi, L, "Bare CR in a part header line");
                return false;
            }
            if (cur.starts_db(L)) {
                // a delimiter line cannot end a header section without the empty line's CRLF
                err = envelope_problem(400, "MB-PART-11", pi, L, "Delimiter line inside a part header section");
                return false;
            }
            section_bytes += e + 2 - L;
            ++nfields;
            if (section_bytes > limits.max_part_header_bytes) {
                err = envelope_problem(431, "MB-STATUS-3", pi, h, "Part header section too large");
                err.limit = "max_part_header_bytes";
                err.value = std::int64_t(limits.max_part_header_bytes);
                err.detail = "The header section of part " + std::to_string(pi) + " exceeds " +
                             std::to_string(limits.max_part_header_bytes) + " octets; no part ran.";
                return false;
            }
            if (nfields > limits.max_part_fields) {
                err = envelope_problem(431, "MB-LIMIT-5", pi, h, "Too many fields in a part header section");
                err.limit = "max_part_fields";
                err.value = std::int64_t(limits.max_part_fields);
                err.detail = "The header section of part " + std::to_string(pi) + " has more than " +
                             std::to_string(limits.max_part_fields) + " field lines; no part ran.";
                return false;
            }
            if (!parse_field_line(content.substr(L, e - L), L, pi, part, st, err)) return false;
            L = e + 2;
        }
        if (!finish_part_header(part, st, pi, err)) return false;
        // 3. The body: up to the CRLF that begins the next delimiter line.
        if (no_body) {
            part.body_offset = L;
            part.body_length = 0;
        } else {
            std::size_t pos = body_start;
            while (true) {
                std::size_t f = content.find(cur.db, pos);
                if (f == std::string_view::npos) {
                    err = envelope_problem(400, "MB-WIRE-13", pi, n, "Content ends without the close delimiter");
                    return false;
                }
                if (f >= body_start + 2 && content[f - 1] == '\n' && content[f - 2] == '\r') {
                    delim = f;
                    break;
                }
                if (f > body_start && content[f - 1] == '\n') {
                    // a lenient parser would see a delimiter line here (MB-WIRE-8)
                    err = envelope_problem(400, "MB-WIRE-8", pi + 1, f, "Delimiter line after a bare LF in a part body");
                    return false;
                }
                pos = f + 1;
            }
            part.body_offset = body_start;
            part.body_length = delim - 2 - body_start;
        }
        if (part.body_length > limits.max_part_bytes) {
            err = envelope_problem(413, "MB-STATUS-3", pi, h, "Part body too large");
            err.limit = "max_part_bytes";
            err.value = std::int64_t(limits.max_part_bytes);
            return false;
        }
        if (part.has_content_length && part.content_length != part.body_length) {
            err = envelope_problem(400, "MB-WIRE-17", pi, part.content_length_offset,
                                   "Content-Length differs from the part body's length");
            err.detail = "Part " + std::to_string(pi) + " declares Content-Length " +
                         std::to_string(part.content_length) + " but its body has " +
                         std::to_string(part.body_length) + " octets.";
            return false;
        }
        parts.push_back(std::move(part));
        p = delim;
    }
}

}  // namespace mb
