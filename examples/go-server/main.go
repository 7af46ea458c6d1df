// mbserver: an independent mixbatch batch server, written from the specification alone, on
// net/http and the standard library. It listens on loopback only and prints its URL.
//
// This file is the I/O adapter: flags, the listener and the routing between the batch
// endpoint and the resources. The envelope parser (envelope.go) does no I/O.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"time"
)

const batchPath = "/bulk"

// offeredProfiles are the profiles this server implements.
var offeredProfiles = []string{
	"core", "json", "xml", "collection-get", "conditional", "error-policy", "atomic",
	"pipelining", "limits",
}

// newHandler returns the server's root handler: the batch endpoint at batchPath, everything
// else to the resources. Sub-requests go to the same resources handler as standalone
// requests do (MB-SUB-1).
func newHandler(lim Limits, timeout time.Duration) http.Handler {
	store := newStore()
	mux := http.NewServeMux()
	collections{store: store}.routes(mux)
	testResources(mux)
	resources := readDates(store, collections{store: store}.conditions(mux))
	batch := &batchEndpoint{
		path: batchPath, limits: lim, timeout: timeout, handler: resources, store: store,
		profiles: offeredProfiles, inflight: make(chan struct{}, maxBatchesInFlight),
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == batchPath {
			batch.ServeHTTP(w, r)
			return
		}
		store.iso.RLock()
		defer store.iso.RUnlock()
		resources.ServeHTTP(w, r)
	})
}

// newServer returns the HTTP server; its listener must be wrapped in a tapListener.
func newServer(lim Limits, timeout time.Duration) *http.Server {
	return &http.Server{
		Handler:           newHandler(lim, timeout),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       30 * time.Second,
		MaxHeaderBytes:    32 << 10,
		ConnContext:       withTap,
	}
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8090", "loopback address to listen on (port 0: any free port)")
	timeout := flag.Duration("batch-timeout", 4*time.Second, "time budget of one batch once its parts run")
	lim := DefaultLimits
	flag.IntVar(&lim.MaxParts, "max-parts", lim.MaxParts, "most parts in one batch")
	flag.Int64Var(&lim.MaxBatchBytes, "max-batch-bytes", lim.MaxBatchBytes, "most octets of batch content")
	flag.Int64Var(&lim.MaxPartBytes, "max-part-bytes", lim.MaxPartBytes, "most octets of one part body")
	flag.IntVar(&lim.MaxPartHeaderBytes, "max-part-header-bytes", lim.MaxPartHeaderBytes,
		"most octets of one part header section (field lines with their CRLFs)")
	flag.IntVar(&lim.MaxPartFields, "max-part-fields", lim.MaxPartFields, "most field lines in one part header section")
	flag.Parse()
	if lim.MaxParts < 1 || lim.MaxBatchBytes < 1 || lim.MaxPartBytes < 1 || lim.MaxPartHeaderBytes < 1 || lim.MaxPartFields < 1 {
		log.Fatalf("mbserver: every limit is at least 1")
	}

	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		log.Fatalf("mbserver: -addr %q: %v", *addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		log.Fatalf("mbserver: -addr %q is not a loopback address; this server listens on loopback only", *addr)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("mbserver: %v", err)
	}
	srv := newServer(lim, *timeout)
	fmt.Printf("mbserver listening on http://%s\n", ln.Addr())
	_ = os.Stdout.Sync()
	log.Fatal(srv.Serve(tapListener{ln}))
}
