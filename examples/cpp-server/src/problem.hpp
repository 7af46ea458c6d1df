// RFC 9457 problem documents (MB-STATUS-4, problem.schema.json).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "util.hpp"

namespace mb {

struct Problem {
    int status = 400;
    std::string slug = "malformed-batch";
    std::string title;
    std::string detail;
    std::string requirement;                 // empty: left out
    std::optional<std::int64_t> part_index;  // absent when unknown
    std::optional<std::int64_t> byte_offset;
    std::string limit;                       // empty: left out
    std::optional<std::int64_t> value;       // only beside limit
    std::string reference;                   // MB-PROC-20
    Fields extra_headers;                    // Allow, Accept-Post, Accept-Encoding, Retry-After
    bool close = false;                      // close the connection after answering

    std::string json() const;
};

Problem make_problem(int status, std::string requirement, std::string title, std::string detail = {});

}  // namespace mb
