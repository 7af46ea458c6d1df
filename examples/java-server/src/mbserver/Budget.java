package mbserver;

import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;

/** The budget of batches held in flight (MB-LIMIT-6), and the server's shutdown state. */
public final class Budget {
    private Budget() {}

    private static final Semaphore SLOTS = new Semaphore(Limits.MAX_BATCHES_IN_FLIGHT);
    public static final AtomicBoolean SHUTTING_DOWN = new AtomicBoolean(false);

    public static boolean tryAcquire() { return !SHUTTING_DOWN.get() && SLOTS.tryAcquire(); }

    public static synchronized void release(HttpRequest req) {
        if (req.batchPermit && !req.permitReleased) {
            req.permitReleased = true;
            SLOTS.release();
        }
    }

    public static int inFlight() { return Limits.MAX_BATCHES_IN_FLIGHT - SLOTS.availablePermits(); }
}
