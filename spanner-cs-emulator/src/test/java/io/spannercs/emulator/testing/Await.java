package io.spannercs.emulator.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waits for a condition instead of a fixed time: polls it until it holds and fails with what was
 * awaited (and the last state seen) when it does not hold within the limit. The limit only bounds a
 * broken run; a passing run waits as long as the condition takes.
 */
public final class Await {
    private static final long POLL_MILLIS = 20;

    private Await() {}

    /**
     * Polls {@code condition} until it holds.
     *
     * @throws AssertionError naming {@code what} when it does not hold within {@code limit}
     */
    public static void until(String what, Duration limit, BooleanSupplier condition) {
        until(what, limit, condition, () -> "");
    }

    /**
     * Like {@link #until(String, Duration, BooleanSupplier)}; the failure also says {@code state}
     * as it was last.
     */
    public static void until(
            String what, Duration limit, BooleanSupplier condition, Supplier<String> state) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() >= deadline) {
                String s = state.get();
                throw new AssertionError(
                        "timed out after "
                                + limit
                                + " waiting for "
                                + what
                                + (s.isEmpty() ? "" : " (" + s + ")"));
            }
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + what, e);
            }
        }
    }
}
