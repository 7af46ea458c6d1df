// The multipart/mixed batch envelope (spec 3.1) and request parts (3.2).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "limits.hpp"
#include "problem.hpp"
#include "util.hpp"

namespace mb {

struct PartField {
    std::string name, value;
    std::size_t offset;  // the field line's first octet
};

struct RequestPart {
    std::size_t index = 0;
    std::size_t header_offset = 0;  // the header section's first octet
    std::vector<PartField> fields;  // every field but Http-Method and Content-Id, in order
    std::string method;
    std::size_t method_offset = 0;
    std::string content_id_value;  // the field value (OWS removed), e.g. "<books/1>"
    std::string target;            // between the angle brackets
    std::size_t content_id_offset = 0;
    bool has_content_length = false;
    std::uint64_t content_length = 0;
    std::size_t content_length_offset = 0;
    std::size_t body_offset = 0, body_length = 0;
};

// Part header section parsing (part.cpp). Returns false with a problem set.
struct PartHeaderState {
    bool have_method = false, have_cid = false;
};
bool parse_field_line(std::string_view line, std::size_t offset, std::size_t part_index, RequestPart& part,
                      PartHeaderState& st, Problem& err);
bool finish_part_header(RequestPart& part, const PartHeaderState& st, std::size_t part_index, Problem& err);

// Parses and validates the whole envelope (framing and part header sections).
bool parse_envelope(std::string_view content, std::string_view boundary, const Limits& limits,
                    std::vector<RequestPart>& parts, Problem& err);

Problem envelope_problem(int status, const char* req, std::size_t part, std::size_t offset, std::string title);

}  // namespace mb
