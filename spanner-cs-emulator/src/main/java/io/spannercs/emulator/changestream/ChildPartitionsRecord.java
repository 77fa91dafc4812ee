package io.spannercs.emulator.changestream;

import java.util.List;

/**
 * Legacy (IMMUTABLE_KEY_RANGE) notice that a partition ended and which partitions continue its key
 * ranges from {@code startMicros} on.
 */
public record ChildPartitionsRecord(long startMicros, long sequence, List<Child> children) {

    /** A child partition and all of its parents (several for a merge, none from the root). */
    public record Child(String token, List<String> parentTokens) {}
}
