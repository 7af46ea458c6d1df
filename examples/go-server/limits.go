// Limits a batch must stay within (spec section 9.1). Each has a default with the reason for
// it; a batch over any of them is refused with 413, or 431 for a part header section, before
// any part runs (MB-STATUS-3). The values are published in the capabilities document
// (MB-LIMIT-1, MB-LIMIT-2).
package main

// Limits holds every bound the batch endpoint enforces.
type Limits struct {
	// MaxParts: 2,500 parts is a quarter of the thesis' largest batch; bigger jobs split.
	MaxParts int
	// MaxBatchBytes: 32 MiB of content is held in memory while the envelope is validated.
	MaxBatchBytes int64
	// MaxPartBytes: 8 MiB per part body; larger uploads belong in standalone requests.
	MaxPartBytes int64
	// MaxPartHeaderBytes: 12 KiB per part header section, above the 8 KiB most servers take
	// for a whole request head, so any request that works alone fits in a part.
	MaxPartHeaderBytes int
	// MaxPartFields: 128 field lines per part header section (MB-LIMIT-5); a request with
	// more field lines than that is refused by common HTTP servers when sent alone too.
	MaxPartFields int
}

// DefaultLimits are the limits the server starts with.
var DefaultLimits = Limits{
	MaxParts:           2500,
	MaxBatchBytes:      32 << 20,
	MaxPartBytes:       8 << 20,
	MaxPartHeaderBytes: 12 << 10,
	MaxPartFields:      128,
}

// Limit names as the capabilities document and problem documents spell them (MB-LIMIT-4).
const (
	LimitMaxParts           = "max_parts"
	LimitMaxBatchBytes      = "max_batch_bytes"
	LimitMaxPartBytes       = "max_part_bytes"
	LimitMaxPartHeaderBytes = "max_part_header_bytes"
	LimitMaxPartFields      = "max_part_fields"
)
