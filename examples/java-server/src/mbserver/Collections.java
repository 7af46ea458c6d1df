package mbserver;

import java.io.ByteArrayOutputStream;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.List;

/**
 * Read-only collections for GET collection retrieval (spec 4.2, 5.2; MB-METHOD-3 to MB-METHOD-7,
 * MB-STATUS-7, MB-STATUS-11, MB-TEST-8): /res/books with three members, /res/empty with none.
 */
public final class Collections {
    static final long START = (System.currentTimeMillis() / 1000 - 7200) * 1000;

    static final class Member {
        final String path, contentType, etag; final byte[] body; final long lastModified;
        Member(String path, String contentType, String etag, String body, long lm) {
            this.path = path; this.contentType = contentType; this.etag = etag; this.body = Ascii.utf8(body); this.lastModified = lm;
        }
    }

    static final List<Member> BOOKS = List.of(
            new Member("/res/books/1", "application/json", "\"b1-v1\"", "{\"id\": 1, \"title\": \"Mythical Man-Month\"}", START),
            new Member("/res/books/2", "application/json", "\"b2-v1\"", "{\"id\": 2, \"title\": \"Structure and Interpretation\"}", START + 60_000),
            new Member("/res/books/3", "text/plain; charset=utf-8", "\"b3-v1\"", "A plain-text member.\n", START + 120_000));

    public HttpResponse handle(HttpRequest req, String path) throws Problem {
        if (path.equals("/res/books")) return collection(req, BOOKS);
        if (path.equals("/res/empty")) return collection(req, List.of());
        for (Member m : BOOKS) if (m.path.equals(path)) return member(req, m);
        return null;
    }

    static HttpResponse member(HttpRequest req, Member m) {
        if (!(req.method.equals("GET") || req.method.equals("HEAD"))) return Resources.notAllowed("GET, HEAD, OPTIONS", req.method);
        Fields v = new Fields().add("ETag", m.etag).add("Last-Modified", HttpConnection.httpDate(m.lastModified));
        HttpResponse c = Conditional.evaluate(req, true, m.etag, m.lastModified, v);
        if (c != null) return c;
        HttpResponse r = new HttpResponse(200);
        r.headers.add("Content-Type", m.contentType);
        for (Fields.Field f : v.list) r.headers.add(f.name, f.value);
        r.body = m.body;
        return r;
    }

    static String hash(String kind, byte[] octets) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update(Ascii.utf8(kind + "\n"));
            d.update(octets);
            return Base64.getUrlEncoder().withoutPadding().encodeToString(d.digest()).substring(0, 22);
        } catch (Exception e) { throw new IllegalStateException(e); }
    }

    /** The multipart representation: its boundary is derived from the members, so its octets are a function of the state. */
    static byte[] multipart(List<Member> members, String[] boundaryOut) {
        ByteArrayOutputStream state = new ByteArrayOutputStream();
        for (Member m : members) { state.writeBytes(Ascii.utf8(m.path + "|" + m.etag + "|" + m.contentType + "|" + m.lastModified + "\n")); state.writeBytes(m.body); }
        String boundary = "coll-" + hash("boundary", state.toByteArray());
        boundaryOut[0] = boundary;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        boolean first = true;
        for (Member m : members) {
            String h = (first ? "" : "\r\n") + "--" + boundary + "\r\n"
                    + "Http-Status-Code: 200\r\nContent-Id: <" + m.path + ">\r\nContent-Type: " + m.contentType + "\r\n"
                    + "ETag: " + m.etag + "\r\nLast-Modified: " + HttpConnection.httpDate(m.lastModified) + "\r\n"
                    + "Content-Length: " + m.body.length + "\r\n\r\n";
            out.writeBytes(Ascii.latin1(h));
            out.writeBytes(m.body);
            first = false;
        }
        if (!members.isEmpty()) out.writeBytes(Ascii.latin1("\r\n--" + boundary + "--\r\n"));
        return out.toByteArray();
    }

    static HttpResponse collection(HttpRequest req, List<Member> members) throws Problem {
        if (!(req.method.equals("GET") || req.method.equals("HEAD"))) return Resources.notAllowed("GET, HEAD, OPTIONS", req.method);
        if (req.hasBody)
            throw new Problem(400, "MB-METHOD-3", "get-with-content", "GET with content",
                    "a GET of a collection carries no content");
        Accept a = new Accept(req.headers.combined("Accept"));
        double qm = a.absent ? 0.5 : a.quality("multipart", "mixed");
        double qj = a.absent ? 1.0 : a.quality("application", "json");
        if (qm <= 0 && qj <= 0)
            throw new Problem(406, null, "not-acceptable", "Not acceptable", "the collection is offered as multipart/mixed and application/json")
                    .header("Vary", "Accept");
        boolean asMultipart = qm > qj;
        long lm = START;
        for (Member m : members) lm = Math.max(lm, m.lastModified);
        HttpResponse r;
        String etag;
        if (asMultipart) {
            String[] b = new String[1];
            byte[] body = multipart(members, b);
            etag = "\"" + hash("multipart/mixed;boundary=" + b[0] + (members.isEmpty() ? ";empty" : ""), body) + "\"";
            if (members.isEmpty()) {
                r = new HttpResponse(204);
            } else {
                r = new HttpResponse(200);
                r.headers.add("Content-Type", "multipart/mixed; boundary=" + b[0]);
                r.body = body;
            }
        } else {
            Json.Writer w = new Json.Writer().beginArray();
            for (Member m : members) w.value(m.path);
            w.endArray();
            byte[] body = Ascii.utf8(w.toString());
            etag = "\"" + hash("application/json", body) + "\"";
            r = new HttpResponse(200);
            r.headers.add("Content-Type", "application/json");
            r.body = body;
        }
        Fields v = new Fields().add("ETag", etag).add("Last-Modified", HttpConnection.httpDate(lm)).add("Vary", "Accept");
        HttpResponse c = Conditional.evaluate(req, true, etag, lm, v);
        if (c != null) {
            if (c.status == 412) c.headers.add("Vary", "Accept");
            return c;
        }
        for (Fields.Field f : v.list) r.headers.add(f.name, f.value);
        return r;
    }
}
