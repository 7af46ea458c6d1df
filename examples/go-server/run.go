// The processing model (section 7): parts run as if one at a time in request order
// (MB-PROC-2), with consecutive safe parts allowed to run together (MB-PROC-3); the error
// policy decides what follows a failing part (MB-PROC-5, MB-PROC-6); an atomic batch commits
// all parts or none (MB-PROC-8); a batch that outlasts its time budget ends with an abort part
// (MB-STATUS-6, MB-SEC-1).
package main

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// resultSink receives a batch result in order.
type resultSink interface {
	begin()
	part(r partResult) bool // false: the sink ended the response itself
	abort(partIndex int, doc []byte)
	finish()
}

// plan is how one batch is to run.
type plan struct {
	stop     bool // the stop error policy applies (MB-PROC-6)
	atomic   bool // Batch-Mode: atomic (MB-PROC-8)
	deadline time.Time
	budget   time.Duration
}

// maxConcurrentSafeParts bounds the goroutines one batch runs at once (MB-SEC-1).
const maxConcurrentSafeParts = 8

// executor runs the sub-requests of one batch.
type executor struct {
	handler http.Handler // the handler standalone requests reach (MB-SUB-1)
	batch   *http.Request
	store   *Store
	atomic  bool // its parts run inside the atomic batch's exclusive hold on the store
}

// isSafe reports whether a method is safe (RFC 9110 §9.2.1). A method the server does not
// know is treated as unsafe (section 7.2).
func isSafe(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// start runs one sub-request in its own goroutine and returns where its result arrives.
func (x *executor) start(ctx context.Context, sub *SubRequest, sem chan struct{}) <-chan partResult {
	out := make(chan partResult, 1)
	go func() {
		if sem != nil {
			sem <- struct{}{}
			defer func() { <-sem }()
		}
		if !x.atomic {
			// An atomic batch holds the store exclusively; every other part waits for it.
			x.store.iso.RLock()
			defer x.store.iso.RUnlock()
		}
		out <- serveSub(ctx, x.handler, x.batch, sub)
	}()
	return out
}

// abortProblem is the problem document of an abort part: the 5xx the server would have
// answered before the response began, and the first part it does not answer (MB-STATUS-14).
func abortProblem(partIndex, status int, req, title, detail string) []byte {
	b, _ := json.Marshal(map[string]any{
		"type": problemTypeBase + "batch-aborted", "title": title, "status": status,
		"detail": detail, "requirement": req, "part_index": partIndex,
	})
	return b
}

func timeoutProblem(partIndex int, budget time.Duration) []byte {
	return abortProblem(partIndex, 503, "MB-STATUS-6", "Batch time budget exceeded",
		"the batch outlasted its budget of "+budget.String()+"; parts from this index on have no response")
}

// run executes subs under p and sends their results to sink.
func (x *executor) run(subs []SubRequest, p plan, sink resultSink) {
	ctx, cancel := context.WithDeadline(x.batch.Context(), p.deadline)
	defer cancel()
	if p.atomic {
		x.runAtomic(ctx, subs, p, sink)
		return
	}
	sink.begin()
	sem := make(chan struct{}, maxConcurrentSafeParts)
	for i := 0; i < len(subs); {
		// Under the continue policy consecutive safe parts run together (MB-PROC-3); their
		// results are still written in request order.
		j := i + 1
		if !p.stop && isSafe(subs[i].Method) {
			for j < len(subs) && isSafe(subs[j].Method) {
				j++
			}
		}
		pending := make([]<-chan partResult, 0, j-i)
		for k := i; k < j; k++ {
			pending = append(pending, x.start(ctx, &subs[k], sem))
		}
		for k := i; k < j; k++ {
			select {
			case r := <-pending[k-i]:
				if !sink.part(r) {
					return
				}
				if p.stop && r.failed() {
					// MB-PROC-6: every part after the first failing part is skipped.
					for s := k + 1; s < len(subs); s++ {
						sink.part(partResult{sub: &subs[s], outcome: "skipped"})
					}
					sink.finish()
					return
				}
			case <-ctx.Done():
				sink.abort(k, timeoutProblem(k, p.budget))
				return
			}
		}
		i = j
	}
	sink.finish()
}

// runAtomic runs an atomic batch: parts one at a time on the store; on the first failure the
// store goes back to where it was, the earlier parts are rolled-back, the failing part keeps
// its status and the later parts are skipped (MB-PROC-8). The batch holds the store
// exclusively until it commits or rolls back, so no other request sees part of it and none
// lands in between to be undone with it (MB-PROC-15).
func (x *executor) runAtomic(ctx context.Context, subs []SubRequest, p plan, sink resultSink) {
	x.store.iso.Lock()
	defer x.store.iso.Unlock()
	x.atomic = true
	snap := x.store.snapshot()
	var done []partResult
	rollBack := func() {
		x.store.restore(snap)
		for _, r := range done {
			r.outcome = "rolled-back"
			sink.part(r)
		}
	}
	sink.begin()
	for i := range subs {
		select {
		case r := <-x.start(ctx, &subs[i], nil):
			if r.failed() {
				rollBack()
				sink.part(r)
				for s := i + 1; s < len(subs); s++ {
					sink.part(partResult{sub: &subs[s], outcome: "skipped"})
				}
				sink.finish()
				return
			}
			done = append(done, r)
		case <-ctx.Done():
			rollBack()
			sink.abort(i, timeoutProblem(i, p.budget))
			return
		}
	}
	for _, r := range done {
		if !sink.part(r) {
			return
		}
	}
	sink.finish()
}
