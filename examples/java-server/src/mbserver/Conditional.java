package mbserver;

import java.util.ArrayList;
import java.util.List;

/** Evaluation of conditional requests (RFC 9110 13.2.2), for standalone requests and parts alike (MB-PROC-9). */
public final class Conditional {
    private Conditional() {}

    /**
     * Returns null when the request proceeds, or the 304 or 412 answer.
     * etag: the selected representation's entity-tag (with quotes, maybe W/), or null; lastModified: millis or -1.
     */
    public static HttpResponse evaluate(HttpRequest req, boolean exists, String etag, long lastModified, Fields validatorHeaders) {
        boolean getOrHead = "GET".equals(req.method) || "HEAD".equals(req.method);
        String im = req.headers.combined("If-Match");
        if (im != null) {
            if (!matches(im, exists, etag, true)) return fail(412, validatorHeaders);
        } else {
            String ius = req.headers.combined("If-Unmodified-Since");
            if (ius != null && exists && lastModified >= 0) {
                Long d = HttpDate.parse(ius);
                if (d != null && lastModified / 1000 > d / 1000) return fail(412, validatorHeaders);
            }
        }
        String inm = req.headers.combined("If-None-Match");
        if (inm != null) {
            if (matches(inm, exists, etag, false)) return fail(getOrHead ? 304 : 412, validatorHeaders);
        } else if (getOrHead) {
            String ims = req.headers.combined("If-Modified-Since");
            if (ims != null && exists && lastModified >= 0) {
                Long d = HttpDate.parse(ims);
                if (d != null && lastModified / 1000 <= d / 1000) return fail(304, validatorHeaders);
            }
        }
        return null;
    }

    static HttpResponse fail(int status, Fields validators) {
        HttpResponse r = new HttpResponse(status);
        if (status == 304 && validators != null) for (Fields.Field f : validators.list) r.headers.add(f.name, f.value);
        if (status == 412) { r.headers.add("Content-Type", "application/problem+json"); r.body = Ascii.utf8("{\"type\":\"about:blank\",\"title\":\"Precondition Failed\",\"status\":412}"); }
        return r;
    }

    /** If-Match uses the strong comparison, If-None-Match the weak one (RFC 9110 8.8.3.2). */
    static boolean matches(String field, boolean exists, String etag, boolean strong) {
        String f = Ascii.trimOws(field);
        if (f.equals("*")) return exists;
        if (!exists || etag == null) return false;
        for (String t : tags(f)) {
            if (strong) {
                if (!t.startsWith("W/") && !etag.startsWith("W/") && t.equals(etag)) return true;
            } else {
                if (opaque(t).equals(opaque(etag))) return true;
            }
        }
        return false;
    }

    static String opaque(String t) { return t.startsWith("W/") ? t.substring(2) : t; }

    /** The entity-tags of a list; malformed elements are left out. */
    static List<String> tags(String s) {
        List<String> out = new ArrayList<>();
        int i = 0, n = s.length();
        while (i < n) {
            while (i < n && (s.charAt(i) == ',' || Ascii.isOws(s.charAt(i)))) i++;
            if (i >= n) break;
            int st = i;
            if (s.startsWith("W/", i)) i += 2;
            if (i < n && s.charAt(i) == '"') {
                int close = s.indexOf('"', i + 1);
                if (close < 0) break;
                int after = close + 1;
                while (after < n && Ascii.isOws(s.charAt(after))) after++;
                if (after < n && s.charAt(after) != ',') {
                    // "a"x is no entity-tag (RFC 9110 8.8.3): it matches nothing (spec 7.6).
                    while (after < n && s.charAt(after) != ',') after++;
                } else {
                    out.add(s.substring(st, close + 1));
                }
                i = after;
            } else {
                while (i < n && s.charAt(i) != ',') i++;
            }
        }
        return out;
    }
}
