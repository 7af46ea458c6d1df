#include "uri.hpp"

#include <cctype>
#include <cstring>
#include <vector>

#include "util.hpp"

namespace mb {

namespace {

bool unreserved(unsigned char c) { return is_alpha(c) || is_digit(c) || c == '-' || c == '.' || c == '_' || c == '~'; }
bool sub_delim(unsigned char c) { return c != 0 && std::strchr("!$&'()*+,;=", c) != nullptr; }

// Checks chars: unreserved / pct-encoded / sub-delims / extra.
bool valid_chars(std::string_view s, const char* extra) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        unsigned char c = s[i];
        if (c == '%') {
            if (i + 2 >= s.size()) return false;
            if (!is_hex(s[i + 1]) || !is_hex(s[i + 2])) return false;
            i += 2;
            continue;
        }
        if (unreserved(c) || sub_delim(c)) continue;
        if (c != 0 && std::strchr(extra, c) != nullptr) continue;
        return false;
    }
    return true;
}

bool dec_octet(std::string_view s) {
    if (s.empty() || s.size() > 3) return false;
    for (unsigned char c : s)
        if (!is_digit(c)) return false;
    if (s.size() > 1 && s[0] == '0') return false;
    int v = 0;
    for (unsigned char c : s) v = v * 10 + (c - '0');
    return v <= 255;
}

bool ipv4(std::string_view s) {
    int parts = 0;
    std::size_t start = 0;
    while (true) {
        auto dot = s.find('.', start);
        auto piece = s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
        if (!dec_octet(piece)) return false;
        ++parts;
        if (dot == std::string_view::npos) break;
        start = dot + 1;
    }
    return parts == 4;
}

// Counts 16-bit pieces of a run of h16 separated by ':', allowing a trailing IPv4 if allow_v4.
bool h16_run(std::string_view s, bool allow_v4, int& pieces) {
    pieces = 0;
    if (s.empty()) return true;
    std::size_t start = 0;
    while (true) {
        auto colon = s.find(':', start);
        auto piece = s.substr(start, colon == std::string_view::npos ? std::string_view::npos : colon - start);
        if (colon == std::string_view::npos && allow_v4 && piece.find('.') != std::string_view::npos) {
            if (!ipv4(piece)) return false;
            pieces += 2;
            return true;
        }
        if (piece.empty() || piece.size() > 4) return false;
        for (unsigned char c : piece)
            if (!is_hex(c)) return false;
        ++pieces;
        if (colon == std::string_view::npos) return true;
        start = colon + 1;
    }
}

bool ipv6(std::string_view s) {
    auto dc = s.find("::");
    if (dc == std::string_view::npos) {
        int n;
        return h16_run(s, true, n) && n == 8;
    }
    if (s.find("::", dc + 1) != std::string_view::npos) return false;
    int l, r;
    if (!h16_run(s.substr(0, dc), false, l)) return false;
    if (!h16_run(s.substr(dc + 2), true, r)) return false;
    return l + r <= 7;
}

bool ipvfuture(std::string_view s) {
    if (s.size() < 4 || (s[0] != 'v' && s[0] != 'V')) return false;
    std::size_t i = 1;
    while (i < s.size() && is_hex(s[i])) ++i;
    if (i == 1 || i >= s.size() || s[i] != '.') return false;
    ++i;
    if (i >= s.size()) return false;
    for (; i < s.size(); ++i) {
        unsigned char c = s[i];
        if (!(unreserved(c) || sub_delim(c) || c == ':')) return false;
    }
    return true;
}

bool valid_path(std::string_view p) { return valid_chars(p, ":@/"); }

}  // namespace

bool parse_authority(std::string_view a, std::string& userinfo, bool& has_userinfo, std::string& host,
                     std::string& port) {
    has_userinfo = false;
    auto at = a.find('@');
    if (at != std::string_view::npos) {
        has_userinfo = true;
        userinfo = std::string(a.substr(0, at));
        if (!valid_chars(userinfo, ":")) return false;
        a = a.substr(at + 1);
    }
    std::string_view rest;
    if (!a.empty() && a[0] == '[') {
        auto close = a.find(']');
        if (close == std::string_view::npos) return false;
        auto lit = a.substr(1, close - 1);
        if (!ipv6(lit) && !ipvfuture(lit)) return false;
        host = std::string(a.substr(0, close + 1));
        rest = a.substr(close + 1);
    } else {
        auto colon = a.find(':');
        host = std::string(a.substr(0, colon));
        if (!valid_chars(host, "")) return false;
        rest = colon == std::string_view::npos ? std::string_view{} : a.substr(colon);
    }
    port.clear();
    if (!rest.empty()) {
        if (rest[0] != ':') return false;
        for (unsigned char c : rest.substr(1))
            if (!is_digit(c)) return false;
        port = std::string(rest.substr(1));
    }
    return true;
}

bool valid_host_field(std::string_view v) {
    std::string ui, host, port;
    bool has_ui;
    if (v.empty()) return false;
    if (!parse_authority(v, ui, has_ui, host, port)) return false;
    if (has_ui || host.empty()) return false;
    return true;
}

