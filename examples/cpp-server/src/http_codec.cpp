#include "http_codec.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "limits.hpp"
#include "uri.hpp"

namespace mb {

bool Conn::fill(int timeout_ms) {
    if (pos_ > 0 && pos_ == buf_.size()) {
        buf_.clear();
        pos_ = 0;
    } else if (pos_ > (1 << 20)) {
        buf_.erase(0, pos_);
        pos_ = 0;
    }
    struct pollfd pfd {fd_, POLLIN, 0};
    int remaining = timeout_ms;
    while (true) {
        int r = ::poll(&pfd, 1, remaining > 200 ? 200 : remaining);
        if (r < 0 && errno != EINTR) return false;
        if (r > 0) break;
        remaining -= 200;
        if (remaining <= 0) return false;
    }
    char tmp[65536];
    ssize_t n;
    do {
        n = ::recv(fd_, tmp, sizeof tmp, 0);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) return false;
    buf_.append(tmp, std::size_t(n));
    return true;
}

bool Conn::read_line(std::string& line, std::size_t max, int timeout_ms, bool& too_long) {
    too_long = false;
    while (true) {
        auto nl = buf_.find('\n', pos_);
        if (nl != std::string::npos) {
            std::size_t end = nl;
            if (end > pos_ && buf_[end - 1] == '\r') --end;
            if (end - pos_ > max) {
                too_long = true;
                return false;
            }
            line.assign(buf_, pos_, end - pos_);
            pos_ = nl + 1;
            return true;
        }
        if (buf_.size() - pos_ > max) {
            too_long = true;
            return false;
        }
        if (!fill(timeout_ms)) return false;
    }
}

bool Conn::send_all(std::string_view d) {
    while (!d.empty()) {
        ssize_t n = ::send(fd_, d.data(), d.size(), MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        d.remove_prefix(std::size_t(n));
    }
    return true;
}

void Conn::linger_close() {
    ::shutdown(fd_, SHUT_WR);
    auto until = Clock::now() + std::chrono::milliseconds(1000);
    std::size_t dropped = 0;
    char tmp[65536];
    while (Clock::now() < until && dropped < (16u << 20)) {
        struct pollfd pfd {fd_, POLLIN, 0};
        if (::poll(&pfd, 1, 100) <= 0) continue;
        ssize_t n = ::recv(fd_, tmp, sizeof tmp, 0);
        if (n <= 0) break;
        dropped += std::size_t(n);
    }
}

namespace {
Problem bad(int status, std::string title) {
    Problem p = make_problem(status, "", std::move(title));
    p.slug = "bad-request";
    p.close = true;
    return p;
}
}  // namespace

HeadResult Conn::read_head(Request& req, Problem& err) {
    req = Request{};
    std::string line;
    bool too_long = false;
    std::size_t used = 0;
    // skip empty lines before the request line (RFC 9112 2.2)
    for (int i = 0;; ++i) {
        if (pos_ == buf_.size() && !fill(kIdleTimeoutMs)) return HeadResult::Closed;
        req.started = Clock::now();
        if (!read_line(line, kMaxRequestHeaderBytes, kReadTimeoutMs, too_long)) {
            if (too_long) {
                err = bad(414, "Request line too long");
                return HeadResult::Error;
            }
            return HeadResult::Closed;
        }
        if (!line.empty()) break;
        if (i > 8) return HeadResult::Closed;
    }
    used += line.size();
    // request-line = method SP request-target SP HTTP-version
    auto sp1 = line.find(' ');
    auto sp2 = sp1 == std::string::npos ? sp1 : line.find(' ', sp1 + 1);
    if (sp1 == std::string::npos || sp2 == std::string::npos || line.find(' ', sp2 + 1) != std::string::npos) {
        err = bad(400, "Malformed request line");
        return HeadResult::Error;
    }
    req.method = line.substr(0, sp1);
    std::string target = line.substr(sp1 + 1, sp2 - sp1 - 1);
    std::string version = line.substr(sp2 + 1);
    if (!is_token(req.method) || target.empty()) {
        err = bad(400, "Malformed request line");
        return HeadResult::Error;
    }
    if (version == "HTTP/1.1") req.minor = 1;
    else if (version == "HTTP/1.0") req.minor = 0;
    else if (version.size() == 8 && version.rfind("HTTP/", 0) == 0 && is_digit(version[5]) && version[6] == '.' &&
             is_digit(version[7])) {
        err = bad(505, "HTTP version not supported");
        return HeadResult::Error;
    } else {
        err = bad(400, "Malformed request line");
        return HeadResult::Error;
    }
    // header fields
    while (true) {
        if (!read_line(line, kMaxRequestHeaderBytes, kReadTimeoutMs, too_long)) {
            if (too_long) {
                err = bad(431, "Request header section too large");
                return HeadResult::Error;
            }
            return HeadResult::Closed;
        }
        if (line.empty()) break;
        used += line.size() + 2;
        if (used > kMaxRequestHeaderBytes || req.headers.size() >= kMaxRequestHeaderFields) {
            err = bad(431, "Request header section too large");
            return HeadResult::Error;
        }
        std::size_t i = 0;
        while (i < line.size() && is_tchar(line[i])) ++i;
        if (i == 0 || i >= line.size() || line[i] != ':') {
            err = bad(400, "Malformed header field line");
            return HeadResult::Error;
        }
        std::string_view raw = std::string_view(line).substr(i + 1);
        for (unsigned char c : raw) {
            if (!(c == '\t' || c == ' ' || (c >= 0x21 && c != 0x7F))) {
                err = bad(400, "Control character in a header field value");
                return HeadResult::Error;
            }
        }
        req.headers.push_back(Field{line.substr(0, i), std::string(trim_ows(raw))});
    }
    // request target
    if (target == "*") {
        if (req.method != "OPTIONS") {
            err = bad(400, "Asterisk-form is only for OPTIONS");
            return HeadResult::Error;
        }
        req.asterisk = true;
        req.target = "*";
        req.path = "*";
    } else if (target[0] == '/') {
        // origin-form is absolute-path [ "?" query ] (RFC 9112 §3.2.1): "//a/b" is a path of an
        // empty first segment, not a network-path reference, so it is read after an authority
        UriRef u;
        if (!parse_uri_reference("http://h" + std::string(target), u) || u.has_fragment ||
            u.authority != "h") {
            err = bad(400, "Malformed request target");
            return HeadResult::Error;
        }
        req.target = target;
        req.path = u.path;
        req.has_query = u.has_query;
        req.query = u.query;
    } else {
        UriRef u;
        if (!parse_uri_reference(target, u) || !u.has_scheme || !u.has_authority || u.has_fragment ||
            !(iequals(u.scheme, "http") || iequals(u.scheme, "https"))) {
            err = bad(400, "Malformed request target");
            return HeadResult::Error;
        }
        req.path = u.path.empty() ? "/" : u.path;
        req.has_query = u.has_query;
        req.query = u.query;
        req.target = origin_form(u);
        req.authority = u.authority;
    }
    // Host (RFC 9112 3.2)
    std::size_t hosts = count_field(req.headers, "host");
    if (hosts > 1 || (hosts == 0 && req.minor == 1)) {
        err = bad(400, "A request needs exactly one Host field");
        return HeadResult::Error;
    }
    if (hosts == 1) {
        const std::string& h = find_field(req.headers, "host")->value;
        if (!valid_host_field(h)) {
            err = bad(400, "Invalid Host field");
            return HeadResult::Error;
        }
        if (req.authority.empty()) req.authority = h;
    }
    if (req.authority.empty()) req.authority = default_authority_;
    // connection options
    std::string conn = lower(combined(req.headers, "connection"));
    bool has_close = conn.find("close") != std::string::npos;
    bool has_ka = conn.find("keep-alive") != std::string::npos;
    (void)has_ka;
    // HTTP/1.0: one request per connection (the response is marked Connection: close)
    req.keep_alive = req.minor == 1 && !has_close;
    // framing (RFC 9112 6)
    bool has_te = count_field(req.headers, "transfer-encoding") > 0;
    bool has_cl = count_field(req.headers, "content-length") > 0;
    if (has_te) {
        if (has_cl || req.minor == 0) {
            err = bad(400, "Transfer-Encoding with Content-Length or in HTTP/1.0");
            return HeadResult::Error;
        }
        std::string te = combined(req.headers, "transfer-encoding");
        std::vector<std::string> codings;
        std::size_t s = 0;
        while (s <= te.size()) {
            auto c = te.find(',', s);
            auto el = trim_ows(std::string_view(te).substr(s, c == std::string::npos ? std::string::npos : c - s));
            if (!el.empty()) codings.emplace_back(lower(el));
            if (c == std::string::npos) break;
            s = c + 1;
        }
        if (codings.empty() || codings.back() != "chunked") {
            err = bad(400, "Transfer-Encoding does not end in chunked");
            return HeadResult::Error;
        }
        if (codings.size() > 1) {
            err = bad(501, "Unsupported transfer coding");
            return HeadResult::Error;
        }
        req.chunked = true;
    } else if (has_cl) {
        std::string cl = combined(req.headers, "content-length");
        std::optional<std::uint64_t> v;
        std::size_t s = 0;
        while (true) {
            auto c = cl.find(',', s);
            auto el = trim_ows(std::string_view(cl).substr(s, c == std::string::npos ? std::string::npos : c - s));
            auto x = parse_decimal(el, 18);
            if (!x || (v && *v != *x)) {
                err = bad(400, "Invalid Content-Length");
                return HeadResult::Error;
            }
            v = x;
            if (c == std::string::npos) break;
            s = c + 1;
        }
        req.has_content_length = true;
        req.content_length = *v;
    }
    if (const Field* e = find_field(req.headers, "expect")) {
        if (iequals(e->value, "100-continue") && req.minor == 1) req.expect_continue = true;
    }
    return HeadResult::Ok;
}

bool Conn::read_body(Request& req, std::size_t limit, Problem& err) {
    auto too_big = [&]() {
        err = make_problem(413, "", "Request content too large");
        err.close = true;
        return false;
    };
    if (!req.chunked) {
        if (!req.has_content_length || req.content_length == 0) return true;
        if (req.content_length > limit) return too_big();
        std::size_t need = std::size_t(req.content_length);
        while (buf_.size() - pos_ < need) {
            if (!fill(kReadTimeoutMs)) {
                err = bad(400, "Request content ended early");
                return false;
            }
        }
        req.body.assign(buf_, pos_, need);
        pos_ += need;
        return true;
    }
    std::string line;
    bool too_long;
    while (true) {
        if (!read_line(line, 4096, kReadTimeoutMs, too_long)) {
            err = bad(400, "Malformed chunked content");
            return false;
        }
        std::size_t i = 0;
        std::uint64_t size = 0;
        while (i < line.size() && is_hex(line[i])) {
            if (i >= 15) {
                err = bad(400, "Chunk size too long");
                return false;
            }
            char c = ascii_lower(line[i]);
            size = size * 16 + std::uint64_t(is_digit(c) ? c - '0' : c - 'a' + 10);
            ++i;
        }
        if (i == 0) {
            err = bad(400, "Malformed chunk size");
            return false;
        }
        auto rest = trim_ows(std::string_view(line).substr(i));
        if (!rest.empty() && rest[0] != ';') {
            err = bad(400, "Malformed chunk size line");
            return false;
        }
        if (size == 0) break;
        if (req.body.size() + size > limit) return too_big();
        std::size_t need = std::size_t(size) + 2;
        while (buf_.size() - pos_ < need) {
            if (!fill(kReadTimeoutMs)) {
                err = bad(400, "Chunked content ended early");
                return false;
            }
        }
        if (buf_[pos_ + size] != '\r' || buf_[pos_ + size + 1] != '\n') {
            err = bad(400, "Chunk data not followed by CRLF");
            return false;
        }
        req.body.append(buf_, pos_, std::size_t(size));
        pos_ += need;
    }
    // trailer section
    std::size_t used = 0;
    while (true) {
        if (!read_line(line, kMaxRequestHeaderBytes, kReadTimeoutMs, too_long)) {
            err = bad(400, "Malformed trailer section");
            return false;
        }
        if (line.empty()) break;
        used += line.size();
        if (used > kMaxRequestHeaderBytes) {
            err = bad(431, "Trailer section too large");
            return false;
        }
    }
    return true;
}

std::string response_head(int status, const Fields& headers, bool chunked, std::size_t body_len, bool close,
                          bool send_length) {
    std::string h = "HTTP/1.1 " + std::to_string(status) + " " + reason_phrase(status) + "\r\n";
    h += "Date: " + http_date(std::time(nullptr)) + "\r\n";
    for (const auto& f : headers) h += f.name + ": " + f.value + "\r\n";
    bool no_body_status = status < 200 || status == 204 || status == 304;
    if (chunked) h += "Transfer-Encoding: chunked\r\n";
    else if (!no_body_status && send_length) h += "Content-Length: " + std::to_string(body_len) + "\r\n";
    if (close) h += "Connection: close\r\n";
    h += "\r\n";
    return h;
}

bool send_response(Conn& c, const Request& req, const Response& r, bool close) {
    bool no_body = r.status == 204 || r.status == 304 || r.status < 200;
    std::string out = response_head(r.status, r.headers, false, r.body.size(), close);
    if (req.method != "HEAD" && !no_body) out += r.body;
    return c.send_all(out);
}

std::string chunk(std::string_view data) {
    if (data.empty()) return {};
    char b[32];
    std::snprintf(b, sizeof b, "%zx\r\n", data.size());
    std::string o = b;
    o.append(data);
    o += "\r\n";
    return o;
}

Response problem_response(const Problem& p) {
    Response r;
    r.status = p.status;
    r.headers.push_back({"Content-Type", "application/problem+json"});
    for (const auto& f : p.extra_headers) r.headers.push_back(f);
    r.body = p.json();
    r.close = p.close;
    return r;
}

}  // namespace mb
