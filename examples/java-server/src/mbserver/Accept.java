package mbserver;

import java.util.ArrayList;
import java.util.List;

/** Proactive negotiation by Accept (RFC 9110 12.5.1), as MB-MULTI-1 and MB-STATUS-9 use it. */
public final class Accept {
    static final class Range { String type, subtype; double q; int specificity; }

    private final List<Range> ranges = new ArrayList<>();
    /** True when the field is absent or holds no valid element: every representation is acceptable. */
    public final boolean absent;

    public Accept(String field) {
        if (field != null) {
            for (String el : splitList(field)) {
                if (Ascii.trimOws(el).isEmpty()) continue; // empty list elements are no fault (RFC 9110 5.6.1)
                try {
                    int[] pos = {0};
                    MediaType m = MediaType.parseAt(el, pos, true);
                    if (pos[0] != el.length()) continue;
                    Range r = new Range();
                    r.type = m.type; r.subtype = m.subtype; r.q = 1.0;
                    r.specificity = m.type.equals("*") ? 0 : m.subtype.equals("*") ? 1 : 2;
                    boolean bad = false;
                    for (String[] p : m.params) {
                        if (p[0].equals("q")) {
                            Double q = qvalue(p[1]);
                            if (q == null) bad = true; else r.q = q;
                            break; // parameters after the weight are accept-ext
                        }
                    }
                    if (!bad) ranges.add(r);
                } catch (MediaType.Syntax e) {
                    // an element that is no media-range is left out (spec 6.1 lets a server read the valid ones alone)
                }
            }
        }
        absent = ranges.isEmpty();
    }

    static Double qvalue(String v) {
        if (!v.matches("0(\\.[0-9]{0,3})?|1(\\.0{0,3})?")) return null;
        return Double.parseDouble(v.endsWith(".") ? v + "0" : v);
    }

    /** The quality the field gives a media type: the weight of the most specific matching range, 0 when none matches. */
    public double quality(String type, String subtype) {
        if (absent) return 1.0;
        int best = -1;
        double q = 0;
        for (Range r : ranges) {
            boolean match = r.specificity == 0 || (r.type.equals(type) && (r.specificity == 1 || r.subtype.equals(subtype)));
            if (!match) continue;
            if (r.specificity > best) { best = r.specificity; q = r.q; }
            else if (r.specificity == best && r.q > q) q = r.q; // contradictory duplicates: the highest
        }
        return best < 0 ? 0 : q;
    }

    /** Splits a list on commas outside quoted strings. */
    public static List<String> splitList(String s) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (quoted) {
                cur.append(c);
                if (c == '\\' && i + 1 < s.length()) cur.append(s.charAt(++i));
                else if (c == '"') quoted = false;
            } else if (c == '"') { quoted = true; cur.append(c); }
            else if (c == ',') { out.add(cur.toString()); cur.setLength(0); }
            else cur.append(c);
        }
        out.add(cur.toString());
        return out;
    }

    /**
     * Chooses among the offered media types (the first is the default, multipart/mixed):
     * the default whenever its quality is at least as high as any other's; null when none is acceptable.
     */
    public String choose(List<String> offered) {
        double[] q = new double[offered.size()];
        double max = 0;
        for (int i = 0; i < offered.size(); i++) {
            String[] ts = offered.get(i).split("/");
            q[i] = quality(ts[0], ts[1]);
            max = Math.max(max, q[i]);
        }
        if (max <= 0) return null;
        for (int i = 0; i < offered.size(); i++) if (q[i] == max) return offered.get(i);
        return null;
    }
}
