package mbserver;

import java.util.ArrayList;
import java.util.List;

/**
 * The multipart/mixed envelope parser of a batch request (spec 3.1, 3.2): strict CRLF framing,
 * transport padding, preamble and epilogue, exact delimiter lines, part header sections,
 * Content-Length checks and the per-batch limits. Every fault is a Problem carrying the
 * requirement, part index and byte offset of spec 5.3.
 */
public final class Envelope {
    private Envelope() {}

    /** The limits a parse applies (the published ones, or a vector's). */
    public static final class Config {
        public int maxParts = Limits.MAX_PARTS;
        public long maxPartBytes = Limits.MAX_PART_BYTES;
        public int maxPartHeaderBytes = Limits.MAX_PART_HEADER_BYTES;
        public int maxPartFields = Limits.MAX_PART_FIELDS;
    }

    public static final class Part {
        public int index;
        public int delimiterOffset;   // the first '-' of the delimiter line that opened the part
        public int headerStart;       // first octet of the header section
        public final Fields fields = new Fields();
        public int bodyStart;
        public int bodyLength;
        public String method;
        public int methodOffset;
        public String contentId;      // the field value, OWS removed, '<' and '>' included
        public int contentIdOffset;
    }

    static final String[] FORBIDDEN = {"Connection", "Keep-Alive", "Proxy-Connection", "TE", "Transfer-Encoding",
            "Upgrade", "Expect", "Host", "Trailer", "Content-Transfer-Encoding", "Http-Status-Code"};

    static Problem malformed(String req, String title, String detail, int part, long offset) {
        return new Problem(400, req, "malformed-batch", title, detail).at(part, offset);
    }

    static boolean startsWith(byte[] c, int at, byte[] p) {
        if (at < 0 || at + p.length > c.length) return false;
        for (int i = 0; i < p.length; i++) if (c[at + i] != p[i]) return false;
        return true;
    }

    static boolean crlf(byte[] c, int at) { return at + 1 < c.length && c[at] == '\r' && c[at + 1] == '\n'; }

