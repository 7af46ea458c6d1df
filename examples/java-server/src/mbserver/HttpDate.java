package mbserver;

import java.time.DateTimeException;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/** Strict HTTP-date parsing (RFC 9110 5.6.7): IMF-fixdate, rfc850-date and asctime-date; anything else is invalid. */
public final class HttpDate {
    private HttpDate() {}

    static final String[] DAYS = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
    static final String[] LONG_DAYS = {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};
    static final String[] MONTHS = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

    /** Epoch milliseconds, or null when the value is not a valid HTTP-date. */
    public static Long parse(String s) {
        try {
            if (s.matches("[A-Z][a-z]{2}, [0-9]{2} [A-Z][a-z]{2} [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT")) {
                if (idx(DAYS, s.substring(0, 3)) < 0) return null;
                return build(num(s, 12, 16), month(s.substring(8, 11)), num(s, 5, 7), num(s, 17, 19), num(s, 20, 22), num(s, 23, 25));
            }
            java.util.regex.Matcher m = java.util.regex.Pattern
                    .compile("([A-Z][a-z]+), ([0-9]{2})-([A-Z][a-z]{2})-([0-9]{2}) ([0-9]{2}):([0-9]{2}):([0-9]{2}) GMT").matcher(s);
            if (m.matches()) {
                if (idx(LONG_DAYS, m.group(1)) < 0) return null;
                int yy = Integer.parseInt(m.group(4));
                int nowYear = LocalDateTime.now(ZoneOffset.UTC).getYear();
                int year = (nowYear / 100) * 100 + yy;
                if (year > nowYear + 50) year -= 100; // RFC 9110 5.6.7: more than 50 years in the future is the past century
                return build(year, month(m.group(3)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(5)),
                        Integer.parseInt(m.group(6)), Integer.parseInt(m.group(7)));
            }
            if (s.matches("[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9][0-9] [0-9]{2}:[0-9]{2}:[0-9]{2} [0-9]{4}")) {
                if (idx(DAYS, s.substring(0, 3)) < 0) return null;
                // date3 = month SP ( 2DIGIT / ( SP DIGIT ) ): "Nov  6" and "Nov 06" alike (RFC 9110 5.6.7).
                int day = Integer.parseInt(s.substring(8, 10).trim());
                return build(num(s, 20, 24), month(s.substring(4, 7)), day, num(s, 11, 13), num(s, 14, 16), num(s, 17, 19));
            }
        } catch (DateTimeException | NumberFormatException e) {
            return null;
        }
        return null;
    }

    static int idx(String[] a, String s) { for (int i = 0; i < a.length; i++) if (a[i].equals(s)) return i; return -1; }
    static int num(String s, int a, int b) { return Integer.parseInt(s.substring(a, b)); }
    static int month(String m) { int i = idx(MONTHS, m); if (i < 0) throw new DateTimeException("month"); return i + 1; }

    static Long build(int y, int mo, int d, int h, int mi, int sec) {
        if (sec == 60) sec = 59; // a leap second
        return LocalDateTime.of(y, mo, d, h, mi, sec).toInstant(ZoneOffset.UTC).toEpochMilli();
    }
}
