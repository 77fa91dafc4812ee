package io.spannercs.flink.source.enumerator;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.metrics.Counter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warns about barriers that wait longer than the configured timeout, once per timeout period, and
 * counts each such barrier once. It never releases anything: releasing a barrier early would break
 * per-key order silently.
 */
final class BarrierTimeoutMonitor {
    private static final Logger LOG = LoggerFactory.getLogger(BarrierTimeoutMonitor.class);

    private final long timeoutMillis;
    private final Counter timeouts;

    BarrierTimeoutMonitor(long timeoutMillis, Counter timeouts) {
        this.timeoutMillis = timeoutMillis;
        this.timeouts = timeouts;
    }

    void check(PartitionGraph graph, long nowMillis) {
        for (PendingBarrier b : graph.barriers()) {
            long waited = nowMillis - b.sinceMillis();
            if (waited < timeoutMillis) {
                continue;
            }
            if (b.lastWarnedMillis() == PendingBarrier.NEVER) {
                timeouts.inc();
            } else if (nowMillis - b.lastWarnedMillis() < timeoutMillis) {
                continue;
            }
            b.warnedAt(nowMillis);
            LOG.warn(
                    "Partition {} has waited {} s at its move-in at {} for source partitions {};"
                            + " it stays blocked until they reach that time (barriers are never"
                            + " released by timeout)",
                    PartitionNames.of(b.token()),
                    waited / 1000,
                    TimeFormat.micros(b.micros()),
                    describe(graph, graph.missingSources(b)));
        }
    }

    private static List<String> describe(PartitionGraph graph, List<String> tokens) {
        List<String> out = new ArrayList<>(tokens.size());
        for (String t : tokens) {
            PartitionEntry p = graph.get(t);
            out.add(
                    p == null
                            ? PartitionNames.of(t) + " (not discovered yet)"
                            : PartitionNames.of(t)
                                    + " ("
                                    + p.status()
                                    + (p.status() == PartitionStatus.ASSIGNED
                                            ? " to subtask " + p.subtask()
                                            : "")
                                    + ", progress "
                                    + TimeFormat.micros(p.progressMicros())
                                    + ")");
        }
        return out;
    }
}
