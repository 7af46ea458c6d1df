package mbserver;

import java.util.Set;

/** Routes standalone requests and sub-requests alike, so a part meets the same checks as the request sent alone (MB-SUB-1). */
public final class Router {
    static final Set<String> KNOWN_METHODS = Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH");

    final String localAuthority;
    final Resources resources = new Resources();
    final BatchEndpoint batch = new BatchEndpoint(this);

    public Router(String localAuthority) { this.localAuthority = localAuthority; }

    public static boolean isBatchPath(String path) { return Limits.BATCH_PATH.equals(UriRef.routingPath(path)); }

    /** The path of a raw request-target (origin-form or absolute-form), or null. */
    static String rawPath(String target) {
        if (target.startsWith("/")) { int q = target.indexOf('?'); return q < 0 ? target : target.substring(0, q); }
        UriRef u = UriRef.parse(target);
        if (u != null && u.scheme != null && u.authority != null) return u.path.isEmpty() ? "/" : u.path;
        return null;
    }

    public boolean isBatchEndpoint(HttpRequest req) {
        String p = rawPath(req.target);
        return p != null && isBatchPath(p);
    }

    /** Entry point for a standalone request. */
    public HttpResponse handle(HttpRequest req) {
        try {
            prepare(req);
            if (isBatchPath(req.path())) return batch.handle(req);
            return dispatch(req);
        } catch (Problem p) {
            return p.toResponse();
        }
    }

    /** Request-target forms and Host (RFC 9112 3.2). */
    void prepare(HttpRequest req) throws Problem {
        String t = req.target;
        if (t.equals("*")) {
            if (!"OPTIONS".equals(req.method)) throw new Problem(400, null, "bad-request", "Bad request", "the asterisk-form is for OPTIONS only");
            t = "/";
        }
        java.util.List<Fields.Field> hosts = req.headers.all("Host");
        boolean http11 = "HTTP/1.1".equals(req.version);
        if (hosts.size() > 1 || (http11 && hosts.isEmpty()))
            throw new Problem(400, null, "bad-host", "Bad Host", "an HTTP/1.1 request has exactly one Host field");
        String auth = hosts.isEmpty() ? localAuthority : hosts.get(0).value;
        if (!auth.isEmpty() && !UriRef.validAuthority(auth, false))
            throw new Problem(400, null, "bad-host", "Bad Host", "the Host field is not a valid uri-host [ \":\" port ]");
        if (!t.startsWith("/")) {
            UriRef u = UriRef.parse(t);
            if (u == null || u.scheme == null || u.authority == null || u.fragment != null)
                throw new Problem(400, null, "bad-request", "Bad request-target", "the request-target is neither origin-form nor absolute-form");
            auth = u.authority; // RFC 9112 3.2.2: the absolute-form's authority replaces Host
            t = u.originForm();
        } else if (UriRef.parse(t) == null) {
            throw new Problem(400, null, "bad-request", "Bad request-target", "the request-target is not a valid origin-form");
        }
        req.target = t;
        req.authority = auth;
    }

    /** Dispatches a standalone request or a sub-request to a resource. */
    public HttpResponse dispatch(HttpRequest req) {
        String path = UriRef.routingPath(req.path());
        HttpResponse r;
        try {
            if (path.startsWith("/res/")) r = resources.handle(req, path);
            else r = notFound();
        } catch (Problem p) {
            r = p.toResponse();
        }
        return r;
    }

    static HttpResponse notFound() {
        return HttpResponse.text(404, "application/problem+json", "{\"type\":\"about:blank\",\"title\":\"Not Found\",\"status\":404}");
    }
}
