package mbserver;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;
import java.util.zip.InflaterInputStream;

/** The batch endpoint: the checks made before any part runs (spec 3.1.1, 4.1, 5.1, 6.1, 7.1, 9, 10.1). */
public final class BatchEndpoint {
    static final String ALLOW = Capabilities.has("limits") ? "POST, OPTIONS" : "POST";
    final Router router;

    BatchEndpoint(Router router) { this.router = router; }

    public HttpResponse handle(HttpRequest req) throws Problem {
        String m = req.method;
        if (m.equals("OPTIONS") && Capabilities.has("limits")) {
            HttpResponse r = HttpResponse.text(200, "application/vnd.mixbatch.capabilities+json", Capabilities.document());
            r.headers.add("Accept-Post", "multipart/mixed");
            r.headers.add("Allow", ALLOW);
            return r;
        }
        if (!m.equals("POST")) {
            if (Router.KNOWN_METHODS.contains(m))
                throw new Problem(405, "MB-METHOD-2", "method-not-allowed", "Method not allowed",
                        "the batch endpoint allows " + ALLOW).header("Allow", ALLOW);
            throw new Problem(501, "MB-METHOD-2", "method-not-implemented", "Method not implemented",
                    "the method " + m + " is not recognised").header("Allow", ALLOW);
        }
        if (!req.batchPermit || Budget.SHUTTING_DOWN.get()) {
            Problem p = new Problem(503, "MB-LIMIT-6", "too-many-batches", "Too many batches in flight",
                    Budget.SHUTTING_DOWN.get() ? "the server is shutting down" : "the server holds as many batches as its budget allows")
                    .header("Retry-After", String.valueOf(Limits.RETRY_AFTER_SECONDS));
            if (!Budget.SHUTTING_DOWN.get()) p.limit("max_batches_in_flight", Limits.MAX_BATCHES_IN_FLIGHT);
            throw p;
        }
        if (req.authority == null || req.authority.isEmpty())
            throw new Problem(400, null, "bad-host", "Bad Host", "a batch needs the authority of its Host to resolve its targets");

        // Content-Type (MB-WIRE-2, MB-WIRE-4)
        List<Fields.Field> cts = req.headers.all("Content-Type");
        if (cts.size() > 1)
            throw new Problem(400, "MB-WIRE-4", "bad-content-type", "More than one Content-Type", "the batch request carries " + cts.size() + " Content-Type field lines");
        if (cts.isEmpty())
            throw new Problem(415, "MB-WIRE-2", "unsupported-media-type", "Unsupported media type", "the batch request has no Content-Type; it must be multipart/mixed")
                    .header("Accept-Post", "multipart/mixed");
        MediaType mt;
        try {
            mt = MediaType.parse(cts.get(0).value);
        } catch (MediaType.Syntax e) {
            throw new Problem(400, "MB-WIRE-4", "bad-content-type", "Malformed Content-Type", e.getMessage());
        }
        if (!mt.is("multipart", "mixed"))
            throw new Problem(415, "MB-WIRE-2", "unsupported-media-type", "Unsupported media type", "the batch content must be multipart/mixed, not " + mt.type + "/" + mt.subtype)
                    .header("Accept-Post", "multipart/mixed");
        List<String> bs = mt.param("boundary");
        if (bs.isEmpty()) throw new Problem(400, "MB-WIRE-4", "bad-boundary", "Missing boundary", "the Content-Type has no boundary parameter");
        if (bs.size() > 1) throw new Problem(400, "MB-WIRE-4", "bad-boundary", "Repeated boundary", "the Content-Type has more than one boundary parameter");
        String boundary = bs.get(0);
        String fault = MediaType.boundaryFault(boundary);
        if (fault != null) throw new Problem(400, "MB-WIRE-4", "bad-boundary", "Invalid boundary", fault);

        // Batch-Mode: this server implements no mode (MB-PROC-7, MB-PROC-12, MB-PROC-17)
        String mode = req.headers.combined("Batch-Mode");
        if (mode != null) {
            boolean atomic = false;
            for (String el : mode.split(",")) if (Ascii.trimOws(el).equals("atomic")) atomic = true;
            throw new Problem(501, atomic ? "MB-PROC-7" : "MB-PROC-12", "unsupported-batch-mode", "Batch-Mode not implemented",
                    "this server implements no Batch-Mode; the request lists '" + mode + "'");
        }

        // Representation (MB-MULTI-1, MB-STATUS-9)
        Accept accept = new Accept(req.headers.combined("Accept"));
        String rep = accept.choose(Capabilities.REPRESENTATIONS);
        if (rep == null)
            throw new Problem(406, "MB-STATUS-9", "not-acceptable", "Not acceptable",
                    "Accept admits none of " + String.join(", ", Capabilities.REPRESENTATIONS));

        byte[] content = decode(req);

        Envelope.Config cfg = new Envelope.Config();
        List<Envelope.Part> parts = Envelope.parse(content, boundary, cfg);
        UriRef base = UriRef.parse("http://" + req.authority + req.path());
        List<String> targets = new ArrayList<>();
        for (Envelope.Part p : parts) targets.add(Targets.check(p, base, req.authority, Limits.BATCH_PATH));

        String policy = Prefer.batchOnError(req.headers.combined("Prefer"));
        boolean stop = "stop".equals(policy) && Capabilities.has("error-policy");

        List<HttpRequest> subs = new ArrayList<>();
        long deadline = req.startNanos + Limits.BATCH_TIMEOUT_MS * 1_000_000L;
        for (int i = 0; i < parts.size(); i++) subs.add(subRequest(req, content, parts.get(i), targets.get(i), deadline));

        HttpResponse r = new HttpResponse(rep.equals(Capabilities.MULTIPART) ? 200 : 207);
        if (stop) r.headers.add("Preference-Applied", "batch-on-error=stop");
        else if ("continue".equals(policy)) r.headers.add("Preference-Applied", "batch-on-error=continue");
        r.headers.add("Vary", "Accept");
        r.headers.add("Cache-Control", "no-transform");
        BatchRunner runner = new BatchRunner(router, parts, subs, stop, deadline);
        runner.prepare(r, rep);
        return r;
    }

