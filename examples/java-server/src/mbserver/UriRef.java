package mbserver;

/** RFC 3986 URI references: strict syntax check (4.1), strict resolution (5.2), dot-segment removal. */
public final class UriRef {
    public String scheme;     // null for a relative reference
    public String authority;  // null when absent
    public String path = "";
    public String query;      // null when absent
    public String fragment;   // null when absent

    public boolean isAbsolute() { return scheme != null; }

    /** Parses a URI-reference, or returns null when the text is not one. */
    public static UriRef parse(String s) {
        UriRef u = new UriRef();
        int i = 0, n = s.length();
        // scheme
        int colon = -1;
        for (int k = 0; k < n; k++) {
            char c = s.charAt(k);
            if (c == ':') { colon = k; break; }
            if (c == '/' || c == '?' || c == '#') break;
        }
        if (colon >= 0) {
            String sch = s.substring(0, colon);
            if (!validScheme(sch)) return null; // a relative-ref's first segment cannot hold ':' either
            u.scheme = sch;
            i = colon + 1;
        }
        int end = n;
        int hash = s.indexOf('#', i);
        if (hash >= 0) { u.fragment = s.substring(hash + 1); end = hash; if (!validQF(u.fragment)) return null; }
        int q = s.indexOf('?', i);
        if (q >= 0 && q < end) { u.query = s.substring(q + 1, end); end = q; if (!validQF(u.query)) return null; }
        String hier = s.substring(i, end);
        if (hier.startsWith("//")) {
            int slash = hier.indexOf('/', 2);
            String auth = slash < 0 ? hier.substring(2) : hier.substring(2, slash);
            if (!validAuthority(auth, true)) return null;
            u.authority = auth;
            u.path = slash < 0 ? "" : hier.substring(slash);
        } else {
            u.path = hier;
        }
        if (!validPath(u.path)) return null;
        return u;
    }

    static boolean validScheme(String s) {
        if (s.isEmpty()) return false;
        char c0 = s.charAt(0);
        if (!((c0 >= 'a' && c0 <= 'z') || (c0 >= 'A' && c0 <= 'Z'))) return false;
        for (int k = 1; k < s.length(); k++) {
            char c = s.charAt(k);
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.')) return false;
        }
        return true;
    }

    static boolean unreserved(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
    }
    static boolean subDelim(char c) { return "!$&'()*+,;=".indexOf(c) >= 0; }
    static boolean hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

    /** Checks chars of s: unreserved, sub-delims, pct-encoded, and the extra allowed characters. */
    static boolean validChars(String s, String extra) {
        for (int k = 0; k < s.length(); k++) {
            char c = s.charAt(k);
            if (c == '%') {
                if (k + 2 >= s.length() || !hex(s.charAt(k + 1)) || !hex(s.charAt(k + 2))) return false;
                k += 2;
            } else if (!(unreserved(c) || subDelim(c) || extra.indexOf(c) >= 0)) return false;
        }
        return true;
    }

    static boolean validQF(String s) { return validChars(s, ":@/?"); }
    static boolean validPath(String s) { return validChars(s, ":@/"); }

    /** authority = [ userinfo "@" ] host [ ":" port ]. */
    public static boolean validAuthority(String a, boolean allowUserinfo) {
        int at = a.indexOf('@');
        if (at >= 0) {
            if (!allowUserinfo) return false;
            if (!validChars(a.substring(0, at), ":")) return false;
            a = a.substring(at + 1);
        }
        String host, port = null;
        if (a.startsWith("[")) {
            int close = a.indexOf(']');
            if (close < 0) return false;
            host = a.substring(0, close + 1);
            String rest = a.substring(close + 1);
            if (!rest.isEmpty()) { if (rest.charAt(0) != ':') return false; port = rest.substring(1); }
            if (!validIpLiteral(host.substring(1, host.length() - 1))) return false;
        } else {
            int c = a.indexOf(':');
            host = c < 0 ? a : a.substring(0, c);
            if (c >= 0) port = a.substring(c + 1);
            if (!validChars(host, "")) return false;
        }
        if (port != null) for (int k = 0; k < port.length(); k++) if (port.charAt(k) < '0' || port.charAt(k) > '9') return false;
        return true;
    }

    static boolean validIpLiteral(String s) {
        if (s.startsWith("v") || s.startsWith("V")) { // IPvFuture
            int dot = s.indexOf('.');
            if (dot < 2) return false;
            for (int k = 1; k < dot; k++) if (!hex(s.charAt(k))) return false;
            String rest = s.substring(dot + 1);
            if (rest.isEmpty()) return false;
            for (int k = 0; k < rest.length(); k++) { char c = rest.charAt(k); if (!(unreserved(c) || subDelim(c) || c == ':')) return false; }
            return true;
        }
        return validIpv6(s);
    }

    static boolean validIpv4(String s) {
        String[] p = s.split("\\.", -1);
        if (p.length != 4) return false;
        for (String o : p) {
            if (o.isEmpty() || o.length() > 3 || !Ascii.isDigits(o)) return false;
            if (o.length() > 1 && o.charAt(0) == '0') return false;
            if (Integer.parseInt(o) > 255) return false;
        }
        return true;
    }

