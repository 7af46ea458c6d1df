#include "util.hpp"

#include <sys/random.h>

#include <cstring>

#include "limits.hpp"

namespace mb {

const Limits& default_limits() {
    static const Limits l{};
    return l;
}

bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
bool is_alpha(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_hex(unsigned char c) {
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool is_tchar(unsigned char c) {
    if (is_digit(c) || is_alpha(c)) return true;
    return std::strchr("!#$%&'*+-.^_`|~", c) != nullptr && c != 0;
}
bool is_token(std::string_view s) {
    if (s.empty()) return false;
    for (unsigned char c : s)
        if (!is_tchar(c)) return false;
    return true;
}
char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c; }
std::string lower(std::string_view s) {
    std::string r(s);
    for (auto& c : r) c = ascii_lower(c);
    return r;
}
bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
    return true;
}
std::string_view trim_ows(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

const Field* find_field(const Fields& f, std::string_view name) {
    for (const auto& x : f)
        if (iequals(x.name, name)) return &x;
    return nullptr;
}
std::size_t count_field(const Fields& f, std::string_view name) {
    std::size_t n = 0;
    for (const auto& x : f)
        if (iequals(x.name, name)) ++n;
    return n;
}
std::string combined(const Fields& f, std::string_view name) {
    std::string r;
    bool first = true;
    for (const auto& x : f) {
        if (!iequals(x.name, name)) continue;
        if (!first) r += ", ";
        r += x.value;
        first = false;
    }
    return r;
}

std::optional<std::uint64_t> parse_decimal(std::string_view s, std::size_t max_digits) {
    if (s.empty() || s.size() > max_digits) return std::nullopt;
    std::uint64_t v = 0;
    for (unsigned char c : s) {
        if (!is_digit(c)) return std::nullopt;
        v = v * 10 + (c - '0');
    }
    return v;
}

std::string base64(std::string_view in) {
    static const char* t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((in.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 2 < in.size(); i += 3) {
        unsigned v = (unsigned char)in[i] << 16 | (unsigned char)in[i + 1] << 8 | (unsigned char)in[i + 2];
        out += t[v >> 18];
        out += t[(v >> 12) & 63];
        out += t[(v >> 6) & 63];
        out += t[v & 63];
    }
    if (i + 1 == in.size()) {
        unsigned v = (unsigned char)in[i] << 16;
        out += t[v >> 18];
        out += t[(v >> 12) & 63];
        out += "==";
    } else if (i + 2 == in.size()) {
        unsigned v = (unsigned char)in[i] << 16 | (unsigned char)in[i + 1] << 8;
        out += t[v >> 18];
        out += t[(v >> 12) & 63];
        out += t[(v >> 6) & 63];
        out += '=';
    }
    return out;
}

// RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF.
bool valid_utf8(std::string_view s) {
    std::size_t i = 0, n = s.size();
    while (i < n) {
        unsigned char c = s[i];
        if (c < 0x80) { ++i; continue; }
        std::size_t len;
        std::uint32_t cp;
        if (c >= 0xC2 && c <= 0xDF) { len = 2; cp = c & 0x1F; }
        else if (c >= 0xE0 && c <= 0xEF) { len = 3; cp = c & 0x0F; }
        else if (c >= 0xF0 && c <= 0xF4) { len = 4; cp = c & 0x07; }
        else return false;
        if (i + len > n) return false;
        for (std::size_t k = 1; k < len; ++k) {
            unsigned char d = s[i + k];
            if ((d & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (d & 0x3F);
        }
        if (len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) return false;
        if (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) return false;
        i += len;
    }
    return true;
}

std::string json_str(std::string_view s) {
    std::string o;
    o.reserve(s.size() + 2);
    o += '"';
    for (unsigned char c : s) {
        switch (c) {
            case '"': o += "\\\""; break;
            case '\\': o += "\\\\"; break;
            case '\n': o += "\\n"; break;
            case '\r': o += "\\r"; break;
            case '\t': o += "\\t"; break;
            case '\b': o += "\\b"; break;
            case '\f': o += "\\f"; break;
            default:
                if (c < 0x20 || c == 0x7F) {
                    char b[8];
                    std::snprintf(b, sizeof b, "\\u%04x", c);
                    o += b;
                } else {
                    o += char(c);
                }
        }
    }
    o += '"';
    return o;
}

std::string latin1_to_utf8(std::string_view s) {
    std::string o;
    o.reserve(s.size());
    for (unsigned char c : s) {
        if (c < 0x80) {
            o += char(c);
        } else {
            o += char(0xC0 | (c >> 6));
            o += char(0x80 | (c & 0x3F));
        }
    }
    return o;
}

std::string json_latin1(std::string_view octets) { return json_str(latin1_to_utf8(octets)); }

std::string xml_escape(std::string_view s) {
    std::string o;
    o.reserve(s.size());
    for (unsigned char c : s) {
        switch (c) {
            case '&': o += "&amp;"; break;
            case '<': o += "&lt;"; break;
            case '>': o += "&gt;"; break;
            case '"': o += "&quot;"; break;
            case '\t': o += "&#9;"; break;
            default:
                if (c < 0x20 || c == 0x7F) {
                    // not representable in XML 1.0; field values never hold these
                    o += "&#xFFFD;";
                } else {
                    o += char(c);
                }
        }
    }
    return o;
}

void random_bytes(char* out, std::size_t n) {
    std::size_t got = 0;
    while (got < n) {
        ssize_t r = getrandom(out + got, n - got, 0);
        if (r <= 0) continue;
        got += std::size_t(r);
    }
}

std::string random_token(std::size_t n) {
    static const char* a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
    std::string raw(n, '\0');
    random_bytes(raw.data(), n);
    std::string o(n, 'x');
    // alphanumerics only: a boundary that starts with '-' reads badly after the two hyphens
    for (std::size_t i = 0; i < n; ++i) o[i] = a[(unsigned char)raw[i] % 62];
    return o;
}

static const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
static const char* kLongDays[] = {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};
static const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

std::string http_date(std::time_t t) {
    struct tm g;
    gmtime_r(&t, &g);
    char b[64];
    std::snprintf(b, sizeof b, "%s, %02d %s %04d %02d:%02d:%02d GMT", kDays[g.tm_wday], g.tm_mday,
                  kMonths[g.tm_mon], g.tm_year + 1900, g.tm_hour, g.tm_min, g.tm_sec);
    return b;
}

namespace {
bool num(std::string_view s, std::size_t pos, std::size_t len, int& out) {
    if (pos + len > s.size()) return false;
    int v = 0;
    for (std::size_t i = 0; i < len; ++i) {
        unsigned char c = s[pos + i];
        if (!is_digit(c)) return false;
        v = v * 10 + (c - '0');
    }
    out = v;
    return true;
}
int month_of(std::string_view s) {
    for (int i = 0; i < 12; ++i)
        if (s == kMonths[i]) return i;
    return -1;
}
bool time_of(std::string_view s, std::size_t pos, int& h, int& m, int& sec) {
    if (pos + 8 > s.size()) return false;
    if (!num(s, pos, 2, h) || s[pos + 2] != ':' || !num(s, pos + 3, 2, m) || s[pos + 5] != ':' ||
        !num(s, pos + 6, 2, sec))
        return false;
    return h <= 23 && m <= 59 && sec <= 60;
}
std::optional<std::time_t> make_time(int y, int mon, int d, int h, int m, int s) {
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (d < 1 || d > mdays[mon]) return std::nullopt;
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (mon == 1 && d == 29 && !leap) return std::nullopt;
    struct tm t {};
    t.tm_year = y - 1900;
    t.tm_mon = mon;
    t.tm_mday = d;
    t.tm_hour = h;
    t.tm_min = m;
    t.tm_sec = s;
    return timegm(&t);
}
}  // namespace

std::optional<std::time_t> parse_http_date(std::string_view s) {
    int d, y, h, mi, se;
    // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT  (29 chars)
    if (s.size() == 29 && s[3] == ',') {
        bool day = false;
        for (auto* x : kDays) day |= s.substr(0, 3) == x;
        if (!day || s[4] != ' ' || !num(s, 5, 2, d) || s[7] != ' ') return std::nullopt;
        int mon = month_of(s.substr(8, 3));
        if (mon < 0 || s[11] != ' ' || !num(s, 12, 4, y) || s[16] != ' ') return std::nullopt;
        if (!time_of(s, 17, h, mi, se) || s.substr(25) != " GMT") return std::nullopt;
        return make_time(y, mon, d, h, mi, se);
    }
    // asctime: Sun Nov  6 08:49:37 1994 (24 chars)
    if (s.size() == 24 && s[3] == ' ') {
        bool day = false;
        for (auto* x : kDays) day |= s.substr(0, 3) == x;
        if (!day) return std::nullopt;
        int mon = month_of(s.substr(4, 3));
        if (mon < 0 || s[7] != ' ') return std::nullopt;
        if (s[8] == ' ') {
            if (!num(s, 9, 1, d)) return std::nullopt;
        } else if (!num(s, 8, 2, d)) {
            return std::nullopt;
        }
        if (s[10] != ' ' || !time_of(s, 11, h, mi, se) || s[19] != ' ' || !num(s, 20, 4, y))
            return std::nullopt;
        return make_time(y, mon, d, h, mi, se);
    }
    // rfc850: Sunday, 06-Nov-94 08:49:37 GMT
    auto comma = s.find(',');
    if (comma != std::string_view::npos) {
        bool day = false;
        for (auto* x : kLongDays) day |= s.substr(0, comma) == x;
        std::string_view r = s.substr(comma + 1);
        if (!day || r.size() != 23 || r[0] != ' ' || !num(r, 1, 2, d) || r[3] != '-') return std::nullopt;
        int mon = month_of(r.substr(4, 3));
        int yy;
        if (mon < 0 || r[7] != '-' || !num(r, 8, 2, yy) || r[10] != ' ') return std::nullopt;
        if (!time_of(r, 11, h, mi, se) || r.substr(19) != " GMT") return std::nullopt;
        std::time_t now = std::time(nullptr);
        struct tm g;
        gmtime_r(&now, &g);
        int cy = g.tm_year + 1900;
        y = cy / 100 * 100 + yy;
        if (y > cy + 50) y -= 100;
        return make_time(y, mon, d, h, mi, se);
    }
    return std::nullopt;
}

std::uint64_t fnv1a(std::string_view s, std::uint64_t h) {
    for (unsigned char c : s) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}
std::string hex64(std::uint64_t v) {
    char b[20];
    std::snprintf(b, sizeof b, "%016llx", (unsigned long long)v);
    return b;
}

const char* reason_phrase(int s) {
    switch (s) {
        case 100: return "Continue";
        case 200: return "OK";
        case 201: return "Created";
        case 202: return "Accepted";
        case 203: return "Non-Authoritative Information";
        case 204: return "No Content";
        case 205: return "Reset Content";
        case 206: return "Partial Content";
        case 207: return "Multi-Status";
        case 300: return "Multiple Choices";
        case 301: return "Moved Permanently";
        case 302: return "Found";
        case 303: return "See Other";
        case 304: return "Not Modified";
        case 307: return "Temporary Redirect";
        case 308: return "Permanent Redirect";
        case 400: return "Bad Request";
        case 401: return "Unauthorized";
        case 403: return "Forbidden";
        case 404: return "Not Found";
        case 405: return "Method Not Allowed";
        case 406: return "Not Acceptable";
        case 408: return "Request Timeout";
        case 409: return "Conflict";
        case 410: return "Gone";
        case 411: return "Length Required";
        case 412: return "Precondition Failed";
        case 413: return "Content Too Large";
        case 414: return "URI Too Long";
        case 415: return "Unsupported Media Type";
        case 416: return "Range Not Satisfiable";
        case 417: return "Expectation Failed";
        case 421: return "Misdirected Request";
        case 422: return "Unprocessable Content";
        case 424: return "Failed Dependency";
        case 426: return "Upgrade Required";
        case 428: return "Precondition Required";
        case 429: return "Too Many Requests";
        case 431: return "Request Header Fields Too Large";
        case 500: return "Internal Server Error";
        case 501: return "Not Implemented";
        case 502: return "Bad Gateway";
        case 503: return "Service Unavailable";
        case 504: return "Gateway Timeout";
        case 505: return "HTTP Version Not Supported";
        default: return "";
    }
}

}  // namespace mb