    /** The sub-request a part stands for (MB-PART-8, MB-PART-13, MB-SUB-5, MB-SUB-6). */
    static HttpRequest subRequest(HttpRequest batch, byte[] content, Envelope.Part p, String target, long deadline) {
        HttpRequest s = new HttpRequest();
        s.sub = true;
        s.method = p.method;
        s.target = target;
        s.authority = batch.authority;
        s.version = "HTTP/1.1";
        s.deadlineNanos = deadline;
        for (Fields.Field f : p.fields.list) {
            if (Fields.nameEq(f.name, "Http-Method") || Fields.nameEq(f.name, "Content-Id")) continue;
            s.headers.add(f.name, f.value);
        }
        for (String cred : new String[] {"Authorization", "Cookie"}) {
            if (s.headers.has(cred)) continue;
            for (Fields.Field f : batch.headers.all(cred)) s.headers.add(f.name, f.value);
        }
        s.body = java.util.Arrays.copyOfRange(content, p.bodyStart, p.bodyStart + p.bodyLength);
        s.hasBody = p.bodyLength > 0;
        return s;
    }

    /** Removes the content codings, last applied first (MB-INTER-6), bounded by max_batch_bytes. */
    static byte[] decode(HttpRequest req) throws Problem {
        String ce = req.headers.combined("Content-Encoding");
        byte[] content = req.body;
        if (ce == null) return content;
        String[] codings = ce.split(",");
        for (String c : codings) {
            String t = Ascii.lower(Ascii.trimOws(c));
            if (t.isEmpty() || t.equals("identity") || t.equals("gzip") || t.equals("x-gzip") || t.equals("deflate")) continue;
            throw new Problem(415, "MB-INTER-6", "unsupported-content-coding", "Unsupported content coding",
                    "the content coding '" + Ascii.trimOws(c) + "' is not supported").header("Accept-Encoding", "gzip, deflate");
        }
        for (int i = codings.length - 1; i >= 0; i--) {
            String t = Ascii.lower(Ascii.trimOws(codings[i]));
            if (t.isEmpty() || t.equals("identity")) continue;
            try (InputStream in = t.equals("deflate") ? new InflaterInputStream(new ByteArrayInputStream(content))
                    : new GZIPInputStream(new ByteArrayInputStream(content))) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                byte[] buf = new byte[65536];
                int n;
                while ((n = in.read(buf)) > 0) {
                    out.write(buf, 0, n);
                    if (out.size() > Limits.MAX_BATCH_BYTES)
                        throw new Problem(413, "MB-STATUS-3", "batch-too-large", "Batch content too large",
                                "the decoded content exceeds " + Limits.MAX_BATCH_BYTES + " octets").limit("max_batch_bytes", Limits.MAX_BATCH_BYTES);
                }
                content = out.toByteArray();
            } catch (IOException e) {
                throw new Problem(400, null, "bad-content-coding", "Undecodable content", "the content is not valid " + t + ": " + e.getMessage());
            }
        }
        return content;
    }
}
