// Request part header sections: field-line syntax (MB-PART-11), the mixbatch fields
// Http-Method (MB-PART-2) and Content-Id (MB-PART-4), forbidden fields (MB-PART-10) and
// Content-Length (MB-WIRE-20).
#include "envelope.hpp"
#include "uri.hpp"

namespace mb {

Problem envelope_problem(int status, const char* req, std::size_t part, std::size_t offset, std::string title) {
    Problem p = make_problem(status, req, std::move(title));
    p.part_index = std::int64_t(part);
    p.byte_offset = std::int64_t(offset);
    p.detail = p.title + " (part " + std::to_string(part) + ", byte " + std::to_string(offset) + ").";
    return p;
}

namespace {
const char* kForbidden[] = {"connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade",
                            "expect", "host", "trailer", "content-transfer-encoding", "http-status-code"};
}

bool parse_field_line(std::string_view line, std::size_t offset, std::size_t pi, RequestPart& part,
                      PartHeaderState& st, Problem& err) {
    // field-line = field-name ":" OWS field-value OWS  (RFC 9112 section 5)
    std::size_t i = 0;
    while (i < line.size() && is_tchar(line[i])) ++i;
    if (i == 0 || i >= line.size() || line[i] != ':') {
        const char* why = line.empty() ? "Empty line inside a part header section"
                          : (line[0] == ' ' || line[0] == '\t') ? "Obsolete line folding in a part header section"
                          : i == 0 ? "Part header line without a field name"
                          : i >= line.size() ? "Part header line without a colon"
                                             : "Invalid part header field name";
        err = envelope_problem(400, "MB-PART-11", pi, offset, why);
        return false;
    }
    std::string_view name = line.substr(0, i);
    std::string_view raw = line.substr(i + 1);
    for (unsigned char c : raw) {
        if (c == '\t' || c == ' ' || (c >= 0x21 && c != 0x7F)) continue;
        err = envelope_problem(400, "MB-PART-11", pi, offset, "Control character in a part header field value");
        return false;
    }
    std::string_view value = trim_ows(raw);
    for (const char* f : kForbidden) {
        if (iequals(name, f)) {
            err = envelope_problem(400, "MB-PART-10", pi, offset,
                                   "Forbidden field " + std::string(name) + " in a request part");
            return false;
        }
    }
    if (iequals(name, "http-method")) {
        if (st.have_method) {
            err = envelope_problem(400, "MB-PART-2", pi, offset, "More than one Http-Method field");
            return false;
        }
        if (!is_token(value)) {
            err = envelope_problem(400, "MB-PART-2", pi, offset, "Http-Method is not a method token");
            return false;
        }
        st.have_method = true;
        part.method = std::string(value);
        part.method_offset = offset;
        return true;
    }
    if (iequals(name, "content-id")) {
        if (st.have_cid) {
            err = envelope_problem(400, "MB-PART-4", pi, offset, "More than one Content-Id field");
            return false;
        }
        UriRef ref;
        if (value.size() < 2 || value.front() != '<' || value.back() != '>' ||
            !parse_uri_reference(value.substr(1, value.size() - 2), ref)) {
            err = envelope_problem(400, "MB-PART-4", pi, offset, "Content-Id is not \"<\" URI-reference \">\"");
            return false;
        }
        st.have_cid = true;
        part.content_id_value = std::string(value);
        part.target = std::string(value.substr(1, value.size() - 2));
        part.content_id_offset = offset;
        return true;
    }
    if (iequals(name, "content-length")) {
        if (part.has_content_length) {
            err = envelope_problem(400, "MB-WIRE-20", pi, offset, "More than one Content-Length field");
            return false;
        }
        if (value.empty()) {
            err = envelope_problem(400, "MB-WIRE-20", pi, offset, "Content-Length is not 1*DIGIT");
            return false;
        }
        std::uint64_t v = 0;
        for (unsigned char c : value) {
            if (!is_digit(c)) {
                err = envelope_problem(400, "MB-WIRE-20", pi, offset, "Content-Length is not 1*DIGIT");
                return false;
            }
            if (v < (1ull << 60)) v = v * 10 + (c - '0');  // saturates: any such value mismatches
        }
        part.has_content_length = true;
        part.content_length = v;
        part.content_length_offset = offset;
    }
    part.fields.push_back(PartField{std::string(name), std::string(value), offset});
    return true;
}

bool finish_part_header(RequestPart& part, const PartHeaderState& st, std::size_t pi, Problem& err) {
    if (!st.have_method) {
        err = envelope_problem(400, "MB-PART-2", pi, part.header_offset, "Request part without Http-Method");
        return false;
    }
    if (!st.have_cid) {
        err = envelope_problem(400, "MB-PART-4", pi, part.header_offset, "Request part without Content-Id");
        return false;
    }
    return true;
}

}  // namespace mb
