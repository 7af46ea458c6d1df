package mbserver;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** The test resources of spec 14.4 (MB-TEST-1 to MB-TEST-8), under /res/. */
public final class Resources {
    static final SecureRandom RANDOM = new SecureRandom();
    /** The ETag resource's fixed representation and validators. */
    static final byte[] ETAG_BODY = Ascii.utf8("{\"resource\":\"etag\",\"version\":1}");
    static final String ETAG_TAG = "\"etag-v1\"";
    static final long ETAG_LAST_MODIFIED = (System.currentTimeMillis() / 1000 - 3600) * 1000;

    static final class Member {
        byte[] body; String contentType; String etag; long lastModified;
    }
    final Map<String, Member> sandbox = new LinkedHashMap<>();
    final AtomicLong nextId = new AtomicLong(1);
    final Collections collections = new Collections();

    public HttpResponse handle(HttpRequest req, String path) throws Problem {
        String m = req.method;
        if (path.equals("/res/ok")) {
            if (m.equals("GET") || m.equals("HEAD")) return HttpResponse.text(200, "text/plain; charset=utf-8", "ok\n");
            return notAllowed("GET, HEAD, OPTIONS", m);
        }
        if (path.equals("/res/not_found")) return Router.notFound();
        if (path.equals("/res/echo")) return echo(req);
        if (path.startsWith("/res/status/")) return status(path.substring(12));
        if (path.startsWith("/res/delay/")) return delay(req, path.substring(11));
        if (path.startsWith("/res/random/")) return random(path.substring(12));
        if (path.equals("/res/etag")) {
            if (!(m.equals("GET") || m.equals("HEAD"))) return notAllowed("GET, HEAD, OPTIONS", m);
            Fields v = new Fields().add("ETag", ETAG_TAG).add("Last-Modified", HttpConnection.httpDate(ETAG_LAST_MODIFIED));
            HttpResponse c = Conditional.evaluate(req, true, ETAG_TAG, ETAG_LAST_MODIFIED, v);
            if (c != null) return c;
            HttpResponse r = new HttpResponse(200);
            r.headers.add("Content-Type", "application/json");
            for (Fields.Field f : v.list) r.headers.add(f.name, f.value);
            r.body = ETAG_BODY;
            return r;
        }
        if (path.equals("/res/sandbox")) return sandboxCollection(req);
        if (path.startsWith("/res/sandbox/")) return sandboxMember(req, path.substring(13));
        HttpResponse c = collections.handle(req, path);
        if (c != null) return c;
        return Router.notFound();
    }

    static HttpResponse notAllowed(String allow, String method) {
        if (method.equals("OPTIONS")) { HttpResponse r = new HttpResponse(204); r.headers.add("Allow", allow); return r; }
        HttpResponse r = HttpResponse.text(405, "application/problem+json", "{\"type\":\"about:blank\",\"title\":\"Method Not Allowed\",\"status\":405}");
        r.headers.add("Allow", allow);
        return r;
    }

    static final String[] ECHO_LEFT_OUT = {"Host", "Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive",
            "Proxy-Connection", "TE", "Upgrade", "Trailer", "Expect"};

    HttpResponse echo(HttpRequest req) {
        Json.Writer w = new Json.Writer();
        w.beginObject();
        w.name("method").value(req.method);
        w.name("target").value(req.target);
        w.name("authority").value(req.authority);
        w.name("headers").beginArray();
        outer:
        for (Fields.Field f : req.headers.list) {
            for (String x : ECHO_LEFT_OUT) if (Fields.nameEq(f.name, x)) continue outer;
            w.beginArray().value(f.name).value(f.value).endArray();
        }
        w.endArray();
        String text = utf8OrNull(req.body);
        if (text != null) w.name("body").value(text);
        else w.name("body_base64").value(Base64.getEncoder().encodeToString(req.body));
        w.endObject();
        return HttpResponse.text(200, "application/json", w.toString());
    }

