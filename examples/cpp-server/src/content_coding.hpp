// Content codings of a batch request (MB-INTER-6): gzip, x-gzip, deflate, identity, via zlib.
#pragma once
#include <string>

#include "problem.hpp"
#include "util.hpp"

namespace mb {

// Removes every coding listed in Content-Encoding, last listed first, stopping once the
// decoded octets pass limit (413). 415 for a coding it does not decode.
bool decode_content(const Fields& headers, std::string& body, std::size_t limit, Problem& err);

}  // namespace mb
