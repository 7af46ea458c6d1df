#include "conditional.hpp"

#include <vector>

namespace mb {

namespace {
struct Tag {
    bool weak;
    std::string opaque;  // with quotes
};

// Parses one entity-tag list; members that are not entity-tags are kept as invalid (match nothing).
std::vector<Tag> parse_tags(std::string_view v, bool& star) {
    std::vector<Tag> out;
    star = false;
    v = trim_ows(v);
    if (v == "*") {
        star = true;
        return out;
    }
    std::size_t i = 0;
    while (i < v.size()) {
        while (i < v.size() && (v[i] == ' ' || v[i] == '\t' || v[i] == ',')) ++i;
        if (i >= v.size()) break;
        bool weak = false;
        std::size_t start = i;
        if (v.compare(i, 2, "W/") == 0) {
            weak = true;
            i += 2;
        }
        bool ok = false;
        if (i < v.size() && v[i] == '"') {
            std::size_t j = i + 1;
            while (j < v.size() && v[j] != '"') {
                unsigned char c = v[j];
                if (!(c == 0x21 || (c >= 0x23 && c != 0x7F))) break;
                ++j;
            }
            if (j < v.size() && v[j] == '"') {
                std::size_t k = j + 1;
                while (k < v.size() && (v[k] == ' ' || v[k] == '\t')) ++k;
                if (k >= v.size() || v[k] == ',') {
                    out.push_back({weak, std::string(v.substr(i, j + 1 - i))});
                    ok = true;
                    i = k;
                }
            }
        }
        if (!ok) {
            // not an entity-tag: skip to the next comma; it matches nothing
            (void)start;
            while (i < v.size() && v[i] != ',') ++i;
        }
    }
    return out;
}

Tag split(const std::string& etag) {
    if (etag.rfind("W/", 0) == 0) return {true, etag.substr(2)};
    return {false, etag};
}

bool single_date(const Fields& h, const char* name, std::optional<std::time_t>& out) {
    if (count_field(h, name) != 1) return false;  // absent, or a list of dates: ignored
    out = parse_http_date(find_field(h, name)->value);
    return out.has_value();
}
}  // namespace

int evaluate_preconditions(const std::string& method, const Fields& h, const Validators& v) {
    bool get_or_head = method == "GET" || method == "HEAD";
    bool has_im = count_field(h, "if-match") > 0;
    bool has_inm = count_field(h, "if-none-match") > 0;
    // 1. If-Match (strong comparison)
    if (has_im) {
        bool star;
        auto tags = parse_tags(combined(h, "if-match"), star);
        bool pass = false;
        if (star) {
            pass = v.exists;
        } else if (v.exists && !v.etag.empty()) {
            Tag cur = split(v.etag);
            for (auto& t : tags)
                if (!t.weak && !cur.weak && t.opaque == cur.opaque) pass = true;
        }
        if (!pass) return 412;
    } else {
        // 2. If-Unmodified-Since
        std::optional<std::time_t> d;
        if (single_date(h, "if-unmodified-since", d) && v.exists && v.last_modified) {
            if (*v.last_modified > *d) return 412;
        }
    }
    // 3. If-None-Match (weak comparison)
    if (has_inm) {
        bool star;
        auto tags = parse_tags(combined(h, "if-none-match"), star);
        bool match = false;
        if (star) {
            match = v.exists;
        } else if (v.exists && !v.etag.empty()) {
            Tag cur = split(v.etag);
            for (auto& t : tags)
                if (t.opaque == cur.opaque) match = true;
        }
        if (match) return get_or_head ? 304 : 412;
    } else if (get_or_head) {
        // 4. If-Modified-Since
        std::optional<std::time_t> d;
        if (single_date(h, "if-modified-since", d) && v.exists && v.last_modified) {
            if (*v.last_modified <= *d) return 304;
        }
    }
    return 0;
}

}  // namespace mb
