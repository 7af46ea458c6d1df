#include "content_coding.hpp"

#include <zlib.h>

#include <vector>

namespace mb {

namespace {
enum class Res { Ok, Corrupt, TooBig };

// window_bits: 16+15 gzip, 15 zlib, -15 raw deflate.
Res inflate_all(const std::string& in, std::string& out, int window_bits, std::size_t limit) {
    out.clear();
    std::size_t off = 0;
    char buf[65536];
    while (off < in.size()) {
        z_stream zs{};
        if (inflateInit2(&zs, window_bits) != Z_OK) return Res::Corrupt;
        zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + off));
        zs.avail_in = uInt(in.size() - off);
        int rc;
        do {
            zs.next_out = reinterpret_cast<Bytef*>(buf);
            zs.avail_out = sizeof buf;
            rc = inflate(&zs, Z_NO_FLUSH);
            if (rc != Z_OK && rc != Z_STREAM_END) {
                inflateEnd(&zs);
                return Res::Corrupt;
            }
            out.append(buf, sizeof buf - zs.avail_out);
            if (out.size() > limit) {
                inflateEnd(&zs);
                return Res::TooBig;
            }
            if (rc == Z_OK && zs.avail_in == 0 && zs.avail_out != 0) {
                inflateEnd(&zs);
                return Res::Corrupt;  // truncated stream
            }
        } while (rc != Z_STREAM_END);
        off = in.size() - zs.avail_in;
        inflateEnd(&zs);
        if (window_bits != 16 + 15) break;  // only gzip has members to concatenate
    }
    if (window_bits != 16 + 15 && off != in.size()) return Res::Corrupt;
    return Res::Ok;
}
}  // namespace

bool decode_content(const Fields& headers, std::string& body, std::size_t limit, Problem& err) {
    std::vector<std::string> codings;
    for (const auto& f : headers) {
        if (!iequals(f.name, "content-encoding")) continue;
        std::string_view v = f.value;
        std::size_t s = 0;
        while (true) {
            auto c = v.find(',', s);
            auto el = trim_ows(v.substr(s, c == std::string_view::npos ? std::string_view::npos : c - s));
            if (!el.empty()) codings.push_back(lower(el));
            if (c == std::string_view::npos) break;
            s = c + 1;
        }
    }
    for (const auto& c : codings) {
        if (c != "gzip" && c != "x-gzip" && c != "deflate" && c != "identity") {
            err = make_problem(415, "MB-INTER-6", "Unsupported content coding",
                               "The content coding '" + c + "' is not supported; this server decodes gzip and deflate.");
            err.extra_headers.push_back({"Accept-Encoding", "gzip, deflate"});
            return false;
        }
    }
    for (auto it = codings.rbegin(); it != codings.rend(); ++it) {
        if (*it == "identity") continue;
        std::string out;
        Res r;
        if (*it == "deflate") {
            r = inflate_all(body, out, 15, limit);
            if (r == Res::Corrupt) r = inflate_all(body, out, -15, limit);
        } else {
            r = inflate_all(body, out, 16 + 15, limit);
        }
        if (r == Res::TooBig) {
            err = make_problem(413, "MB-STATUS-3", "Batch content too large",
                               "The decoded batch content exceeds max_batch_bytes; no part ran.");
            err.limit = "max_batch_bytes";
            err.value = std::int64_t(limit);
            return false;
        }
        if (r == Res::Corrupt) {
            err = make_problem(400, "", "Corrupt content coding",
                               "The content could not be decoded as " + *it + ".");
            err.slug = "bad-content-coding";
            return false;
        }
        body.swap(out);
    }
    return true;
}

}  // namespace mb
