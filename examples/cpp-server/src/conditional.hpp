// Conditional requests (RFC 9110 section 13, MB-PROC-9): If-Match, If-None-Match,
// If-Modified-Since, If-Unmodified-Since, evaluated in the order of 13.2.2.
#pragma once
#include <ctime>
#include <optional>
#include <string>

#include "util.hpp"

namespace mb {

struct Validators {
    bool exists = false;
    std::string etag;  // with quotes, optionally W/ prefix; empty when none
    std::optional<std::time_t> last_modified;
};

// Returns 0 when the request proceeds, or 304 / 412.
int evaluate_preconditions(const std::string& method, const Fields& headers, const Validators& v);

}  // namespace mb
