package io.spannercs.job.pubsub;

import org.junit.jupiter.api.Assumptions;

/** {@link PubSubEmulator} for one test, or the test skipped, saying why, where it is missing. */
public final class PubSubTestEmulator {
    /** The project the tests' topics and subscriptions live in. */
    public static final String PROJECT = "pubsub-test-project";

    private PubSubTestEmulator() {}

    /** Starts the emulator, or skips {@code test} where it is not installed. */
    public static PubSubEmulator startOrSkip(Class<?> test) throws Exception {
        var launcher = PubSubEmulator.locate();
        if (launcher.isEmpty()) {
            String reason = PubSubEmulator.notInstalled() + ", to run this test";
            System.out.println("SKIPPED " + test.getSimpleName() + ": " + reason);
            Assumptions.abort(reason);
        }
        return PubSubEmulator.start(launcher.get());
    }
}
