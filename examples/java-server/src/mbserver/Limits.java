package mbserver;

/** Every limit the server enforces, as named constants (MB-LIMIT-1, MB-LIMIT-5, MB-LIMIT-6). */
public final class Limits {
    private Limits() {}

    public static final String SPEC_VERSION = "draft-02";
    public static final String BATCH_PATH = "/api/batch";

    // Published batch limits (spec 9.1); the reference defaults.
    public static final int MAX_PARTS = 10_000;
    public static final long MAX_BATCH_BYTES = 64L * 1024 * 1024;
    public static final long MAX_PART_BYTES = 16L * 1024 * 1024;
    public static final int MAX_PART_HEADER_BYTES = 8192;
    public static final int MAX_PART_FIELDS = 100;
    public static final int MAX_BATCHES_IN_FLIGHT = 8;
    public static final int MAX_BOUNDARY_LENGTH = 70;

    /** Wall-clock budget of one batch, counted from the start of its reception (MB-SEC-1, MB-TEST-7);
     *  10 s unless --batch-timeout-ms sets it at start-up. */
    public static volatile long BATCH_TIMEOUT_MS = 10_000;
    /** Seconds announced in Retry-After with the 503 of MB-LIMIT-6. */
    public static final int RETRY_AFTER_SECONDS = 1;

    // Test resources (spec 14.4).
    public static final int RANDOM_MAX_N = 1_048_576;
    public static final long DELAY_MAX_MS = 30_000;
    public static final int SANDBOX_MAX_MEMBER_BYTES = 1_048_576;
    public static final int SANDBOX_MAX_MEMBERS = 10_000;

    // HTTP/1.1 codec.
    public static final int MAX_REQUEST_LINE = 16 * 1024;
    public static final int MAX_TOP_HEADER_BYTES = 64 * 1024;
    public static final int MAX_TOP_FIELDS = 200;
    /** Largest content accepted by a request that is not a batch (resources). */
    public static final long MAX_RESOURCE_BODY = 16L * 1024 * 1024;
    /** Content a refusal decided from the header section still reads and discards (MB-PIPE-1: at least 64 KiB). */
    public static final long MAX_DISCARD_BYTES = 16L * 1024 * 1024;
    public static final int READ_TIMEOUT_MS = 60_000;
    public static final int LINGER_MS = 1000;
}
