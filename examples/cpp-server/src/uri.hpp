// RFC 3986 URI-reference grammar, strict resolution (5.2.2) and helpers.
#pragma once
#include <string>
#include <string_view>

namespace mb {

struct UriRef {
    bool has_scheme = false;
    std::string scheme;
    bool has_authority = false;
    std::string authority;
    std::string path;
    bool has_query = false;
    std::string query;
    bool has_fragment = false;
    std::string fragment;
};

// Validates s against URI-reference exactly; fills out on success.
bool parse_uri_reference(std::string_view s, UriRef& out);
// Validates an authority component; splits it.
bool parse_authority(std::string_view a, std::string& userinfo, bool& has_userinfo, std::string& host,
                     std::string& port);
// Host field value: uri-host [ ":" port ], non-empty host.
bool valid_host_field(std::string_view v);
UriRef resolve(const UriRef& base, const UriRef& ref);
std::string remove_dot_segments(std::string_view path);
// Decodes percent-encoded unreserved characters (RFC 3986 6.2.2.2) and upper-cases other triplets.
std::string normalize_path(std::string_view path);
std::string origin_form(const UriRef& u);

}  // namespace mb
