#include "resources.hpp"

#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "conditional.hpp"
#include "limits.hpp"
#include "media.hpp"
#include "problem.hpp"

namespace mb {

std::atomic<bool> g_stopping{false};

namespace {

struct Member {
    std::string id;
    std::string content_type;
    std::string body;
    std::string etag;
    std::time_t last_modified;
};

std::mutex g_mu;
std::vector<Member> g_sandbox;  // creation order
std::uint64_t g_version = 0;
std::time_t g_start = 0;
std::vector<Member> g_books;

Response plain(int status, std::string body, const char* ct = "text/plain; charset=utf-8") {
    Response r;
    r.status = status;
    if (status != 204 && status != 304) {
        r.headers.push_back({"Content-Type", ct});
        r.body = std::move(body);
    }
    return r;
}

Response problem(int status, std::string title, std::string req = "") {
    Problem p = make_problem(status, std::move(req), std::move(title));
    return problem_response(p);
}

// 405 for a known method the resource does not support, 501 for one the server does not know.
Response refuse_method(const std::string& method, const char* allow) {
    Response r = is_known_method(method) ? problem(405, "Method not allowed") : problem(501, "Method not implemented");
    r.headers.push_back({"Allow", allow});
    return r;
}

bool valid_member_id(std::string_view id) {
    if (id.empty() || id.size() > 64) return false;
    for (unsigned char c : id)
        if (!(is_alpha(c) || is_digit(c) || c == '-' || c == '_')) return false;
    return true;
}

std::string new_etag(const std::string& id) { return "\"" + id + "-" + std::to_string(++g_version) + "\""; }

Response with_member_validators(Response r, const Member& m) {
    r.headers.push_back({"ETag", m.etag});
    r.headers.push_back({"Last-Modified", http_date(m.last_modified)});
    return r;
}

Response member_get(const SubRequest& r, const Member& m) {
    Validators v{true, m.etag, m.last_modified};
    int pre = evaluate_preconditions(r.method, r.headers, v);
    if (pre == 304) return with_member_validators(plain(304, ""), m);
    if (pre == 412) return problem(412, "Precondition failed");
    Response resp;
    resp.status = 200;
    resp.headers.push_back({"Content-Type", m.content_type});
    resp = with_member_validators(std::move(resp), m);
    resp.body = m.body;
    return resp;
}

// ---- collections: listing (application/json) or retrieval (multipart/mixed) ----
Response collection(const SubRequest& r, const std::string& path, const std::vector<Member>& members) {
    if (r.method != "GET" && r.method != "HEAD") return refuse_method(r.method, "GET, HEAD");
    bool multipart = false;
    const Field* acc = find_field(r.headers, "accept");
    if (acc) {
        AcceptList a = parse_accept(combined(r.headers, "accept"));
        int spec_mp = 0;
        int q_mp = accept_quality(a, "multipart", "mixed", &spec_mp);
        int q_js = accept_quality(a, "application", "json");
        multipart = q_mp > 0 && (q_mp > q_js || (q_mp == q_js && spec_mp == 3));
    }
    if (!multipart) {
        std::string body = "{\"members\":[";
        for (std::size_t i = 0; i < members.size(); ++i) {
            if (i) body += ",";
            body += json_str(path + "/" + members[i].id);
        }
        body += "]}";
        Validators v{true, "\"l" + hex64(fnv1a(body)) + "\"", std::nullopt};
        int pre = evaluate_preconditions(r.method, r.headers, v);
        Response resp = pre == 304 ? plain(304, "") : pre == 412 ? problem(412, "Precondition failed")
                                                                    : plain(200, body, "application/json");
        if (pre != 412) resp.headers.push_back({"ETag", v.etag});
        resp.headers.push_back({"Vary", "Accept"});
        return resp;
    }
    // MB-METHOD-3: a collection retrieval has no content
    if (!r.body.empty()) {
        Response resp = problem(400, "A GET collection retrieval has no content", "MB-METHOD-3");
        resp.headers.push_back({"Vary", "Accept"});
        return resp;
    }
    // aggregate validators: weak, since the boundary is random (MB-METHOD-7)
    std::uint64_t h = fnv1a("collection:" + path);
    std::time_t latest = 0;
    for (const auto& m : members) {
        h = fnv1a(m.id + "\n" + m.etag + "\n" + m.content_type + "\n" + std::to_string(m.last_modified) + "\n", h);
        latest = std::max(latest, m.last_modified);
    }
    std::string etag = "W/\"c" + hex64(h) + "\"";
    Validators v{true, etag, members.empty() ? std::nullopt : std::optional<std::time_t>(latest)};
    int pre = evaluate_preconditions(r.method, r.headers, v);
    Response resp;
    if (pre == 412) {
        resp = problem(412, "Precondition failed");
    } else if (pre == 304) {
        resp = plain(304, "");
    } else if (members.empty()) {
        resp = plain(204, "");  // MB-STATUS-11
    } else {
        std::string b = random_token(32);
        resp.status = 200;
        resp.headers.push_back({"Content-Type", "multipart/mixed; boundary=" + b});
        std::string out;
        for (const auto& m : members) {
            out += "--" + b + "\r\n";
            out += "Http-Status-Code: 200\r\n";
            out += "Content-Id: <" + path + "/" + m.id + ">\r\n";
            out += "Content-Type: " + m.content_type + "\r\n";
            out += "ETag: " + m.etag + "\r\n";
            out += "Last-Modified: " + http_date(m.last_modified) + "\r\n";
            out += "Content-Length: " + std::to_string(m.body.size()) + "\r\n\r\n";
            out += m.body;
            out += "\r\n";
        }
        out += "--" + b + "--\r\n";
        resp.body = std::move(out);
    }
    if (pre != 412) {
        resp.headers.push_back({"ETag", etag});
        if (!members.empty()) resp.headers.push_back({"Last-Modified", http_date(latest)});
    }
    resp.headers.push_back({"Vary", "Accept"});
    return resp;
}

// ---- sandbox (MB-TEST-3, MB-TEST-4) ----
Response sandbox(const SubRequest& r, std::string_view rest) {
    std::lock_guard<std::mutex> lk(g_mu);
    auto find = [&](std::string_view id) -> Member* {
        for (auto& m : g_sandbox)
            if (m.id == id) return &m;
        return nullptr;
    };
    std::string ct = "application/octet-stream";
    if (const Field* f = find_field(r.headers, "content-type")) ct = f->value;
    if (rest.empty()) {
        if (r.method == "POST") {
            if (r.body.size() > kMaxSandboxMemberBytes) return problem(413, "Member too large");
            if (g_sandbox.size() >= kMaxSandboxMembers) return problem(507, "Sandbox full");
            // preconditions compare with the listing a GET would select (spec 7.6): the same
            // request as a GET without its conditional fields gives that listing's tag
            SubRequest get = r;
            get.method = "GET";
            get.body.clear();
            std::erase_if(get.headers, [](const Field& f) {
                return iequals(f.name, "if-match") || iequals(f.name, "if-none-match") ||
                       iequals(f.name, "if-modified-since") || iequals(f.name, "if-unmodified-since");
            });
            Response selected = collection(get, kResSandbox, g_sandbox);
            std::string tag;
            for (const auto& f : selected.headers)
                if (iequals(f.name, "etag")) tag = f.value;
            if (evaluate_preconditions(r.method, r.headers, Validators{true, tag, std::nullopt}))
                return problem(412, "Precondition failed");
            std::string id;
            do {
                id = "m" + random_token(10);
                for (auto& c : id)
                    if (c == '-' || c == '_') c = 'x';
            } while (find(id));
            Member m{id, ct, r.body, new_etag(id), std::time(nullptr)};
            g_sandbox.push_back(m);
            Response resp = plain(201, "", "application/json");
            resp.body = m.body;
            resp.headers.clear();
            resp.headers.push_back({"Location", std::string(kResSandbox) + "/" + id});
            resp.headers.push_back({"Content-Type", m.content_type});
            resp = with_member_validators(std::move(resp), m);
            return resp;
        }
        if (r.method == "OPTIONS") {
            Response resp = plain(204, "");
            resp.headers.push_back({"Allow", "GET, HEAD, POST, OPTIONS"});
            return resp;
        }
        if (r.method != "GET" && r.method != "HEAD") return refuse_method(r.method, "GET, HEAD, POST, OPTIONS");
        return collection(r, kResSandbox, g_sandbox);
    }
    if (rest.find('/') != std::string_view::npos || !valid_member_id(rest)) return problem(404, "No such member");
    Member* m = find(rest);
    if (r.method == "GET" || r.method == "HEAD") {
        if (!m) return problem(404, "No such member");
        return member_get(r, *m);
    }
    if (r.method == "PUT") {
        Validators v;
        if (m) v = Validators{true, m->etag, m->last_modified};
        int pre = evaluate_preconditions(r.method, r.headers, v);
        if (pre) return problem(412, "Precondition failed");
        if (r.body.size() > kMaxSandboxMemberBytes) return problem(413, "Member too large");
        if (m) {
            m->content_type = ct;
            m->body = r.body;
            m->etag = new_etag(m->id);
            m->last_modified = std::time(nullptr);
            return with_member_validators(plain(204, ""), *m);
        }
        if (g_sandbox.size() >= kMaxSandboxMembers) return problem(507, "Sandbox full");
        Member nm{std::string(rest), ct, r.body, new_etag(std::string(rest)), std::time(nullptr)};
        g_sandbox.push_back(nm);
        Response resp = plain(201, "");
        resp.headers.clear();
        resp.headers.push_back({"Location", std::string(kResSandbox) + "/" + nm.id});
        resp.headers.push_back({"Content-Type", nm.content_type});
        resp.body = nm.body;
        return with_member_validators(std::move(resp), nm);
    }
    if (r.method == "DELETE") {
        if (!m) return problem(404, "No such member");
        Validators v{true, m->etag, m->last_modified};
        if (evaluate_preconditions(r.method, r.headers, v)) return problem(412, "Precondition failed");
        for (auto it = g_sandbox.begin(); it != g_sandbox.end(); ++it)
            if (it->id == m->id) {
                g_sandbox.erase(it);
                break;
            }
        return plain(204, "");
    }
    if (r.method == "OPTIONS") {
        Response resp = plain(204, "");
        resp.headers.push_back({"Allow", "GET, HEAD, PUT, DELETE, OPTIONS"});
        return resp;
    }
    return refuse_method(r.method, "GET, HEAD, PUT, DELETE, OPTIONS");
}

Response echo(const SubRequest& r) {
    static const char* skip[] = {"host", "content-length", "transfer-encoding", "connection", "keep-alive",
                                 "proxy-connection", "te", "upgrade", "trailer", "expect"};
    std::string o = "{\"method\":" + json_latin1(r.method) + ",\"target\":" + json_latin1(r.target) +
                    ",\"authority\":" + json_latin1(r.authority) + ",\"headers\":[";
    bool first = true;
    for (const auto& f : r.headers) {
        bool s = false;
        for (auto* k : skip) s |= iequals(f.name, k);
        if (s) continue;
        if (!first) o += ",";
        first = false;
        o += "[" + json_latin1(f.name) + "," + json_latin1(f.value) + "]";
    }
    o += "],";
    if (valid_utf8(r.body)) o += "\"body\":" + json_str(r.body);
    else o += "\"body_base64\":" + json_str(base64(r.body));
    o += "}";
    return plain(200, o, "application/json");
}

std::optional<std::uint64_t> path_number(std::string_view rest) { return parse_decimal(rest, 12); }

Response delay(const SubRequest& r, std::string_view rest, const Clock::time_point* deadline, bool* interrupted) {
    if (r.method != "GET" && r.method != "HEAD") return refuse_method(r.method, "GET, HEAD");
    auto ms = path_number(rest);
    if (!ms || *ms > kDelayMaxMs) return problem(400, "Delay out of range");
    auto until = Clock::now() + std::chrono::milliseconds(*ms);
    while (true) {
        auto now = Clock::now();
        if (now >= until) break;
        if ((deadline && now >= *deadline) || g_stopping.load()) {
            if (interrupted) *interrupted = true;
            return problem(503, "Stopped");
        }
        auto step = std::min<Clock::duration>(until - now, std::chrono::milliseconds(10));
        std::this_thread::sleep_for(step);
    }
    return plain(200, "delayed " + std::to_string(*ms) + " ms\n");
}

Response random_res(const SubRequest& r, std::string_view rest) {
    if (r.method != "GET" && r.method != "HEAD") return refuse_method(r.method, "GET, HEAD");
    auto n = path_number(rest);
    if (!n || *n > kRandomMaxN) return problem(400, "Count out of range");
    std::string body(std::size_t(*n), '\0');
    std::uint64_t s[2];
    random_bytes(reinterpret_cast<char*>(s), sizeof s);
    s[0] |= 1;
    for (std::size_t i = 0; i < body.size(); ++i) {
        std::uint64_t x = s[0], y = s[1];
        s[0] = y;
        x ^= x << 23;
        s[1] = x ^ y ^ (x >> 17) ^ (y >> 26);
        body[i] = char((s[1] + y) >> 32);
    }
    return plain(200, std::move(body), "application/octet-stream");
}

Response status_res(const SubRequest& r, std::string_view rest) {
    if (r.method != "GET" && r.method != "HEAD") return refuse_method(r.method, "GET, HEAD");
    if (rest.size() != 3 || !is_digit(rest[0]) || !is_digit(rest[1]) || !is_digit(rest[2]))
        return problem(400, "Not a status code");
    int code = (rest[0] - '0') * 100 + (rest[1] - '0') * 10 + (rest[2] - '0');
    if (code < 200 || code > 599) return problem(400, "Status out of range");
    return plain(code, "status " + std::to_string(code) + "\n");
}

}  // namespace

bool is_known_method(const std::string& m) {
    static const char* known[] = {"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"};
    for (auto* k : known)
        if (m == k) return true;
    return false;
}

void init_resources() {
    g_start = std::time(nullptr);
    const char* titles[] = {"Weaving the Web", "Architectural Styles", "RESTful Web Services"};
    for (int i = 0; i < 3; ++i) {
        std::string id = std::to_string(i + 1);
        std::string body = "{\"id\":" + json_str(id) + ",\"title\":" + json_str(titles[i]) + "}";
        g_books.push_back(Member{id, "application/json", body, "\"book-" + id + "-v1\"", g_start - 3600 * (3 - i)});
    }
}

Response route(const SubRequest& r, const Clock::time_point* deadline, bool* interrupted) {
    const std::string& p = r.path;
    auto under = [&](const char* prefix, std::string_view& rest) {
        std::string pre = std::string(prefix) + "/";
        if (p.rfind(pre, 0) != 0) return false;
        rest = std::string_view(p).substr(pre.size());
        return true;
    };
    std::string_view rest;
    if (p == kResOk || p == kResEtag) {
        if (r.method == "OPTIONS") {
            Response resp = plain(204, "");
            resp.headers.push_back({"Allow", "GET, HEAD, OPTIONS"});
            return resp;
        }
        if (r.method != "GET" && r.method != "HEAD") return refuse_method(r.method, "GET, HEAD, OPTIONS");
        if (p == kResOk) {
            // a current representation without validators: If-None-Match: * and If-Match apply
            int pre = evaluate_preconditions(r.method, r.headers, Validators{true, "", std::nullopt});
            if (pre == 304) return plain(304, "");
            if (pre == 412) return problem(412, "Precondition failed");
            return plain(200, "ok\n");
        }
        Member m{"etag", "text/plain; charset=utf-8", "etag resource\n", "\"etag-v1\"", g_start};
        return member_get(r, m);
    }
    if (p == kResEcho) {
        if (r.method == "CONNECT" || r.method == "TRACE") return refuse_method(r.method, "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS");
        return echo(r);
    }
    if (under("/res/delay", rest)) return delay(r, rest, deadline, interrupted);
    if (under("/res/random", rest)) return random_res(r, rest);
    if (under("/res/status", rest)) return status_res(r, rest);
    if (p == kResSandbox) return sandbox(r, "");
    if (under(kResSandbox, rest)) return sandbox(r, rest);
    if (p == kResBooks) return collection(r, kResBooks, g_books);
    if (under(kResBooks, rest)) {
        if (r.method != "GET" && r.method != "HEAD") return refuse_method(r.method, "GET, HEAD");
        for (const auto& m : g_books)
            if (m.id == rest) return member_get(r, m);
        return problem(404, "Not found");
    }
    if (p == kResEmpty) {
        static const std::vector<Member> none;
        return collection(r, kResEmpty, none);
    }
    if (!is_known_method(r.method)) return problem(501, "Method not implemented");
    return problem(404, "Not found");
}

}  // namespace mb
