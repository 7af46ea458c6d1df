package mbserver;

import java.io.IOException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;

/**
 * Runs the parts of a validated batch one at a time in request order (MB-PROC-2), applies the
 * error policy (MB-PROC-5, MB-PROC-6), enforces the time budget (MB-SEC-1) with the abort part of
 * 5.4, and streams each response part as soon as it is complete (MB-PROC-4).
 */
public final class BatchRunner {
    static final SecureRandom RANDOM = new SecureRandom();
    static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    /** Fields a response part never carries (MB-RESP-4). */
    static final String[] DROPPED = {"Connection", "Keep-Alive", "Proxy-Connection", "TE", "Transfer-Encoding", "Upgrade", "Trailer", "Content-Length"};

    final Router router;
    final List<Envelope.Part> parts;
    final List<HttpRequest> subs;
    final boolean stop;
    final long deadline;

    BatchRunner(Router router, List<Envelope.Part> parts, List<HttpRequest> subs, boolean stop, long deadline) {
        this.router = router; this.parts = parts; this.subs = subs; this.stop = stop; this.deadline = deadline;
    }

    /** One entry of the result, in any representation. */
    static final class Result {
        int index; Integer status; String outcome; String contentId; String href;
        final Fields headers = new Fields(); byte[] body = new byte[0];
    }

    /** Writes results in one representation. */
    interface Emitter {
        void begin(HttpResponse.BodyOut out) throws IOException;
        /** Returns false when the result cannot be written (a boundary collision). */
        boolean part(HttpResponse.BodyOut out, Result r) throws IOException;
        void abort(HttpResponse.BodyOut out, Result r) throws IOException;
        void end(HttpResponse.BodyOut out, int[] summary, boolean aborted) throws IOException;
    }

    static String boundary() {
        StringBuilder sb = new StringBuilder("mb-");
        for (int i = 0; i < 28; i++) sb.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
        return sb.toString();
    }

    void prepare(HttpResponse r, String rep) {
        Emitter em;
        if (rep.equals(Capabilities.MULTIPART)) {
            String b = boundary();
            r.headers.add("Content-Type", "multipart/mixed; boundary=" + b);
            r.trailer = "Batch-Summary";
            em = new MultipartEmitter(b);
        } else {
            r.headers.add("Content-Type", Capabilities.JSON_FORM);
            em = new JsonEmitter();
        }
        r.streamer = out -> run(out, em);
    }

    final int[] summary = new int[4]; // ok, failed, skipped, rolled-back

    void run(HttpResponse.BodyOut out, Emitter em) throws IOException {
        em.begin(out);
        boolean stopped = false;
        for (int k = 0; k < parts.size(); k++) {
            Envelope.Part p = parts.get(k);
            HttpRequest sub = subs.get(k);
            Result r = new Result();
            r.index = k;
            r.contentId = p.contentId;
            r.href = sub.target;
            if (stopped) {
                r.outcome = "skipped";
                summary[2]++;
                if (!em.part(out, r)) { abortAt(out, em, k, 500, "a response part would contain the response boundary"); return; }
                out.flush();
                continue;
            }
            if (System.nanoTime() - deadline >= 0) { abortAt(out, em, k, 503, "the batch exceeded its time budget of " + Limits.BATCH_TIMEOUT_MS + " ms"); return; }
            if (Budget.SHUTTING_DOWN.get()) { abortAt(out, em, k, 503, "the server is shutting down"); return; }
            HttpResponse resp;
            try {
                resp = router.dispatch(sub);
            } catch (Resources.Aborted a) {
                abortAt(out, em, k, 503, Budget.SHUTTING_DOWN.get() ? "the server is shutting down"
                        : "the batch exceeded its time budget of " + Limits.BATCH_TIMEOUT_MS + " ms");
                return;
            } catch (RuntimeException e) {
                resp = HttpResponse.text(500, "application/problem+json", "{\"type\":\"about:blank\",\"title\":\"Internal Server Error\",\"status\":500}");
            }
            r.status = resp.status;
            for (Fields.Field f : resp.headers.list) {
                boolean drop = false;
                for (String d : DROPPED) if (Fields.nameEq(f.name, d)) drop = true;
                if (!drop) r.headers.add(f.name, f.value);
            }
            boolean noBody = "HEAD".equals(sub.method) || resp.status == 204 || resp.status == 304;
            r.body = noBody ? new byte[0] : resp.body;
            if (resp.status >= 400) summary[1]++; else summary[0]++;
            if (!em.part(out, r)) { abortAt(out, em, k, 500, "a response part would contain the response boundary"); return; }
            out.flush();
            if (stop && resp.status >= 400) stopped = true;
        }
        em.end(out, summary, false);
        out.flush();
    }

