// Media types, the boundary parameter, Accept negotiation, Prefer and Batch-Mode.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util.hpp"

namespace mb {

struct MediaType {
    std::string type, subtype;                            // lower-cased
    std::vector<std::pair<std::string, std::string>> params;  // name lower-cased, value unquoted
    bool params_ok = true;                                // RFC 9110 5.6.6 grammar held
};

// type "/" subtype parameters; false when the type/subtype itself is unreadable.
bool parse_media_type(std::string_view v, MediaType& out);
bool valid_boundary(std::string_view b);  // RFC 2046 5.1.1: 1-70 bchars, no trailing space
// Reads a quoted-string at s[i] ('"'); sets out, advances i past the closing quote.
bool read_quoted(std::string_view s, std::size_t& i, std::string& out);

// Accept: quality of a given media type; absent/empty Accept gives nullopt.
struct AcceptList {
    struct Range {
        std::string type, subtype;
        int q;  // thousandths
    };
    std::vector<Range> ranges;
    bool any_valid = false;
};
AcceptList parse_accept(std::string_view v);
// Quality in thousandths of type/subtype under the list (0 when nothing matches);
// specificity out: 3 exact, 2 type/*, 1 */*, 0 none.
int accept_quality(const AcceptList& a, std::string_view type, std::string_view subtype, int* specificity = nullptr);

enum class ErrorPolicy { Default, Continue, Stop };
ErrorPolicy parse_batch_on_error(std::string_view prefer_combined);

}  // namespace mb