    static boolean validIpv6(String s) {
        if (s.isEmpty()) return false;
        int dbl = s.indexOf("::");
        if (dbl >= 0 && s.indexOf("::", dbl + 1) >= 0) return false;
        String[] groups;
        int count = 0;
        String head = dbl >= 0 ? s.substring(0, dbl) : s;
        String tail = dbl >= 0 ? s.substring(dbl + 2) : "";
        java.util.List<String> all = new java.util.ArrayList<>();
        if (!head.isEmpty()) for (String g : head.split(":", -1)) all.add(g);
        int headCount = all.size();
        if (!tail.isEmpty()) for (String g : tail.split(":", -1)) all.add(g);
        for (int k = 0; k < all.size(); k++) {
            String g = all.get(k);
            boolean last = k == all.size() - 1;
            if (last && g.contains(".")) {
                if (!validIpv4(g)) return false;
                count += 2;
                continue;
            }
            if (g.isEmpty() || g.length() > 4) return false;
            for (int j = 0; j < g.length(); j++) if (!hex(g.charAt(j))) return false;
            count++;
        }
        if (dbl >= 0) return count <= 7;
        return count == 8;
    }

    /** RFC 3986 5.2.2, strict: a scheme in the reference is never ignored. */
    public static UriRef resolve(UriRef base, UriRef r) {
        UriRef t = new UriRef();
        if (r.scheme != null) {
            t.scheme = r.scheme; t.authority = r.authority; t.path = removeDotSegments(r.path); t.query = r.query;
        } else {
            if (r.authority != null) {
                t.authority = r.authority; t.path = removeDotSegments(r.path); t.query = r.query;
            } else {
                if (r.path.isEmpty()) {
                    t.path = base.path;
                    t.query = r.query != null ? r.query : base.query;
                } else {
                    if (r.path.startsWith("/")) t.path = removeDotSegments(r.path);
                    else t.path = removeDotSegments(merge(base, r.path));
                    t.query = r.query;
                }
                t.authority = base.authority;
            }
            t.scheme = base.scheme;
        }
        t.fragment = r.fragment;
        return t;
    }

    static String merge(UriRef base, String path) {
        if (base.authority != null && base.path.isEmpty()) return "/" + path;
        int slash = base.path.lastIndexOf('/');
        return slash < 0 ? path : base.path.substring(0, slash + 1) + path;
    }

    /** RFC 3986 5.2.4. */
    public static String removeDotSegments(String in) {
        StringBuilder out = new StringBuilder();
        String s = in;
        while (!s.isEmpty()) {
            if (s.startsWith("../")) s = s.substring(3);
            else if (s.startsWith("./")) s = s.substring(2);
            else if (s.startsWith("/./")) s = s.substring(2);
            else if (s.equals("/.")) s = "/";
            else if (s.startsWith("/../")) { s = s.substring(3); cutLast(out); }
            else if (s.equals("/..")) { s = "/"; cutLast(out); }
            else if (s.equals(".") || s.equals("..")) s = "";
            else {
                int start = s.startsWith("/") ? 1 : 0;
                int next = s.indexOf('/', start);
                if (next < 0) next = s.length();
                out.append(s, 0, next);
                s = s.substring(next);
            }
        }
        return out.toString();
    }

    private static void cutLast(StringBuilder out) {
        int k = out.lastIndexOf("/");
        out.setLength(k < 0 ? 0 : k);
    }

    /** Origin-form of the path and query ("/" for an empty path). */
    public String originForm() {
        String p = path.isEmpty() ? "/" : path;
        return query == null ? p : p + "?" + query;
    }

    @Override public String toString() {
        StringBuilder sb = new StringBuilder();
        if (scheme != null) sb.append(scheme).append(':');
        if (authority != null) sb.append("//").append(authority);
        sb.append(path);
        if (query != null) sb.append('?').append(query);
        if (fragment != null) sb.append('#').append(fragment);
        return sb.toString();
    }

    /** Decodes percent-encoded unreserved characters (RFC 3986 6.2.2.2) and nothing else; upper-cases the hex of the others. */
    public static String normalizePercent(String p) {
        StringBuilder sb = new StringBuilder(p.length());
        for (int k = 0; k < p.length(); k++) {
            char c = p.charAt(k);
            if (c == '%' && k + 2 < p.length() && hex(p.charAt(k + 1)) && hex(p.charAt(k + 2))) {
                char d = (char) Integer.parseInt(p.substring(k + 1, k + 3), 16);
                if (unreserved(d)) sb.append(d);
                else sb.append('%').append(Character.toUpperCase(p.charAt(k + 1))).append(Character.toUpperCase(p.charAt(k + 2)));
                k += 2;
            } else sb.append(c);
        }
        return sb.toString();
    }

    /** The path a router sees: unreserved characters decoded, dot segments removed. */
    public static String routingPath(String path) {
        String p = removeDotSegments(normalizePercent(path));
        return p.isEmpty() ? "/" : p;
    }
}
