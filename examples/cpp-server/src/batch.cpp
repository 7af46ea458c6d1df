#include "batch.hpp"

#include "content_coding.hpp"
#include "envelope.hpp"
#include "media.hpp"
#include "resources.hpp"
#include "target.hpp"
#include "uri.hpp"

namespace mb {

std::atomic<int> g_batches_in_flight{0};

bool batch_boundary(const Fields& headers, std::string& boundary, Problem& err) {
    std::size_t n = count_field(headers, "content-type");
    if (n == 0) {
        err = make_problem(415, "MB-WIRE-2", "Batch request without Content-Type",
                           "A batch request carries multipart/mixed content.");
        err.extra_headers.push_back({"Accept-Post", "multipart/mixed"});
        return false;
    }
    if (n > 1) {
        err = make_problem(400, "MB-WIRE-4", "More than one Content-Type field line",
                           "A batch request names one boundary in one Content-Type field.");
        return false;
    }
    MediaType mt;
    if (!parse_media_type(find_field(headers, "content-type")->value, mt) || mt.type != "multipart" ||
        mt.subtype != "mixed") {
        err = make_problem(415, "MB-WIRE-2", "Batch content is not multipart/mixed",
                           "A batch request carries multipart/mixed content.");
        err.extra_headers.push_back({"Accept-Post", "multipart/mixed"});
        return false;
    }
    if (!mt.params_ok) {
        err = make_problem(400, "MB-WIRE-4", "Malformed Content-Type parameters",
                           "The Content-Type parameters break RFC 9110 section 5.6.6.");
        return false;
    }
    int count = 0;
    for (auto& [name, value] : mt.params) {
        if (name != "boundary") continue;
        ++count;
        boundary = value;
    }
    if (count == 0) {
        err = make_problem(400, "MB-WIRE-4", "Missing boundary parameter");
        return false;
    }
    if (count > 1) {
        err = make_problem(400, "MB-WIRE-4", "Repeated boundary parameter");
        return false;
    }
    if (!valid_boundary(boundary)) {
        err = make_problem(400, "MB-WIRE-4", "Invalid boundary",
                           "A boundary is 1 to 70 bchars and does not end in a space.");
        return false;
    }
    return true;
}

bool choose_representation(const Fields& headers, Rep& rep, Problem& err) {
    rep = Rep::Multipart;
    if (count_field(headers, "accept") == 0) return true;
    AcceptList a = parse_accept(combined(headers, "accept"));
    if (!a.any_valid) return true;  // empty, or no element that is a media-range: absent
    int qm = accept_quality(a, "multipart", "mixed");
    int qj = accept_quality(a, "application", "vnd.mixbatch.multistatus+json");
    int qx = accept_quality(a, "application", "xml");
    if (qm > 0 && qm >= qj && qm >= qx) return true;
    if (qj > 0 && qj >= qx) {
        rep = Rep::Json;
        return true;
    }
    if (qx > 0) {
        rep = Rep::Xml;
        return true;
    }
    err = make_problem(406, "MB-STATUS-9", "No acceptable batch representation",
                       "Accept admits none of multipart/mixed, application/vnd.mixbatch.multistatus+json, "
                       "application/xml.");
    return false;
}

namespace {

bool refuse(Conn& c, const Request& req, const Problem& p) {
    Response r = problem_response(p);
    bool close = p.close || !req.keep_alive;
    bool ok = send_response(c, req, r, close);
    if (close && p.close) c.linger_close();
    return ok && !close;
}

bool batch_mode_ok(const Fields& headers, Problem& err) {
    if (count_field(headers, "batch-mode") == 0) return true;
    std::string v = combined(headers, "batch-mode");
    std::string first;
    bool any = false;
    std::size_t s = 0;
    while (true) {
        auto c = v.find(',', s);
        auto el = trim_ows(std::string_view(v).substr(s, c == std::string::npos ? std::string::npos : c - s));
        if (!el.empty() && !any) {
            any = true;
            first = std::string(el);
        }
        if (c == std::string::npos) break;
        s = c + 1;
    }
    // this server implements no mode: every listed mode, and an empty list, is refused
    const char* req = first == "atomic" ? "MB-PROC-7" : (any ? "MB-PROC-12" : "MB-PROC-12");
    err = make_problem(501, req, "Batch-Mode not implemented",
                       any ? "This server implements no Batch-Mode; it was asked for '" + first + "'."
                           : "Batch-Mode names no mode.");
    return false;
}

const char* kDropped[] = {"connection", "keep-alive", "proxy-connection", "te", "transfer-encoding",
                          "upgrade", "trailer", "content-length"};

}  // namespace

bool handle_batch_endpoint(Conn& c, Request& req, bool holds_slot, const ServerConfig& cfg) {
    if (req.method == "OPTIONS") {
        Response r;
        r.headers = {{"Content-Type", "application/vnd.mixbatch.capabilities+json"},
                     {"Accept-Post", "multipart/mixed"},
                     {"Allow", "POST, OPTIONS"}};
        r.body = capabilities_json(cfg);
        bool close = !req.keep_alive;
        return send_response(c, req, r, close) && !close;
    }
    if (req.method != "POST") {
        Problem p;
        if (req.method == "GET" && !req.body.empty()) {
            p = make_problem(400, "MB-METHOD-3", "GET with content", "A batch that has content is a POST.");
        } else if (is_known_method(req.method)) {
            p = make_problem(405, "MB-METHOD-2", "Method not allowed on the batch endpoint",
                             "The batch endpoint allows POST and OPTIONS.");
        } else {
            p = make_problem(501, "MB-METHOD-2", "Method not implemented",
                             "The batch endpoint allows POST and OPTIONS.");
        }
        p.extra_headers.push_back({"Allow", "POST, OPTIONS"});
        return refuse(c, req, p);
    }
    if (!holds_slot) {
        Problem p = make_problem(503, "MB-LIMIT-6", "Too many batches in flight",
                                 "The server holds as many batches as its budget allows; no part ran.");
        p.limit = "max_batches_in_flight";
        p.value = std::int64_t(kMaxBatchesInFlight);
        p.extra_headers.push_back({"Retry-After", std::to_string(kRetryAfterSeconds)});
        return refuse(c, req, p);
    }
    Problem err;
    if (!batch_mode_ok(req.headers, err)) return refuse(c, req, err);
    if (!decode_content(req.headers, req.body, cfg.limits.max_batch_bytes, err)) return refuse(c, req, err);
    std::string boundary;
    if (!batch_boundary(req.headers, boundary, err)) return refuse(c, req, err);
    std::vector<RequestPart> parts;
    std::string_view content = req.body;
    if (!parse_envelope(content, boundary, cfg.limits, parts, err)) return refuse(c, req, err);
    BatchContext ctx;
    ctx.scheme = "http";
    ctx.authority = req.authority;
    ctx.target = req.target;
    ctx.endpoint_path = kBatchPath;
    std::vector<std::string> resolved;
    if (!check_parts(ctx, parts, resolved, err)) return refuse(c, req, err);
    Rep rep;
    if (!choose_representation(req.headers, rep, err)) return refuse(c, req, err);

    ErrorPolicy policy = parse_batch_on_error(combined(req.headers, "prefer"));
    auto writer = make_writer(rep);
    bool chunked = req.minor == 1;
    bool close = !req.keep_alive || !chunked;
    Fields top = {{"Content-Type", writer->content_type()}, {"Vary", "Accept"}, {"Cache-Control", "no-transform"}};
    if (policy == ErrorPolicy::Stop) top.push_back({"Preference-Applied", "batch-on-error=stop"});
    if (policy == ErrorPolicy::Continue) top.push_back({"Preference-Applied", "batch-on-error=continue"});
    if (chunked && rep == Rep::Multipart) top.push_back({"Trailer", "Batch-Summary"});
    std::string head = response_head(writer->status(), top, chunked, 0, close, false);
    auto emit = [&](const std::string& data) {
        if (data.empty()) return true;
        return c.send_all(chunked ? chunk(data) : data);
    };
    bool alive = c.send_all(head) && emit(writer->begin());

    auto deadline = req.started + std::chrono::milliseconds(cfg.batch_timeout_ms);
    Summary sum;
    bool failed = false, aborted = false;
    const Fields* auth = nullptr;
    (void)auth;
    for (std::size_t i = 0; i < parts.size() && alive; ++i) {
        const RequestPart& p = parts[i];
        PartResult pr;
        pr.index = i;
        pr.content_id = p.content_id_value;
        pr.href = resolved[i];
        if (g_stopping.load() || Clock::now() >= deadline) {
            pr = abort_part(i, 503, g_stopping.load() ? "The server is shutting down; parts from part_index on did not run."
                                                      : "The batch ran out of its time budget; parts from part_index on did not run.");
            aborted = true;
        } else if (policy == ErrorPolicy::Stop && failed) {
            pr.kind = PartResult::Skipped;
            pr.outcome = "skipped";
        } else {
            SubRequest sr;
            sr.method = p.method;
            sr.target = resolved[i];
            auto q = sr.target.find('?');
            sr.path = normalize_path(sr.target.substr(0, q));
            if (q != std::string::npos) {
                sr.has_query = true;
                sr.query = sr.target.substr(q + 1);
            }
            sr.authority = req.authority;
            for (const auto& f : p.fields) sr.headers.push_back({f.name, f.value});
            // MB-SUB-5: credentials inherited when the part has none of its own
            for (const char* cred : {"authorization", "cookie"}) {
                if (find_field(sr.headers, cred)) continue;
                for (const auto& f : req.headers)
                    if (iequals(f.name, cred)) sr.headers.push_back(f);
            }
            sr.body.assign(content.substr(p.body_offset, p.body_length));
            bool interrupted = false;
            Response resp = route(sr, &deadline, &interrupted);
            if (interrupted) {
                pr = abort_part(i, 503,
                                (g_stopping.load() ? "The server is shutting down; part "
                                                   : "The batch ran out of its time budget while part ") +
                                    std::to_string(i) + " ran; it was not answered.");
                aborted = true;
            } else {
                pr.status = resp.status;
                for (auto& f : resp.headers) {
                    bool drop = false;
                    for (auto* d : kDropped) drop |= iequals(f.name, d);
                    if (!drop) pr.headers.push_back(f);
                }
                if (p.method != "HEAD" && resp.status != 204 && resp.status != 304) pr.body = std::move(resp.body);
                if (resp.status >= 400) failed = true;
            }
        }
        std::string out;
        if (!writer->part(pr, out)) {
            pr = abort_part(i, 500, "A response part would have contained the response boundary.");
            aborted = true;
            writer->part(pr, out);
        }
        if (!aborted) sum.count(pr);
        alive = emit(out);
        if (aborted) break;
    }
    if (!alive) return false;
    std::string tail = writer->end(sum);
    if (chunked) {
        std::string t = chunk(tail) + "0\r\n";
        if (rep == Rep::Multipart && !aborted)
            t += "Batch-Summary: ok=" + std::to_string(sum.ok) + ", failed=" + std::to_string(sum.failed) +
                 ", skipped=" + std::to_string(sum.skipped) + ", rolled-back=" + std::to_string(sum.rolled_back) +
                 "\r\n";
        t += "\r\n";
        alive = c.send_all(t);
    } else {
        alive = c.send_all(tail);
    }
    return alive && !close;
}

}  // namespace mb