    public static List<Part> parse(byte[] c, String boundary, Config cfg) throws Problem {
        final int len = c.length;
        final byte[] dash = Ascii.latin1("--" + boundary);
        List<Part> parts = new ArrayList<>();

        // The first delimiter: a dash-boundary at the start of the content or of a preamble line.
        int pos = -1;
        for (int i = 0; i <= len; ) {
            if (startsWith(c, i, dash)) {
                if (i > 0 && c[i - 1] == '\n' && (i < 2 || c[i - 2] != '\r'))
                    throw malformed("MB-WIRE-8", "Bare LF in a delimiter line",
                            "the preamble line before the delimiter at byte " + i + " ends with a bare LF", 0, i);
                pos = i;
                break;
            }
            int lf = indexOf(c, (byte) '\n', i);
            if (lf < 0) break;
            i = lf + 1;
        }
        if (pos < 0)
            throw malformed("MB-WIRE-18", "Empty batch", "the content holds no delimiter line, so no part", 0, len);

        while (true) {
            final int k = parts.size();
            int q = pos + dash.length;
            if (q + 1 < len && c[q] == '-' && c[q + 1] == '-') {
                int r = q + 2;
                while (r < len && (c[r] == ' ' || c[r] == '\t')) r++;
                if (!(r == len || crlf(c, r))) {
                    if (c[r] == '\n' || c[r] == '\r')
                        throw malformed("MB-WIRE-8", "Bare LF in a delimiter line", "the close delimiter line at byte " + pos + " does not end with CRLF", k, pos);
                    throw malformed("MB-WIRE-19", "Text after a boundary delimiter", "the close delimiter line at byte " + pos + " carries text after the dash-boundary", k, pos);
                }
                if (k == 0) throw malformed("MB-WIRE-18", "Empty batch", "the first delimiter is the close delimiter", 0, pos);
                return parts; // the epilogue is ignored (MB-WIRE-9)
            }
            int r = q;
            while (r < len && (c[r] == ' ' || c[r] == '\t')) r++;
            if (r == len || (r == len - 1 && c[r] == '\r'))
                throw malformed("MB-WIRE-13", "Missing close delimiter", "the content ends on a delimiter line", k, len);
            if (!crlf(c, r)) {
                if (c[r] == '\n' || c[r] == '\r')
                    throw malformed("MB-WIRE-8", "Bare LF in a delimiter line", "the delimiter line at byte " + pos + " does not end with CRLF", k, pos);
                throw malformed("MB-WIRE-19", "Text after a boundary delimiter", "the delimiter line at byte " + pos + " carries text after the dash-boundary", k, pos);
            }
            if (k >= cfg.maxParts)
                throw new Problem(413, "MB-STATUS-3", "too-many-parts", "Too many parts",
                        "the batch has more than " + cfg.maxParts + " parts").at(k, pos).limit("max_parts", cfg.maxParts);
            Part part = new Part();
            part.index = k;
            part.delimiterOffset = pos;
            final int h = r + 2;
            part.headerStart = h;

            // Header section.
            int ls = h, fieldCount = 0;
            boolean hasBody;
            int nextCr; // the CR that begins the next delimiter
            while (true) {
                if (ls >= len) throw malformed("MB-WIRE-13", "Missing close delimiter", "the content ends in a part header section", k, len);
                if (crlf(c, ls) && startsWith(c, ls + 2, dash)) { hasBody = false; nextCr = ls; break; }
                if (crlf(c, ls)) { hasBody = true; nextCr = -1; break; }
                if (c[ls] == '\n' || c[ls] == '\r')
                    throw malformed("MB-WIRE-8", "Bare LF in a part header section", "the empty line at byte " + ls + " does not end with CRLF", k, ls);
                if (startsWith(c, ls, dash))
                    throw malformed("MB-PART-11", "Invalid part header line", "a delimiter line at byte " + ls + " lies inside a part header section", k, ls);
                int e = ls;
                while (e < len && c[e] != '\r' && c[e] != '\n') e++;
                if (e == len || (e == len - 1 && c[e] == '\r'))
                    throw malformed("MB-WIRE-13", "Missing close delimiter", "the content ends in a part header line", k, len);
                if (!crlf(c, e))
                    throw malformed("MB-WIRE-8", "Bare LF in a part header section",
                            "the header line at byte " + ls + " of part " + k + " ends with a bare " + (c[e] == '\n' ? "LF" : "CR") + "; part header lines end with CRLF", k, ls);
                fieldCount++;
                if (e + 2 - h > cfg.maxPartHeaderBytes)
                    throw new Problem(431, "MB-STATUS-3", "part-header-section-too-large", "Part header section too large",
                            "the header section of part " + k + " exceeds " + cfg.maxPartHeaderBytes + " octets").at(k, h).limit("max_part_header_bytes", cfg.maxPartHeaderBytes);
                if (fieldCount > cfg.maxPartFields)
                    throw new Problem(431, "MB-LIMIT-5", "too-many-part-fields", "Too many fields in a part header section",
                            "the header section of part " + k + " has more than " + cfg.maxPartFields + " field lines").at(k, h).limit("max_part_fields", cfg.maxPartFields);
                String line = Ascii.latin1(c, ls, e - ls);
                String fault = fieldLineFault(line);
                if (fault != null)
                    throw malformed("MB-PART-11", "Invalid part header line", "the header line at byte " + ls + " of part " + k + " " + fault, k, ls);
                int colon = line.indexOf(':');
                part.fields.add(line.substring(0, colon), Ascii.trimOws(line.substring(colon + 1)), ls);
                ls = e + 2;
            }

            checkFields(part);

            if (hasBody) {
                part.bodyStart = ls + 2;
                int j = part.bodyStart;
                int found = -1;
                while (true) {
                    int lf = indexOf(c, (byte) '\n', j);
                    if (lf < 0) break;
                    if (startsWith(c, lf + 1, dash)) {
                        if (lf - 1 >= part.bodyStart && c[lf - 1] == '\r') { found = lf - 1; break; }
                        throw malformed("MB-WIRE-8", "Bare LF in a delimiter line",
                                "the delimiter line at byte " + (lf + 1) + " follows a bare LF", k + 1, lf + 1);
                    }
                    j = lf + 1;
                }
                if (found < 0) throw malformed("MB-WIRE-13", "Missing close delimiter", "the content ends in the body of part " + k, k, len);
                nextCr = found;
                part.bodyLength = found - part.bodyStart;
            } else {
                part.bodyStart = nextCr;
                part.bodyLength = 0;
            }
            if (part.bodyLength > cfg.maxPartBytes)
                throw new Problem(413, "MB-STATUS-3", "part-too-large", "Part body too large",
                        "the body of part " + k + " exceeds " + cfg.maxPartBytes + " octets").at(k, h).limit("max_part_bytes", cfg.maxPartBytes);
            for (Fields.Field f : part.fields.list) {
                if (!Fields.nameEq(f.name, "Content-Length")) continue;
                String v = f.value;
                String stripped = v.replaceFirst("^0+(?=.)", "");
                if (stripped.length() > 18 || Long.parseLong(stripped) != part.bodyLength)
                    throw malformed("MB-WIRE-17", "Content-Length mismatch", "part " + k + " declares Content-Length " + v
                            + " but its body has " + part.bodyLength + " octets", k, f.offset);
            }
            parts.add(part);
            pos = nextCr + 2;
        }
    }

