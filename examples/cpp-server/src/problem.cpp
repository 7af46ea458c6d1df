#include "problem.hpp"

namespace mb {

std::string Problem::json() const {
    std::string o = "{\"type\":";
    o += json_str("https://mixbatch.dev/problems/" + slug);
    o += ",\"title\":" + json_str(title.empty() ? std::string(reason_phrase(status)) : title);
    o += ",\"status\":" + std::to_string(status);
    if (!detail.empty()) o += ",\"detail\":" + json_latin1(detail);
    if (!requirement.empty()) o += ",\"requirement\":" + json_str(requirement);
    if (part_index) o += ",\"part_index\":" + std::to_string(*part_index);
    if (byte_offset) o += ",\"byte_offset\":" + std::to_string(*byte_offset);
    if (!reference.empty()) o += ",\"reference\":" + json_latin1(reference);
    if (!limit.empty()) {
        o += ",\"limit\":" + json_str(limit);
        if (value) o += ",\"value\":" + std::to_string(*value);
    }
    o += "}";
    return o;
}

Problem make_problem(int status, std::string requirement, std::string title, std::string detail) {
    Problem p;
    p.status = status;
    p.requirement = std::move(requirement);
    p.title = std::move(title);
    p.detail = std::move(detail);
    switch (status) {
        case 400: p.slug = "malformed-batch"; break;
        case 404: p.slug = "not-found"; break;
        case 405: p.slug = "method-not-allowed"; break;
        case 406: p.slug = "not-acceptable"; break;
        case 413: case 431: p.slug = "limit-exceeded"; break;
        case 415: p.slug = "unsupported-media-type"; break;
        case 501: p.slug = "not-implemented"; break;
        case 503: p.slug = "unavailable"; break;
        default: p.slug = "error"; break;
    }
    return p;
}

}  // namespace mb
