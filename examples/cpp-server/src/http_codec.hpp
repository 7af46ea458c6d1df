// HTTP/1.1 message codec (RFC 9112): request heads, Content-Length and chunked bodies,
// response heads and chunked response bodies, over one blocking socket.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "problem.hpp"
#include "util.hpp"

namespace mb {

using Clock = std::chrono::steady_clock;

struct Request {
    std::string method, target, path, query;  // target is origin-form
    bool has_query = false;
    bool asterisk = false;
    int minor = 1;
    Fields headers;
    std::string authority;
    bool chunked = false;
    std::uint64_t content_length = 0;
    bool has_content_length = false;
    std::string body;
    bool keep_alive = true;
    bool expect_continue = false;
    Clock::time_point started;
};

struct Response {
    int status = 200;
    Fields headers;
    std::string body;
    bool close = false;
};

enum class HeadResult { Ok, Closed, Error };

class Conn {
  public:
    explicit Conn(int fd, std::string default_authority) : fd_(fd), default_authority_(std::move(default_authority)) {}
    HeadResult read_head(Request& req, Problem& err);
    // Reads the body announced by the head, refusing past limit (413, close).
    bool read_body(Request& req, std::size_t limit, Problem& err);
    bool send_all(std::string_view data);
    // After a refusal that closes: stop writing, read and drop what the peer still sends, briefly.
    void linger_close();
    int fd() const { return fd_; }

  private:
    bool fill(int timeout_ms);  // reads more into buf_; false on EOF/error/timeout
    bool read_line(std::string& line, std::size_t max, int timeout_ms, bool& too_long);
    int fd_;
    std::string default_authority_;
    std::string buf_;
    std::size_t pos_ = 0;
};

// Serialises a response head. chunked: Transfer-Encoding: chunked; else Content-Length from body_len
// (left out for 1xx/204/304). Adds Date and, when close, Connection: close.
std::string response_head(int status, const Fields& headers, bool chunked, std::size_t body_len, bool close,
                          bool send_length = true);
// Sends a complete response (HEAD: head only). Returns false when the socket failed.
bool send_response(Conn& c, const Request& req, const Response& r, bool close);
std::string chunk(std::string_view data);
Response problem_response(const Problem& p);

}  // namespace mb
