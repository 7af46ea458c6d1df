package mbserver;

import java.util.List;

/** What the server claims: profiles, representations, and the capabilities document of MB-LIMIT-2. */
public final class Capabilities {
    private Capabilities() {}

    public static final List<String> PROFILES = List.of("core", "pipelining", "limits", "error-policy", "json", "conditional", "collection-get");
    public static final String MULTIPART = "multipart/mixed";
    public static final String JSON_FORM = "application/vnd.mixbatch.multistatus+json";
    public static final String XML_FORM = "application/xml";
    public static final List<String> REPRESENTATIONS = List.of(MULTIPART, JSON_FORM);

    public static boolean has(String profile) { return PROFILES.contains(profile); }

    public static String document() {
        Json.Writer w = new Json.Writer();
        w.beginObject();
        w.name("spec_version").value(Limits.SPEC_VERSION);
        w.name("endpoint").value(Limits.BATCH_PATH);
        w.name("limits").beginObject()
                .name("max_parts").value(Limits.MAX_PARTS)
                .name("max_batch_bytes").value(Limits.MAX_BATCH_BYTES)
                .name("max_part_bytes").value(Limits.MAX_PART_BYTES)
                .name("max_part_header_bytes").value(Limits.MAX_PART_HEADER_BYTES)
                .name("max_part_fields").value(Limits.MAX_PART_FIELDS)
                .name("max_batches_in_flight").value(Limits.MAX_BATCHES_IN_FLIGHT)
                .endObject();
        w.name("profiles").beginArray();
        for (String p : PROFILES) w.value(p);
        w.endArray();
        w.name("representations").beginArray();
        for (String r : REPRESENTATIONS) w.value(r);
        w.endArray();
        w.name("preferences").beginArray().value("batch-on-error=continue");
        if (has("error-policy")) w.value("batch-on-error=stop");
        w.endArray();
        w.endObject();
        return w.toString();
    }
}
