package io.spannercs.testcluster;

/**
 * A condition a test waits for: {@code true} once it holds. An {@link java.io.IOException} means
 * "not yet" (e.g. the REST endpoint not up); an {@link AssertionError} fails the wait at once.
 */
@FunctionalInterface
public interface Condition {
    boolean holds() throws Exception;
}
