package mbserver;

import java.nio.charset.StandardCharsets;

/** US-ASCII helpers that never apply Unicode case folding. */
public final class Ascii {
    private Ascii() {}

    public static char lower(char c) { return (c >= 'A' && c <= 'Z') ? (char) (c + 32) : c; }

    public static String lower(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) sb.append(lower(s.charAt(i)));
        return sb.toString();
    }

    public static boolean equalsIgnoreCase(String a, String b) {
        if (a == null || b == null || a.length() != b.length()) return false;
        for (int i = 0; i < a.length(); i++) if (lower(a.charAt(i)) != lower(b.charAt(i))) return false;
        return true;
    }

    public static boolean isTchar(int c) {
        if (c >= '0' && c <= '9') return true;
        if (c >= 'a' && c <= 'z') return true;
        if (c >= 'A' && c <= 'Z') return true;
        return "!#$%&'*+-.^_`|~".indexOf(c) >= 0 && c != 0;
    }

    public static boolean isToken(String s) {
        if (s == null || s.isEmpty()) return false;
        for (int i = 0; i < s.length(); i++) if (!isTchar(s.charAt(i))) return false;
        return true;
    }

    public static boolean isDigits(String s) {
        if (s == null || s.isEmpty()) return false;
        for (int i = 0; i < s.length(); i++) { char c = s.charAt(i); if (c < '0' || c > '9') return false; }
        return true;
    }

    public static boolean isOws(int c) { return c == ' ' || c == '\t'; }

    /** Remove SP and HTAB, and nothing else, from both ends. */
    public static String trimOws(String s) {
        int a = 0, b = s.length();
        while (a < b && isOws(s.charAt(a))) a++;
        while (b > a && isOws(s.charAt(b - 1))) b--;
        return s.substring(a, b);
    }

    public static String latin1(byte[] b, int off, int len) { return new String(b, off, len, StandardCharsets.ISO_8859_1); }
    public static byte[] latin1(String s) { return s.getBytes(StandardCharsets.ISO_8859_1); }
    public static byte[] utf8(String s) { return s.getBytes(StandardCharsets.UTF_8); }
}