    /** Requirements on the fields of one request part: Http-Method, Content-Id, forbidden fields, Content-Length syntax. */
    static void checkFields(Part p) throws Problem {
        int k = p.index;
        List<Fields.Field> m = p.fields.all("Http-Method");
        if (m.isEmpty()) throw malformed("MB-PART-2", "Missing Http-Method", "part " + k + " has no Http-Method field", k, p.headerStart);
        if (m.size() > 1) throw malformed("MB-PART-2", "Repeated Http-Method", "part " + k + " has more than one Http-Method field", k, m.get(1).offset);
        if (!Ascii.isToken(m.get(0).value)) throw malformed("MB-PART-2", "Invalid Http-Method", "the Http-Method of part " + k + " is not a method token", k, m.get(0).offset);
        p.method = m.get(0).value;
        p.methodOffset = m.get(0).offset;
        List<Fields.Field> ci = p.fields.all("Content-Id");
        if (ci.isEmpty()) throw malformed("MB-PART-4", "Missing Content-Id", "part " + k + " has no Content-Id field", k, p.headerStart);
        if (ci.size() > 1) throw malformed("MB-PART-4", "Repeated Content-Id", "part " + k + " has more than one Content-Id field", k, ci.get(1).offset);
        String v = ci.get(0).value;
        if (v.length() < 2 || v.charAt(0) != '<' || v.charAt(v.length() - 1) != '>' || UriRef.parse(v.substring(1, v.length() - 1)) == null)
            throw malformed("MB-PART-4", "Invalid Content-Id", "the Content-Id of part " + k + " is not \"<\" URI-reference \">\"", k, ci.get(0).offset);
        p.contentId = v;
        p.contentIdOffset = ci.get(0).offset;
        for (Fields.Field f : p.fields.list) {
            for (String bad : FORBIDDEN)
                if (Fields.nameEq(f.name, bad))
                    throw malformed("MB-PART-10", "Forbidden field in a request part", "part " + k + " carries the field " + f.name, k, f.offset);
        }
        List<Fields.Field> cl = p.fields.all("Content-Length");
        if (cl.size() > 1) throw malformed("MB-WIRE-20", "Repeated Content-Length", "part " + k + " has more than one Content-Length field", k, cl.get(1).offset);
        if (cl.size() == 1 && !Ascii.isDigits(cl.get(0).value))
            throw malformed("MB-WIRE-20", "Invalid Content-Length", "the Content-Length of part " + k + " is not 1*DIGIT", k, cl.get(0).offset);
    }

    /** Null when the line is a valid field-line (RFC 9112 5, RFC 9110 5.5), else the reason. */
    static String fieldLineFault(String line) {
        if (Ascii.isOws(line.charAt(0))) return "begins with whitespace (obs-fold)";
        int colon = line.indexOf(':');
        if (colon < 0) return "has no colon";
        if (colon == 0) return "has an empty field name";
        String name = line.substring(0, colon);
        if (Ascii.isOws(name.charAt(name.length() - 1))) return "has whitespace before the colon";
        if (!Ascii.isToken(name)) return "has a field name that is not a token";
        String raw = line.substring(colon + 1);
        for (int i = 0; i < raw.length(); i++) {
            char ch = raw.charAt(i);
            if ((ch < 0x20 && ch != '\t') || ch == 0x7f) return "holds a control octet in its value";
        }
        return null;
    }

    static int indexOf(byte[] c, byte b, int from) {
        for (int i = Math.max(from, 0); i < c.length; i++) if (c[i] == b) return i;
        return -1;
    }
}