    void abortAt(HttpResponse.BodyOut out, Emitter em, int k, int status, String detail) throws IOException {
        Problem p = new Problem(status, "MB-STATUS-6", "batch-aborted", "Batch aborted",
                detail + "; parts from " + k + " on have no response part");
        p.partIndex = k;
        Result r = new Result();
        r.index = k;
        r.outcome = "aborted";
        r.headers.add("Content-Type", "application/problem+json");
        r.body = Ascii.utf8(p.toJson());
        em.abort(out, r);
        em.end(out, summary, true);
        out.flush();
    }

    // ---- multipart/mixed (spec 3.3) ----

    static final class MultipartEmitter implements Emitter {
        final String boundary;
        final byte[] dash;
        boolean first = true;
        MultipartEmitter(String b) { boundary = b; dash = Ascii.latin1("--" + b); }

        public void begin(HttpResponse.BodyOut out) { }

        boolean collides(byte[] body) {
            if (Envelope.startsWith(body, 0, dash)) return true;
            for (int i = 0; i < body.length; i++) if (body[i] == '\n' && Envelope.startsWith(body, i + 1, dash)) return true;
            return false;
        }

        void write(HttpResponse.BodyOut out, Result r, boolean abort) throws IOException {
            StringBuilder sb = new StringBuilder();
            sb.append(first ? "" : "\r\n").append("--").append(boundary).append("\r\n");
            first = false;
            if (r.status != null) sb.append("Http-Status-Code: ").append(r.status).append("\r\n");
            if (!abort) sb.append("Content-Id: ").append(r.contentId).append("\r\n");
            if (r.outcome != null) sb.append("Batch-Outcome: ").append(r.outcome).append("\r\n");
            for (Fields.Field f : r.headers.list) sb.append(f.name).append(": ").append(f.value).append("\r\n");
            sb.append("Content-Length: ").append(r.body.length).append("\r\n\r\n");
            out.write(Ascii.latin1(sb.toString()));
            out.write(r.body);
        }

        public boolean part(HttpResponse.BodyOut out, Result r) throws IOException {
            if (collides(r.body)) return false;
            write(out, r, false);
            return true;
        }

        public void abort(HttpResponse.BodyOut out, Result r) throws IOException { write(out, r, true); }

        public void end(HttpResponse.BodyOut out, int[] s, boolean aborted) throws IOException {
            out.write(Ascii.latin1((first ? "" : "\r\n") + "--" + boundary + "--\r\n"));
            if (!aborted && s != null)
                out.trailer("Batch-Summary", "ok=" + s[0] + ", failed=" + s[1] + ", skipped=" + s[2] + ", rolled-back=" + s[3]);
        }
    }

    // ---- application/vnd.mixbatch.multistatus+json (spec 6.4) ----

    static final class JsonEmitter implements Emitter {
        boolean first = true;

        public void begin(HttpResponse.BodyOut out) throws IOException {
            out.write(Ascii.utf8("{\"spec_version\":" + Json.quote(Limits.SPEC_VERSION) + ",\"responses\":["));
        }

        void entry(HttpResponse.BodyOut out, Result r, boolean abort) throws IOException {
            Json.Writer w = new Json.Writer();
            w.beginObject();
            w.name("index").value(r.index);
            if (abort) { w.name("href").nullValue(); w.name("content_id").nullValue(); }
            else { w.name("href").value(r.href); w.name("content_id").value(r.contentId.substring(1, r.contentId.length() - 1)); }
            if (r.status == null) w.name("status").nullValue(); else w.name("status").value(r.status);
            w.name("outcome").value(r.outcome);
            w.name("headers").beginArray();
            for (Fields.Field f : r.headers.list) w.beginArray().value(f.name).value(f.value).endArray();
            w.endArray();
            String text = Resources.utf8OrNull(r.body);
            if (text != null) w.name("body").value(text);
            else w.name("body_base64").value(Base64.getEncoder().encodeToString(r.body));
            w.endObject();
            out.write(Ascii.utf8((first ? "" : ",") + w));
            first = false;
        }

        public boolean part(HttpResponse.BodyOut out, Result r) throws IOException { entry(out, r, false); return true; }
        public void abort(HttpResponse.BodyOut out, Result r) throws IOException { entry(out, r, true); }

        public void end(HttpResponse.BodyOut out, int[] s, boolean aborted) throws IOException {
            out.write(Ascii.utf8("],\"summary\":{\"ok\":" + s[0] + ",\"failed\":" + s[1] + ",\"skipped\":" + s[2] + ",\"rolled_back\":" + s[3] + "}}"));
        }
    }
}
