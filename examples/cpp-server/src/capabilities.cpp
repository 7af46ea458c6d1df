// The capabilities document answered to OPTIONS (MB-LIMIT-2, capabilities.schema.json).
#include "batch.hpp"
#include "resources.hpp"

namespace mb {

std::string capabilities_json(const ServerConfig& cfg) {
    const Limits& l = cfg.limits;
    std::string o = "{\"spec_version\":\"draft-02\",\"endpoint\":\"";
    o += kBatchPath;
    o += "\",\"limits\":{";
    o += "\"max_parts\":" + std::to_string(l.max_parts);
    o += ",\"max_batch_bytes\":" + std::to_string(l.max_batch_bytes);
    o += ",\"max_part_bytes\":" + std::to_string(l.max_part_bytes);
    o += ",\"max_part_header_bytes\":" + std::to_string(l.max_part_header_bytes);
    o += ",\"max_part_fields\":" + std::to_string(l.max_part_fields);
    o += ",\"max_batches_in_flight\":" + std::to_string(kMaxBatchesInFlight);
    o += "},\"profiles\":[\"core\",\"pipelining\",\"limits\",\"error-policy\",\"json\",\"conditional\","
         "\"collection-get\",\"xml\"]";
    o += ",\"representations\":[\"multipart/mixed\",\"application/vnd.mixbatch.multistatus+json\","
         "\"application/xml\"]";
    o += ",\"preferences\":[\"batch-on-error=continue\",\"batch-on-error=stop\"]}";
    return o;
}

}  // namespace mb