    public static String utf8OrNull(byte[] b) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    static HttpResponse status(String code) {
        if (code.length() != 3 || !Ascii.isDigits(code)) return Router.notFound();
        int c = Integer.parseInt(code);
        if (c < 200 || c > 599)
            return HttpResponse.text(400, "application/problem+json", "{\"type\":\"about:blank\",\"title\":\"Bad Request\",\"status\":400,\"detail\":\"status codes 200 to 599 only\"}");
        HttpResponse r = new HttpResponse(c);
        if (c != 204 && c != 304) { r.headers.add("Content-Type", "text/plain; charset=utf-8"); r.body = Ascii.utf8("status " + c + "\n"); }
        return r;
    }

    /** Thrown by a sub-request that the batch's time budget (or shutdown) cut short. */
    public static final class Aborted extends RuntimeException {
        Aborted() { super("aborted", null, false, false); }
    }

    static HttpResponse delay(HttpRequest req, String ms) {
        if (!Ascii.isDigits(ms) || ms.length() > 12) return Router.notFound();
        long n = Long.parseLong(ms);
        if (n > Limits.DELAY_MAX_MS)
            return HttpResponse.text(400, "application/problem+json", "{\"type\":\"about:blank\",\"title\":\"Bad Request\",\"status\":400,\"detail\":\"delay over " + Limits.DELAY_MAX_MS + " ms\"}");
        long until = System.nanoTime() + n * 1_000_000L;
        while (true) {
            long now = System.nanoTime();
            if (now - until >= 0) break;
            if (req.deadlineNanos != 0 && now - req.deadlineNanos >= 0) throw new Aborted();
            if (req.sub && Budget.SHUTTING_DOWN.get()) throw new Aborted();
            long left = until - now;
            if (req.deadlineNanos != 0) left = Math.min(left, req.deadlineNanos - now);
            try { Thread.sleep(Math.max(1, Math.min(50, left / 1_000_000L + 1))); } catch (InterruptedException e) { throw new Aborted(); }
        }
        return HttpResponse.text(200, "text/plain; charset=utf-8", "delayed " + n + " ms\n");
    }

    static HttpResponse random(String n) {
        if (!Ascii.isDigits(n) || n.length() > 12) return Router.notFound();
        long v = Long.parseLong(n);
        if (v > Limits.RANDOM_MAX_N)
            return HttpResponse.text(400, "application/problem+json", "{\"type\":\"about:blank\",\"title\":\"Bad Request\",\"status\":400,\"detail\":\"n over " + Limits.RANDOM_MAX_N + "\"}");
        HttpResponse r = new HttpResponse(200);
        r.headers.add("Content-Type", "application/octet-stream");
        r.body = new byte[(int) v];
        RANDOM.nextBytes(r.body);
        return r;
    }

    // ---- sandbox (MB-TEST-3, MB-TEST-4) ----

