// mbserver: sockets, a thread per connection, keep-alive and pipelining (requests on one
// connection are read and answered one after the other, so in order: MB-PIPE-1), SIGTERM.
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include "batch.hpp"
#include "resources.hpp"
#include "uri.hpp"

using namespace mb;

namespace {

std::atomic<int> g_connections{0};
ServerConfig g_cfg;

void on_signal(int) { g_stopping.store(true); }

Problem limit_problem(std::size_t limit) {
    Problem p = make_problem(413, "MB-STATUS-3", "Batch content too large",
                             "The batch content exceeds max_batch_bytes; no part ran.");
    p.limit = "max_batch_bytes";
    p.value = std::int64_t(limit);
    p.close = true;
    return p;
}

void serve(int fd, std::string default_authority) {
    Conn c(fd, default_authority);
    while (!g_stopping.load()) {
        Request req;
        Problem err;
        HeadResult hr = c.read_head(req, err);
        if (hr == HeadResult::Closed) break;
        if (hr == HeadResult::Error) {
            send_response(c, req, problem_response(err), true);
            c.linger_close();
            break;
        }
        bool is_batch = !req.asterisk && normalize_path(req.path) == kBatchPath;
        std::size_t limit = is_batch ? g_cfg.limits.max_batch_bytes : kMaxRequestBodyBytes;
        if (req.has_content_length && req.content_length > limit) {
            // refused by the declared length (spec 9.1); the connection closes (MB-PIPE-1)
            Problem p = is_batch ? limit_problem(limit) : make_problem(413, "", "Request content too large");
            p.close = true;
            send_response(c, req, problem_response(p), true);
            c.linger_close();
            break;
        }
        bool slot = false;
        if (is_batch && req.method == "POST") {
            int n = ++g_batches_in_flight;
            if (n > int(kMaxBatchesInFlight)) --g_batches_in_flight;
            else slot = true;
        }
        if (req.expect_continue && !c.send_all("HTTP/1.1 100 Continue\r\n\r\n")) {
            if (slot) --g_batches_in_flight;
            break;
        }
        if (!c.read_body(req, limit, err)) {
            if (slot) --g_batches_in_flight;
            if (err.status == 413 && is_batch) err = limit_problem(limit);
            err.close = true;
            send_response(c, req, problem_response(err), true);
            c.linger_close();
            break;
        }
        bool keep;
        if (is_batch) {
            keep = handle_batch_endpoint(c, req, slot, g_cfg);
        } else if (req.asterisk) {
            Response r;
            r.status = 204;
            r.headers.push_back({"Allow", "GET, HEAD, POST, PUT, DELETE, OPTIONS"});
            keep = send_response(c, req, r, !req.keep_alive) && req.keep_alive;
        } else {
            SubRequest sr;
            sr.method = req.method;
            sr.target = req.target;
            sr.path = normalize_path(req.path);
            sr.query = req.query;
            sr.has_query = req.has_query;
            sr.authority = req.authority;
            sr.headers = req.headers;
            sr.body = std::move(req.body);
            Response r = route(sr, nullptr, nullptr);
            bool close = !req.keep_alive || r.close;
            keep = send_response(c, req, r, close) && !close;
        }
        if (slot) --g_batches_in_flight;
        if (!keep) break;
    }
    ::close(fd);
    --g_connections;
}

[[noreturn]] void usage() {
    std::fprintf(stderr, "usage: mbserver [--port N] [--host H] [--batch-timeout-ms MS]\n");
    std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
    std::string host = "127.0.0.1";
    long port = 18391;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (i + 1 >= argc) usage();
        std::string v = argv[++i];
        auto num = parse_decimal(v, 9);
        if (a == "--port" && num && *num <= 65535) port = long(*num);
        else if (a == "--host") host = v;
        else if (a == "--batch-timeout-ms" && num && *num >= 1) g_cfg.batch_timeout_ms = int(*num);
        else usage();
    }
    init_resources();
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGINT, &sa, nullptr);
    signal(SIGPIPE, SIG_IGN);

    struct addrinfo hints {}, *res = nullptr;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res) != 0 || !res) {
        std::fprintf(stderr, "mbserver: cannot resolve %s\n", host.c_str());
        return 1;
    }
    int ls = socket(res->ai_family, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (ls < 0 || bind(ls, res->ai_addr, res->ai_addrlen) != 0 || listen(ls, 128) != 0) {
        std::fprintf(stderr, "mbserver: cannot listen on %s:%ld: %s\n", host.c_str(), port, std::strerror(errno));
        return 1;
    }
    freeaddrinfo(res);
    struct sockaddr_storage ss {};
    socklen_t sl = sizeof ss;
    getsockname(ls, reinterpret_cast<sockaddr*>(&ss), &sl);
    int actual = ss.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port)
                                          : ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
    std::string shown = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    std::string authority = shown + ":" + std::to_string(actual);
    std::printf("mbserver listening on http://%s\n", authority.c_str());
    std::fflush(stdout);

    while (!g_stopping.load()) {
        struct pollfd pfd {ls, POLLIN, 0};
        int r = poll(&pfd, 1, 100);
        if (r <= 0) continue;
        int fd = accept(ls, nullptr, nullptr);
        if (fd < 0) continue;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        struct timeval tv {30, 0};
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        if (g_connections.load() >= int(kMaxConnections)) {
            // The length is counted from the body itself, never written by hand.
            static const std::string body =
                "{\"type\":\"https://mixbatch.dev/problems/unavailable\",\"title\":\"Too busy\",\"status\":503}";
            static const std::string busy =
                "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/problem+json\r\nRetry-After: 1\r\n"
                "Connection: close\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
            (void)!::send(fd, busy.data(), busy.size(), MSG_NOSIGNAL);
            ::close(fd);
            continue;
        }
        ++g_connections;
        try {
            std::thread(serve, fd, authority).detach();
        } catch (...) {
            --g_connections;
            ::close(fd);
        }
    }
    ::close(ls);
    // let running batches write their abort parts, then leave
    for (int i = 0; i < 6 && g_connections.load() > 0; ++i) usleep(100 * 1000);
    std::fflush(stdout);
    _exit(0);
}
