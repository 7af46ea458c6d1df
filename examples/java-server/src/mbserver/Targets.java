package mbserver;

import java.math.BigInteger;

/** Target resolution and the target checks of spec 3.2.2, 8.3 and 8.4 (MB-PART-5, MB-SUB-2, MB-SUB-3, MB-SUB-4, MB-SUB-8). */
public final class Targets {
    private Targets() {}

    /** Checks one part and returns its resolved origin-form target. */
    public static String check(Envelope.Part p, UriRef base, String batchAuthority, String batchPath) throws Problem {
        int k = p.index;
        if ("CONNECT".equals(p.method) || "TRACE".equals(p.method))
            throw Envelope.malformed("MB-SUB-3", "Forbidden method in a part", "part " + k + " uses the method " + p.method, k, p.methodOffset);
        if ("<*>".equals(p.contentId))
            throw Envelope.malformed("MB-SUB-8", "Asterisk target", "part " + k + " targets <*>", k, p.contentIdOffset);
        String text = p.contentId.substring(1, p.contentId.length() - 1);
        UriRef ref = UriRef.parse(text);
        if (ref.fragment != null)
            throw Envelope.malformed("MB-SUB-2", "Fragment in a target", "the target of part " + k + " has a fragment", k, p.contentIdOffset);
        if (ref.scheme == null && ref.authority != null)
            throw Envelope.malformed("MB-SUB-2", "Network-path reference", "the target of part " + k + " is a network-path reference", k, p.contentIdOffset);
        UriRef t = UriRef.resolve(base, ref);
        if (!sameOrigin(t, base.scheme, batchAuthority))
            throw Envelope.malformed("MB-SUB-2", "Target on another origin", "the target of part " + k + " resolves to " + t + ", not on the batch request's origin", k, p.contentIdOffset);
        if (UriRef.routingPath(t.path).equals(batchPath))
            throw Envelope.malformed("MB-SUB-4", "Nested batch", "the target of part " + k + " is the batch endpoint", k, p.contentIdOffset);
        return t.originForm();
    }

    static boolean sameOrigin(UriRef t, String scheme, String batchAuthority) {
        if (t.scheme == null || !Ascii.equalsIgnoreCase(t.scheme, scheme)) return false;
        if (t.authority == null || t.authority.indexOf('@') >= 0) return false;
        String[] a = hostPort(t.authority), b = hostPort(batchAuthority);
        if (a == null || b == null || a[0].isEmpty()) return false;
        if (!Ascii.equalsIgnoreCase(a[0], b[0])) return false;
        return port(a[1], scheme).equals(port(b[1], scheme));
    }

    /** Splits host[:port]; the port is "" when absent or empty. */
    static String[] hostPort(String auth) {
        String host, port = "";
        if (auth.startsWith("[")) {
            int close = auth.indexOf(']');
            if (close < 0) return null;
            host = auth.substring(0, close + 1);
            if (close + 1 < auth.length()) {
                if (auth.charAt(close + 1) != ':') return null;
                port = auth.substring(close + 2);
            }
        } else {
            int c = auth.lastIndexOf(':');
            host = c < 0 ? auth : auth.substring(0, c);
            port = c < 0 ? "" : auth.substring(c + 1);
        }
        return new String[] {host, port};
    }

    static BigInteger port(String p, String scheme) {
        if (p.isEmpty()) return BigInteger.valueOf(Ascii.equalsIgnoreCase(scheme, "https") ? 443 : 80);
        return new BigInteger(p);
    }
}
