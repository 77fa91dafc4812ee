package io.spannercs.flink.source.enumerator;

import java.util.List;
import java.util.Objects;
import org.apache.flink.annotation.Internal;

/**
 * A partition stopped at a move-in at {@code micros}, waiting until every source partition has
 * processed all records up to it.
 */
@Internal
public record BarrierEntry(String token, long micros, List<String> sources) {
    public BarrierEntry {
        Objects.requireNonNull(token);
        sources = List.copyOf(sources);
    }
}
