// The three representations of a batch result (spec section 6): multipart/mixed (200),
// the JSON multistatus (207, MB-MULTI-4/7) and the RFC 4918 XML multistatus (207, MB-MULTI-3/6).
#pragma once
#include <memory>
#include <string>

#include "problem.hpp"
#include "util.hpp"

namespace mb {

enum class Rep { Multipart, Json, Xml };

struct PartResult {
    enum Kind { Ran, Skipped, Aborted } kind = Ran;
    std::size_t index = 0;
    int status = 0;
    Fields headers;            // sub-response fields as MB-RESP-4 carries them
    std::string body;
    std::string content_id;    // the request part's Content-Id value, e.g. "<books/1>"
    std::string href;          // resolved origin-form target
    std::string outcome;       // "", "skipped", "rolled-back", "aborted"
};

struct Summary {
    std::size_t ok = 0, failed = 0, skipped = 0, rolled_back = 0;
    void count(const PartResult& p);
};

class BatchWriter {
  public:
    virtual ~BatchWriter() = default;
    virtual int status() const = 0;
    virtual std::string content_type() const = 0;
    virtual std::string begin() = 0;
    // Serialises one part; false when the part cannot be written (boundary collision).
    virtual bool part(const PartResult& p, std::string& out) = 0;
    virtual std::string end(const Summary& s) = 0;
};

std::unique_ptr<BatchWriter> make_writer(Rep rep);
PartResult abort_part(std::size_t first_unanswered, int status, const std::string& why);
const char* rep_media_type(Rep rep);

}  // namespace mb
