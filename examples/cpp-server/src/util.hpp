// Small string, encoding and time helpers shared by every module.
#pragma once
#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mb {

struct Field {
    std::string name;
    std::string value;
};
using Fields = std::vector<Field>;

bool is_tchar(unsigned char c);
bool is_token(std::string_view s);
bool is_digit(unsigned char c);
bool is_hex(unsigned char c);
bool is_alpha(unsigned char c);
char ascii_lower(char c);
std::string lower(std::string_view s);
bool iequals(std::string_view a, std::string_view b);
std::string_view trim_ows(std::string_view s);

// Field lookup, case-insensitive names.
const Field* find_field(const Fields& f, std::string_view name);
std::size_t count_field(const Fields& f, std::string_view name);
std::string combined(const Fields& f, std::string_view name);  // lines joined with ", "

// Parses 1*DIGIT with at most max_digits digits; nullopt otherwise.
std::optional<std::uint64_t> parse_decimal(std::string_view s, std::size_t max_digits = 18);

std::string base64(std::string_view in);
bool valid_utf8(std::string_view s);
// JSON string literal for UTF-8 text (assumed valid UTF-8).
std::string json_str(std::string_view utf8);
// JSON string literal for octets mapped one octet to one character (ISO-8859-1).
std::string json_latin1(std::string_view octets);
std::string latin1_to_utf8(std::string_view octets);
std::string xml_escape(std::string_view utf8);

std::string random_token(std::size_t n);  // [A-Za-z0-9_-] from getrandom()
void random_bytes(char* out, std::size_t n);

std::string http_date(std::time_t t);
std::optional<std::time_t> parse_http_date(std::string_view s);  // RFC 9110 5.6.7, all 3 forms

std::uint64_t fnv1a(std::string_view s, std::uint64_t h = 1469598103934665603ull);
std::string hex64(std::uint64_t v);

const char* reason_phrase(int status);

}  // namespace mb
