#include "media.hpp"

#include <cstring>

namespace mb {

bool read_quoted(std::string_view s, std::size_t& i, std::string& out) {
    if (i >= s.size() || s[i] != '"') return false;
    out.clear();
    ++i;
    while (i < s.size()) {
        unsigned char c = s[i];
        if (c == '"') {
            ++i;
            return true;
        }
        if (c == '\\') {
            if (i + 1 >= s.size()) return false;
            unsigned char e = s[i + 1];
            if (!(e == '\t' || (e >= 0x20 && e != 0x7F))) return false;
            out += char(e);
            i += 2;
            continue;
        }
        // qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text
        if (!(c == '\t' || c == ' ' || c == 0x21 || (c >= 0x23 && c != 0x7F))) return false;
        out += char(c);
        ++i;
    }
    return false;
}

namespace {
void skip_ows(std::string_view s, std::size_t& i) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
}
std::size_t read_token(std::string_view s, std::size_t i) {
    while (i < s.size() && is_tchar(s[i])) ++i;
    return i;
}
// parameters = *( OWS ";" OWS [ parameter ] ) starting at i; returns false on grammar break.
bool read_params(std::string_view s, std::size_t i, std::vector<std::pair<std::string, std::string>>& out) {
    while (true) {
        skip_ows(s, i);
        if (i >= s.size()) return true;
        if (s[i] != ';') return false;
        ++i;
        skip_ows(s, i);
        if (i >= s.size()) return true;
        if (s[i] == ';') continue;
        std::size_t e = read_token(s, i);
        if (e == i) return false;
        std::string name = lower(s.substr(i, e - i));
        i = e;
        if (i >= s.size() || s[i] != '=') return false;
        ++i;
        std::string value;
        if (i < s.size() && s[i] == '"') {
            if (!read_quoted(s, i, value)) return false;
        } else {
            e = read_token(s, i);
            if (e == i) return false;
            value = std::string(s.substr(i, e - i));
            i = e;
        }
        out.emplace_back(std::move(name), std::move(value));
    }
}
}  // namespace

bool parse_media_type(std::string_view v, MediaType& out) {
    v = trim_ows(v);
    std::size_t i = 0;
    std::size_t e = read_token(v, i);
    if (e == i || e >= v.size() || v[e] != '/') return false;
    out.type = lower(v.substr(0, e));
    i = e + 1;
    e = read_token(v, i);
    if (e == i) return false;
    out.subtype = lower(v.substr(i, e - i));
    out.params.clear();
    out.params_ok = read_params(v, e, out.params);
    return true;
}

bool valid_boundary(std::string_view b) {
    if (b.empty() || b.size() > 70 || b.back() == ' ') return false;
    for (unsigned char c : b) {
        if (is_alpha(c) || is_digit(c)) continue;
        if (c != 0 && std::strchr("'()+_,-./:=? ", c)) continue;
        return false;
    }
    return true;
}

namespace {
// qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ), in thousandths.
bool parse_qvalue(std::string_view s, int& q) {
    if (s.empty() || s.size() > 5) return false;
    if (s[0] != '0' && s[0] != '1') return false;
    int whole = s[0] - '0';
    int frac = 0;
    if (s.size() > 1) {
        if (s[1] != '.') return false;
        auto d = s.substr(2);
        int scale = 100;
        for (unsigned char c : d) {
            if (!is_digit(c)) return false;
            frac += (c - '0') * scale;
            scale /= 10;
        }
    }
    if (whole == 1 && frac != 0) return false;
    q = whole * 1000 + frac;
    return true;
}

// Splits a list at commas outside quoted strings.
std::vector<std::string_view> split_list(std::string_view v) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    bool inq = false;
    for (std::size_t i = 0; i < v.size(); ++i) {
        char c = v[i];
        if (inq) {
            if (c == '\\') ++i;
            else if (c == '"') inq = false;
        } else if (c == '"') {
            inq = true;
        } else if (c == ',') {
            out.push_back(v.substr(start, i - start));
            start = i + 1;
        }
    }
    out.push_back(v.substr(start));
    return out;
}
}  // namespace

AcceptList parse_accept(std::string_view v) {
    AcceptList a;
    for (auto el : split_list(v)) {
        el = trim_ows(el);
        if (el.empty()) continue;
        MediaType mt;
        if (!parse_media_type(el, mt) || !mt.params_ok) continue;  // not a media-range: ignored
        if (mt.type == "*" && mt.subtype != "*") continue;
        int q = 1000;
        bool ok = true;
        for (auto& [n, val] : mt.params) {
            if (n == "q") {
                if (!parse_qvalue(val, q)) ok = false;
                break;  // parameters after the weight are accept-ext
            }
        }
        if (!ok) continue;
        a.any_valid = true;
        a.ranges.push_back({mt.type, mt.subtype, q});
    }
    return a;
}

int accept_quality(const AcceptList& a, std::string_view type, std::string_view subtype, int* specificity) {
    int best_spec = 0, best_q = 0;
    for (auto& r : a.ranges) {
        int spec = 0;
        if (r.type == "*" && r.subtype == "*") spec = 1;
        else if (r.type == type && r.subtype == "*") spec = 2;
        else if (r.type == type && r.subtype == subtype) spec = 3;
        if (spec == 0) continue;
        if (spec > best_spec) {
            best_spec = spec;
            best_q = r.q;
        } else if (spec == best_spec && r.q > best_q) {
            best_q = r.q;
        }
    }
    if (specificity) *specificity = best_spec;
    return best_q;
}

ErrorPolicy parse_batch_on_error(std::string_view v) {
    for (auto el : split_list(v)) {
        // the preference is the part before the first ';' outside quotes
        std::size_t i = 0;
        bool inq = false;
        for (; i < el.size(); ++i) {
            if (inq) {
                if (el[i] == '\\') ++i;
                else if (el[i] == '"') inq = false;
            } else if (el[i] == '"') {
                inq = true;
            } else if (el[i] == ';') {
                break;
            }
        }
        std::string_view pref = trim_ows(el.substr(0, std::min(i, el.size())));
        auto eq = pref.find('=');
        std::string_view name = trim_ows(pref.substr(0, eq));
        if (!iequals(name, "batch-on-error")) continue;
        // first instance decides (RFC 7240 section 2, MB-PROC-13)
        if (eq == std::string_view::npos) return ErrorPolicy::Default;
        std::string_view raw = trim_ows(pref.substr(eq + 1));
        std::string value;
        if (!raw.empty() && raw[0] == '"') {
            std::size_t k = 0;
            if (!read_quoted(raw, k, value) || k != raw.size()) return ErrorPolicy::Default;
        } else {
            if (!is_token(raw)) return ErrorPolicy::Default;
            value = std::string(raw);
        }
        if (iequals(value, "stop")) return ErrorPolicy::Stop;
        if (iequals(value, "continue")) return ErrorPolicy::Continue;
        return ErrorPolicy::Default;
    }
    return ErrorPolicy::Default;
}

}  // namespace mb
