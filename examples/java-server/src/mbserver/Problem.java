package mbserver;

/** An RFC 9457 problem document (MB-STATUS-4), thrown as an exception where a request is refused. */
public final class Problem extends Exception {
    public final int status;
    public final String slug;
    public final String title;
    public final String detail;
    public String requirement;
    public Integer partIndex;
    public Long byteOffset;
    public String limit;
    public Long value;
    public String reference;
    /** Extra response header fields (Allow, Accept-Post, Retry-After, Accept-Encoding). */
    public final Fields headers = new Fields();
    /** True when the connection must close after the answer (the content was not read whole). */
    public boolean close;

    public Problem(int status, String requirement, String slug, String title, String detail) {
        super(title + (detail == null ? "" : ": " + detail), null, false, false);
        this.status = status;
        this.requirement = requirement;
        this.slug = slug;
        this.title = title;
        this.detail = detail;
    }

    public Problem at(int partIndex, long byteOffset) { this.partIndex = partIndex; this.byteOffset = byteOffset; return this; }
    public Problem limit(String name, long value) { this.limit = name; this.value = value; return this; }
    public Problem header(String n, String v) { headers.add(n, v); return this; }

    public String toJson() {
        Json.Writer w = new Json.Writer();
        w.beginObject();
        w.name("type").value("https://mixbatch.dev/problems/" + slug);
        w.name("title").value(title);
        w.name("status").value(status);
        if (detail != null) w.name("detail").value(detail);
        if (requirement != null) w.name("requirement").value(requirement);
        if (partIndex != null) w.name("part_index").value(partIndex);
        if (byteOffset != null) w.name("byte_offset").value(byteOffset);
        if (reference != null) w.name("reference").value(reference);
        if (limit != null) { w.name("limit").value(limit); if (value != null) w.name("value").value(value); }
        w.endObject();
        return w.toString();
    }

    public HttpResponse toResponse() {
        HttpResponse r = new HttpResponse(status);
        for (Fields.Field f : headers.list) r.headers.add(f.name, f.value);
        r.headers.add("Content-Type", "application/problem+json");
        r.body = Ascii.utf8(toJson());
        r.close = close;
        return r;
    }
}
