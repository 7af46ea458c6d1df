package mbserver;

import java.util.ArrayList;
import java.util.List;

/** Media types with parameters (RFC 9110 8.3.1, 5.6.6) and the batch boundary rules (MB-WIRE-3, MB-WIRE-4). */
public final class MediaType {
    public String type;      // lower case
    public String subtype;   // lower case
    public final List<String[]> params = new ArrayList<>(); // [lower-case name, unquoted value]

    public static final class Syntax extends Exception {
        Syntax(String m) { super(m, null, false, false); }
    }

    /** Parses one media-type; the whole string must be consumed. */
    public static MediaType parse(String s) throws Syntax {
        int[] pos = {0};
        MediaType m = parseAt(s, pos, false);
        if (pos[0] != s.length()) throw new Syntax("unexpected text after the media type");
        return m;
    }

    /** Parses a media type (or media range when ranges is true) starting at pos[0], stopping before a top-level ',' or the end. */
    static MediaType parseAt(String s, int[] pos, boolean ranges) throws Syntax {
        int i = pos[0];
        int n = s.length();
        while (i < n && Ascii.isOws(s.charAt(i))) i++;
        int st = i;
        while (i < n && Ascii.isTchar(s.charAt(i))) i++;
        MediaType m = new MediaType();
        m.type = Ascii.lower(s.substring(st, i));
        if (m.type.isEmpty() || i >= n || s.charAt(i) != '/') throw new Syntax("no type/subtype");
        i++;
        st = i;
        while (i < n && Ascii.isTchar(s.charAt(i))) i++;
        m.subtype = Ascii.lower(s.substring(st, i));
        if (m.subtype.isEmpty()) throw new Syntax("no subtype");
        if (!ranges && (m.type.equals("*") || m.subtype.equals("*"))) throw new Syntax("a media range is not a media type");
        if (ranges && m.type.equals("*") && !m.subtype.equals("*")) throw new Syntax("*/subtype is no media range");
        // parameters = *( OWS ";" OWS [ parameter ] )
        while (true) {
            int save = i;
            while (i < n && Ascii.isOws(s.charAt(i))) i++;
            if (i >= n || (ranges && s.charAt(i) == ',')) { i = save; break; }
            if (s.charAt(i) != ';') throw new Syntax("expected ';'");
            i++;
            while (i < n && Ascii.isOws(s.charAt(i))) i++;
            if (i >= n || s.charAt(i) == ';' || (ranges && s.charAt(i) == ',')) continue; // empty parameter
            st = i;
            while (i < n && Ascii.isTchar(s.charAt(i))) i++;
            String name = s.substring(st, i);
            if (name.isEmpty()) throw new Syntax("parameter without a name");
            if (i >= n || s.charAt(i) != '=') throw new Syntax("parameter without '='");
            i++;
            String value;
            if (i < n && s.charAt(i) == '"') {
                int[] p2 = {i};
                value = quotedString(s, p2);
                i = p2[0];
            } else {
                st = i;
                while (i < n && Ascii.isTchar(s.charAt(i))) i++;
                value = s.substring(st, i);
                if (value.isEmpty()) throw new Syntax("parameter without a value");
            }
            m.params.add(new String[] {Ascii.lower(name), value});
        }
        // trailing OWS
        while (i < n && Ascii.isOws(s.charAt(i))) i++;
        pos[0] = i;
        return m;
    }

    /** Reads a quoted-string at pos[0] (which holds the DQUOTE) and returns its unescaped content. */
    public static String quotedString(String s, int[] pos) throws Syntax {
        int i = pos[0] + 1, n = s.length();
        StringBuilder sb = new StringBuilder();
        while (true) {
            if (i >= n) throw new Syntax("unterminated quoted-string");
            char c = s.charAt(i++);
            if (c == '"') break;
            if (c == '\\') {
                if (i >= n) throw new Syntax("unterminated quoted-pair");
                char d = s.charAt(i++);
                if (d != '\t' && (d < 0x20 || d == 0x7f)) throw new Syntax("invalid quoted-pair");
                sb.append(d);
            } else {
                if (c != '\t' && (c < 0x20 || c == 0x7f)) throw new Syntax("invalid octet in quoted-string");
                sb.append(c);
            }
        }
        pos[0] = i;
        return sb.toString();
    }

    public List<String> param(String name) {
        List<String> r = new ArrayList<>();
        for (String[] p : params) if (p[0].equals(name)) r.add(p[1]);
        return r;
    }

    public boolean is(String t, String st) { return type.equals(t) && subtype.equals(st); }

    static boolean bchar(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || "'()+_,-./:=? ".indexOf(c) >= 0;
    }

    /** Returns null when the boundary is valid, else the reason (MB-WIRE-3). */
    public static String boundaryFault(String b) {
        if (b.isEmpty()) return "the boundary is empty";
        if (b.length() > Limits.MAX_BOUNDARY_LENGTH) return "the boundary is longer than 70 characters";
        for (int i = 0; i < b.length(); i++) if (!bchar(b.charAt(i))) return "the boundary holds a character outside bchars";
        if (b.charAt(b.length() - 1) == ' ') return "the boundary ends in a space";
        return null;
    }
}
