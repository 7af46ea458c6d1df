package mbserver;

/** The batch-on-error preference (RFC 7240 2; MB-PROC-5, MB-PROC-11, MB-PROC-13). */
public final class Prefer {
    private Prefer() {}

    /** "stop", "continue", or null when the first batch-on-error instance is absent or unrecognised. */
    public static String batchOnError(String field) {
        if (field == null) return null;
        int i = 0, n = field.length();
        while (i < n) {
            // one preference: token [ BWS "=" BWS word ] *( OWS ";" [ OWS parameter ] ), up to a top-level comma
            while (i < n && (Ascii.isOws(field.charAt(i)) || field.charAt(i) == ',')) i++;
            if (i >= n) break;
            int st = i;
            while (i < n && Ascii.isTchar(field.charAt(i))) i++;
            String name = field.substring(st, i);
            String value = null;
            boolean hasValue = false;
            int j = i;
            while (j < n && Ascii.isOws(field.charAt(j))) j++;
            if (j < n && field.charAt(j) == '=') {
                hasValue = true;
                j++;
                while (j < n && Ascii.isOws(field.charAt(j))) j++;
                if (j < n && field.charAt(j) == '"') {
                    int[] pos = {j};
                    try { value = MediaType.quotedString(field, pos); } catch (MediaType.Syntax e) { value = null; pos[0] = n; }
                    j = pos[0];
                } else {
                    int vs = j;
                    while (j < n && Ascii.isTchar(field.charAt(j))) j++;
                    value = field.substring(vs, j);
                }
            }
            i = j;
            // skip the parameters and anything else up to the next top-level comma
            while (i < n && field.charAt(i) != ',') {
                if (field.charAt(i) == '"') {
                    int[] pos = {i};
                    try { MediaType.quotedString(field, pos); i = pos[0]; } catch (MediaType.Syntax e) { i = n; }
                } else i++;
            }
            if (!name.isEmpty() && Ascii.equalsIgnoreCase(name, "batch-on-error")) {
                if (!hasValue || value == null) return null;
                if (Ascii.equalsIgnoreCase(value, "stop")) return "stop";
                if (Ascii.equalsIgnoreCase(value, "continue")) return "continue";
                return null; // the first instance decides (RFC 7240 2)
            }
        }
        return null;
    }
}
