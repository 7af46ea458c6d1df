package mbserver;

import java.util.ArrayList;
import java.util.List;

/** An ordered list of header fields; names compare case-insensitively (ASCII), values are ISO-8859-1 strings (one octet, one char). */
public final class Fields {
    public static final class Field {
        public final String name;
        public final String value;
        public final int offset; // octet offset of the field line in its container, or -1
        public Field(String name, String value, int offset) { this.name = name; this.value = value; this.offset = offset; }
    }

    public final List<Field> list = new ArrayList<>();

    public Fields add(String name, String value) { list.add(new Field(name, value, -1)); return this; }
    public Fields add(String name, String value, int offset) { list.add(new Field(name, value, offset)); return this; }

    public static boolean nameEq(String a, String b) { return Ascii.equalsIgnoreCase(a, b); }

    public String first(String name) {
        for (Field f : list) if (nameEq(f.name, name)) return f.value;
        return null;
    }

    public List<Field> all(String name) {
        List<Field> r = new ArrayList<>();
        for (Field f : list) if (nameEq(f.name, name)) r.add(f);
        return r;
    }

    public int count(String name) {
        int n = 0;
        for (Field f : list) if (nameEq(f.name, name)) n++;
        return n;
    }

    public boolean has(String name) { return first(name) != null; }

    /** Field lines combined with ", " in order (RFC 9110 5.3), or null when absent. */
    public String combined(String name) {
        StringBuilder sb = null;
        for (Field f : list) {
            if (!nameEq(f.name, name)) continue;
            if (sb == null) sb = new StringBuilder(f.value); else sb.append(", ").append(f.value);
        }
        return sb == null ? null : sb.toString();
    }

    public void remove(String name) { list.removeIf(f -> nameEq(f.name, name)); }

    public void set(String name, String value) { remove(name); add(name, value); }
}
