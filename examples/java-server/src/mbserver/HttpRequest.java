package mbserver;

/** One HTTP request, standalone or a sub-request of a batch. */
public final class HttpRequest {
    public String method;
    /** Origin-form target: path and query, as received (for a sub-request: the resolved target). */
    public String target;
    /** The authority the request was addressed to (Host, or the batch request's for a sub-request). */
    public String authority;
    public String version = "HTTP/1.1";
    public final Fields headers = new Fields();
    public byte[] body = new byte[0];
    public boolean hasBody;
    public boolean sub;
    /** System.nanoTime() when reception began. */
    public long startNanos = System.nanoTime();
    /** For sub-requests: the batch's deadline (System.nanoTime()), or 0. */
    public long deadlineNanos;
    /** A POST batch: whether it holds a place in the in-flight budget (MB-LIMIT-6). */
    public boolean batchPermit;
    boolean permitReleased;

    public String path() { int q = target.indexOf('?'); return q < 0 ? target : target.substring(0, q); }
    public String query() { int q = target.indexOf('?'); return q < 0 ? null : target.substring(q + 1); }
}
