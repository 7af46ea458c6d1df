package mbserver;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A small JSON writer and reader (RFC 8259). */
public final class Json {
    private Json() {}

    public static String quote(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2);
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': sb.append("\\\""); break;
                case '\\': sb.append("\\\\"); break;
                case '\n': sb.append("\\n"); break;
                case '\r': sb.append("\\r"); break;
                case '\t': sb.append("\\t"); break;
                case '\b': sb.append("\\b"); break;
                case '\f': sb.append("\\f"); break;
                default:
                    if (c < 0x20 || c == 0x7f) sb.append(String.format("\\u%04x", (int) c));
                    else sb.append(c);
            }
        }
        return sb.append('"').toString();
    }

    /** A streaming-friendly writer: commas are placed automatically. */
    public static final class Writer {
        private final StringBuilder sb = new StringBuilder();
        private final ArrayList<Boolean> first = new ArrayList<>();
        private boolean afterName;

        private void sep() {
            if (afterName) { afterName = false; return; }
            if (!first.isEmpty()) {
                int k = first.size() - 1;
                if (!first.get(k)) sb.append(',');
                first.set(k, false);
            }
        }
        public Writer beginObject() { sep(); sb.append('{'); first.add(true); return this; }
        public Writer endObject() { sb.append('}'); first.remove(first.size() - 1); return this; }
        public Writer beginArray() { sep(); sb.append('['); first.add(true); return this; }
        public Writer endArray() { sb.append(']'); first.remove(first.size() - 1); return this; }
        public Writer name(String n) { sep(); sb.append(quote(n)).append(':'); afterName = true; return this; }
        public Writer value(String v) { sep(); sb.append(v == null ? "null" : quote(v)); return this; }
        public Writer value(long v) { sep(); sb.append(v); return this; }
        public Writer value(boolean v) { sep(); sb.append(v); return this; }
        public Writer nullValue() { sep(); sb.append("null"); return this; }
        public Writer raw(String json) { sep(); sb.append(json); return this; }
        /** Take what was written so far (for streaming) and keep the nesting state. */
        public String drain() { String s = sb.toString(); sb.setLength(0); return s; }
        @Override public String toString() { return sb.toString(); }
    }

    // ---- reader: objects become LinkedHashMap, arrays ArrayList, numbers Long or Double ----

    public static Object parse(String s) {
        Reader r = new Reader(s);
        r.ws();
        Object v = r.value();
        r.ws();
        if (r.i != s.length()) throw new IllegalArgumentException("trailing data at " + r.i);
        return v;
    }

    private static final class Reader {
        final String s; int i;
        Reader(String s) { this.s = s; }
        void ws() { while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) i++; }
        IllegalArgumentException err(String m) { return new IllegalArgumentException(m + " at " + i); }
        Object value() {
            if (i >= s.length()) throw err("eof");
            char c = s.charAt(i);
            if (c == '{') {
                i++; Map<String, Object> m = new LinkedHashMap<>(); ws();
                if (peek('}')) { i++; return m; }
                while (true) {
                    ws(); String k = str(); ws(); expect(':'); ws(); m.put(k, value()); ws();
                    if (peek(',')) { i++; continue; }
                    expect('}'); return m;
                }
            }
            if (c == '[') {
                i++; List<Object> l = new ArrayList<>(); ws();
                if (peek(']')) { i++; return l; }
                while (true) {
                    ws(); l.add(value()); ws();
                    if (peek(',')) { i++; continue; }
                    expect(']'); return l;
                }
            }
            if (c == '"') return str();
            if (s.startsWith("true", i)) { i += 4; return Boolean.TRUE; }
            if (s.startsWith("false", i)) { i += 5; return Boolean.FALSE; }
            if (s.startsWith("null", i)) { i += 4; return null; }
            int st = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
            String n = s.substring(st, i);
            if (n.isEmpty()) throw err("bad value");
            if (n.contains(".") || n.contains("e") || n.contains("E")) return Double.parseDouble(n);
            return Long.parseLong(n);
        }
        boolean peek(char c) { return i < s.length() && s.charAt(i) == c; }
        void expect(char c) { if (!peek(c)) throw err("expected " + c); i++; }
        String str() {
            expect('"');
            StringBuilder sb = new StringBuilder();
            while (true) {
                if (i >= s.length()) throw err("eof in string");
                char c = s.charAt(i++);
                if (c == '"') return sb.toString();
                if (c == '\\') {
                    char e = s.charAt(i++);
                    switch (e) {
                        case 'n': sb.append('\n'); break;
                        case 'r': sb.append('\r'); break;
                        case 't': sb.append('\t'); break;
                        case 'b': sb.append('\b'); break;
                        case 'f': sb.append('\f'); break;
                        case 'u': sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16)); i += 4; break;
                        default: sb.append(e);
                    }
                } else sb.append(c);
            }
        }
    }
}
