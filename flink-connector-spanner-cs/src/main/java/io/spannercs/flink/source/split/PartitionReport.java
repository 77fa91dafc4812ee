package io.spannercs.flink.source.split;

import java.io.Serializable;
import java.util.List;
import org.apache.flink.annotation.Internal;

/**
 * What a reader learned about a partition and must not be lost: it stays in the split's state until
 * the enumerator acknowledges it (after a checkpoint that contains its effect). The enumerator
 * handles each report idempotently, keyed by {@link #id()}. Part of the split's checkpointed state
 * (written by {@link PartitionSplitSerializer}), which is why it lives here; the events between
 * readers and enumerator carry it.
 */
@Internal
public sealed interface PartitionReport extends Serializable
        permits PartitionReport.Discovered,
                PartitionReport.Finished,
                PartitionReport.BarrierReached,
                PartitionReport.MovedOut,
                PartitionReport.SnapshotFinished {

    /** The partition whose query produced the report. */
    String token();

    /**
     * Unique per report: kind, token, timestamp and, where a partition may report several at one
     * timestamp (children in several records, several move-outs), what it announces.
     */
    String id();

    /** A partition to read from {@code startMicros}; legacy children name all their parents. */
    record NewPartition(String token, long startMicros, List<String> parentTokens)
            implements Serializable {}

    /** New partitions announced by {@code token} (PartitionStartRecord or child partitions). */
    record Discovered(String token, long micros, List<NewPartition> partitions)
            implements PartitionReport {
        @Override
        public String id() {
            List<String> tokens = new java.util.ArrayList<>(partitions.size());
            partitions.forEach(p -> tokens.add(p.token()));
            return "D|" + token + "|" + micros + "|" + Integer.toHexString(tokens.hashCode());
        }
    }

    /** The partition returned its last record; nothing in it is later than {@code endMicros}. */
    record Finished(String token, long endMicros) implements PartitionReport {
        @Override
        public String id() {
            return "F|" + token + "|" + endMicros;
        }
    }

    /**
     * The partition stopped at a move-in at {@code micros} and waits until every source has
     * processed all records up to it.
     */
    record BarrierReached(String token, long micros, List<String> sources)
            implements PartitionReport {
        @Override
        public String id() {
            return "B|" + token + "|" + micros;
        }
    }

    /**
     * A snapshot split (its id in {@code token}) has emitted every row of its key range, {@code
     * rows} of them.
     */
    record SnapshotFinished(String token, long rows) implements PartitionReport {
        @Override
        public String id() {
            return "S|" + token;
        }
    }

    /** The partition moved key ranges out at {@code micros}: it has reached that time for them. */
    record MovedOut(String token, long micros, List<String> destinations)
            implements PartitionReport {
        @Override
        public String id() {
            return "M|" + token + "|" + micros + "|" + Integer.toHexString(destinations.hashCode());
        }
    }
}
