package io.spannercs.flink.testing;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;

/**
 * Job failures for exactly-once tests: a map that fails the job a few times, at different points,
 * so it restores from checkpoints, and a configuration that restarts it. The counters are static
 * (the map runs in the MiniCluster of the same JVM); tests using them run one at a time.
 */
public final class InjectedFailures {
    private static final AtomicInteger FAILURES_LEFT = new AtomicInteger();
    private static final AtomicInteger SEEN = new AtomicInteger();

    private InjectedFailures() {}

    /** Arms {@code failures} failures for the next job. */
    public static void arm(int failures) {
        FAILURES_LEFT.set(failures);
        SEEN.set(0);
    }

    /** How many of the armed failures have not happened. */
    public static int failuresLeft() {
        return FAILURES_LEFT.get();
    }

    /** Restarts a failed job up to ten times, 200 ms apart. */
    public static Configuration restartingConfiguration() {
        Configuration c = new Configuration();
        c.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        c.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 10);
        c.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
        return c;
    }

    /** Passes records through and fails the job at every {@code every}-th while failures last. */
    public static <T> MapFunction<T, T> failEvery(int every) {
        return new FailEvery<>(every);
    }

    private static final class FailEvery<T> implements MapFunction<T, T> {
        private final int every;

        FailEvery(int every) {
            this.every = every;
        }

        @Override
        public T map(T record) {
            int seen = SEEN.incrementAndGet();
            if (seen % every == 0 && FAILURES_LEFT.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new IllegalStateException("Injected failure after " + seen + " records");
            }
            return record;
        }
    }
}