    static String etagOf(byte[] body, long version) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(body);
            return "\"" + version + "-" + Base64.getUrlEncoder().withoutPadding().encodeToString(d).substring(0, 16) + "\"";
        } catch (Exception e) { throw new IllegalStateException(e); }
    }

    static boolean validId(String id) { return id.matches("[A-Za-z0-9_-]{1,64}"); }

    synchronized HttpResponse sandboxCollection(HttpRequest req) {
        String m = req.method;
        if (m.equals("POST")) {
            // The POST's target is the collection, which has a current representation (its
            // listing, untagged): RFC 9110 13.1.1 and 13.1.2 judge If-Match and If-None-Match.
            HttpResponse c = Conditional.evaluate(req, true, null, -1, null);
            if (c != null) return c;
            if (req.body.length > Limits.SANDBOX_MAX_MEMBER_BYTES)
                return HttpResponse.text(413, "application/problem+json", "{\"type\":\"about:blank\",\"title\":\"Content Too Large\",\"status\":413}");
            if (sandbox.size() >= Limits.SANDBOX_MAX_MEMBERS)
                return HttpResponse.text(507, "application/problem+json", "{\"type\":\"about:blank\",\"title\":\"Insufficient Storage\",\"status\":507}");
            String id;
            do { id = "m" + nextId.getAndIncrement(); } while (sandbox.containsKey(id));
            store(id, req);
            HttpResponse r = new HttpResponse(201);
            r.headers.add("Location", "/res/sandbox/" + id);
            Member mem = sandbox.get(id);
            r.headers.add("ETag", mem.etag);
            r.headers.add("Last-Modified", HttpConnection.httpDate(mem.lastModified));
            return r;
        }
        if (m.equals("GET") || m.equals("HEAD")) {
            Json.Writer w = new Json.Writer().beginArray();
            for (String id : sandbox.keySet()) w.value("/res/sandbox/" + id);
            w.endArray();
            return HttpResponse.text(200, "application/json", w.toString());
        }
        return notAllowed("GET, HEAD, POST, OPTIONS", m);
    }

    void store(String id, HttpRequest req) {
        Member mem = sandbox.get(id);
        long version = 1;
        if (mem != null) version = Long.parseLong(mem.etag.substring(1, mem.etag.indexOf('-'))) + 1;
        else mem = new Member();
        mem.body = req.body;
        String ct = req.headers.first("Content-Type");
        mem.contentType = ct == null ? "application/octet-stream" : ct;
        mem.etag = etagOf(req.body, version);
        mem.lastModified = System.currentTimeMillis() / 1000 * 1000;
        sandbox.put(id, mem);
    }

    synchronized HttpResponse sandboxMember(HttpRequest req, String id) {
        if (!validId(id)) return Router.notFound();
        String m = req.method;
        Member mem = sandbox.get(id);
        boolean exists = mem != null;
        if (!(m.equals("GET") || m.equals("HEAD") || m.equals("PUT") || m.equals("DELETE")))
            return notAllowed("GET, HEAD, PUT, DELETE, OPTIONS", m);
        // RFC 9110 13.2.1: preconditions are ignored when the request without them would fail,
        // so a member that is not there is 404 before any If-Match is evaluated (spec 7.6).
        if (!exists && !m.equals("PUT")) return Router.notFound();
        Fields v = new Fields();
        if (exists) { v.add("ETag", mem.etag).add("Last-Modified", HttpConnection.httpDate(mem.lastModified)); }
        HttpResponse c = Conditional.evaluate(req, exists, exists ? mem.etag : null, exists ? mem.lastModified : -1, v);
        if (c != null) return c;
        switch (m) {
            case "GET": case "HEAD": {
                if (!exists) return Router.notFound();
                HttpResponse r = new HttpResponse(200);
                r.headers.add("Content-Type", mem.contentType);
                for (Fields.Field f : v.list) r.headers.add(f.name, f.value);
                r.body = mem.body;
                return r;
            }
            case "PUT": {
                if (req.body.length > Limits.SANDBOX_MAX_MEMBER_BYTES)
                    return HttpResponse.text(413, "application/problem+json", "{\"type\":\"about:blank\",\"title\":\"Content Too Large\",\"status\":413}");
                if (!exists && sandbox.size() >= Limits.SANDBOX_MAX_MEMBERS)
                    return HttpResponse.text(507, "application/problem+json", "{\"type\":\"about:blank\",\"title\":\"Insufficient Storage\",\"status\":507}");
                store(id, req);
                Member now = sandbox.get(id);
                HttpResponse r = new HttpResponse(exists ? 204 : 201);
                if (!exists) r.headers.add("Location", "/res/sandbox/" + id);
                r.headers.add("ETag", now.etag);
                r.headers.add("Last-Modified", HttpConnection.httpDate(now.lastModified));
                return r;
            }
            default: { // DELETE
                if (!exists) return Router.notFound();
                sandbox.remove(id);
                return new HttpResponse(204);
            }
        }
    }
}