bool parse_uri_reference(std::string_view s, UriRef& out) {
    out = UriRef{};
    std::string_view rest = s;
    if (!s.empty() && is_alpha(s[0])) {
        std::size_t j = 1;
        while (j < s.size() && (is_alpha(s[j]) || is_digit(s[j]) || s[j] == '+' || s[j] == '-' || s[j] == '.')) ++j;
        if (j < s.size() && s[j] == ':') {
            out.has_scheme = true;
            out.scheme = std::string(s.substr(0, j));
            rest = s.substr(j + 1);
        }
    }
    auto hash = rest.find('#');
    if (hash != std::string_view::npos) {
        out.has_fragment = true;
        out.fragment = std::string(rest.substr(hash + 1));
        if (!valid_chars(out.fragment, ":@/?")) return false;
        rest = rest.substr(0, hash);
    }
    auto q = rest.find('?');
    if (q != std::string_view::npos) {
        out.has_query = true;
        out.query = std::string(rest.substr(q + 1));
        if (!valid_chars(out.query, ":@/?")) return false;
        rest = rest.substr(0, q);
    }
    if (rest.size() >= 2 && rest[0] == '/' && rest[1] == '/') {
        auto slash = rest.find('/', 2);
        out.has_authority = true;
        out.authority = std::string(rest.substr(2, slash == std::string_view::npos ? std::string_view::npos : slash - 2));
        std::string ui, host, port;
        bool has_ui;
        if (!parse_authority(out.authority, ui, has_ui, host, port)) return false;
        out.path = slash == std::string_view::npos ? std::string() : std::string(rest.substr(slash));
    } else {
        out.path = std::string(rest);
        if (!out.has_scheme) {
            // path-noscheme: the first segment holds no ':'
            auto first = out.path.substr(0, out.path.find('/'));
            if (first.find(':') != std::string::npos) return false;
        }
    }
    return valid_path(out.path);
}

std::string remove_dot_segments(std::string_view in) {
    std::string input(in), output;
    while (!input.empty()) {
        if (input.rfind("../", 0) == 0) {
            input.erase(0, 3);
        } else if (input.rfind("./", 0) == 0) {
            input.erase(0, 2);
        } else if (input.rfind("/./", 0) == 0) {
            input.replace(0, 3, "/");
        } else if (input == "/.") {
            input = "/";
        } else if (input.rfind("/../", 0) == 0 || input == "/..") {
            if (input == "/..") input = "/";
            else input.replace(0, 4, "/");
            auto last = output.rfind('/');
            output.erase(last == std::string::npos ? 0 : last);
        } else if (input == "." || input == "..") {
            input.clear();
        } else {
            std::size_t start = input[0] == '/' ? 1 : 0;
            auto next = input.find('/', start);
            if (next == std::string::npos) next = input.size();
            output += input.substr(0, next);
            input.erase(0, next);
        }
    }
    return output;
}

UriRef resolve(const UriRef& base, const UriRef& r) {
    UriRef t;
    if (r.has_scheme) {
        t = r;
        t.path = remove_dot_segments(r.path);
    } else {
        if (r.has_authority) {
            t.has_authority = true;
            t.authority = r.authority;
            t.path = remove_dot_segments(r.path);
            t.has_query = r.has_query;
            t.query = r.query;
        } else {
            if (r.path.empty()) {
                t.path = base.path;
                if (r.has_query) {
                    t.has_query = true;
                    t.query = r.query;
                } else {
                    t.has_query = base.has_query;
                    t.query = base.query;
                }
            } else {
                if (r.path[0] == '/') {
                    t.path = remove_dot_segments(r.path);
                } else {
                    std::string merged;
                    if (base.has_authority && base.path.empty()) {
                        merged = "/" + r.path;
                    } else {
                        auto last = base.path.rfind('/');
                        merged = (last == std::string::npos ? std::string() : base.path.substr(0, last + 1)) + r.path;
                    }
                    t.path = remove_dot_segments(merged);
                }
                t.has_query = r.has_query;
                t.query = r.query;
            }
            t.has_authority = base.has_authority;
            t.authority = base.authority;
        }
        t.has_scheme = base.has_scheme;
        t.scheme = base.scheme;
    }
    t.has_fragment = r.has_fragment;
    t.fragment = r.fragment;
    return t;
}

std::string normalize_path(std::string_view p) {
    std::string o;
    o.reserve(p.size());
    for (std::size_t i = 0; i < p.size(); ++i) {
        if (p[i] == '%' && i + 2 < p.size() && is_hex(p[i + 1]) && is_hex(p[i + 2])) {
            auto hv = [](char c) { return is_digit(c) ? c - '0' : (ascii_lower(c) - 'a' + 10); };
            unsigned char c = (unsigned char)(hv(p[i + 1]) * 16 + hv(p[i + 2]));
            if (unreserved(c)) {
                o += char(c);
            } else {
                o += '%';
                o += char(std::toupper((unsigned char)p[i + 1]));
                o += char(std::toupper((unsigned char)p[i + 2]));
            }
            i += 2;
        } else {
            o += p[i];
        }
    }
    return o;
}

std::string origin_form(const UriRef& u) {
    std::string o = u.path.empty() ? "/" : u.path;
    if (u.has_query) o += "?" + u.query;
    return o;
}

}  // namespace mb
