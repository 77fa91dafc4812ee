package io.spannercs.flink.source.enumerator;

import org.apache.flink.api.connector.source.SplitEnumerator;

/**
 * What the checkpoint-anywhere test ({@code anywhere/CheckpointAnywhereITCase}) prints of an
 * enumerator when a run cannot finish: its partition graph and pending barriers.
 */
public final class AnywhereEnumeratorProbe {
    private AnywhereEnumeratorProbe() {}

    /** Whether the enumerator knows the partition finished (finished, or pruned after it did). */
    public static boolean finished(SplitEnumerator<?, ?> enumerator, String token) {
        PartitionGraph g = ((ChangeStreamSplitEnumerator) enumerator).graph();
        PartitionEntry p = g.get(token);
        return p != null ? p.finished() : g.isPast(token, Long.MAX_VALUE);
    }

    /** A few lines on the enumerator's partitions, barriers and low watermark. */
    public static String describe(SplitEnumerator<?, ?> enumerator) {
        if (!(enumerator instanceof ChangeStreamSplitEnumerator e)) {
            return String.valueOf(enumerator);
        }
        PartitionGraph g = e.graph();
        StringBuilder out = new StringBuilder();
        out.append("low watermark ")
                .append(g.lowWatermarkMicros())
                .append(", root query done ")
                .append(g.rootQueryDone())
                .append(", recent ends held ")
                .append(e.heldRecentEnds());
        for (PartitionEntry p : g.partitions()) {
            out.append("\n      partition ")
                    .append(PartitionNames.of(p.token()))
                    .append(' ')
                    .append(p.status())
                    .append(p.subtask() == PartitionEntry.NO_SUBTASK ? "" : " on " + p.subtask())
                    .append(", start ")
                    .append(p.startMicros())
                    .append(", progress ")
                    .append(p.progressMicros())
                    .append(
                            p.endMicros() == PartitionEntry.NOT_FINISHED
                                    ? ""
                                    : ", end " + p.endMicros())
                    .append(
                            p.parentTokens().isEmpty()
                                    ? ""
                                    : ", parents " + PartitionNames.list(p.parentTokens()));
        }
        for (PendingBarrier b : g.barriers()) {
            out.append("\n      barrier of ")
                    .append(PartitionNames.of(b.token()))
                    .append(" at ")
                    .append(b.micros())
                    .append(" waiting for ")
                    .append(PartitionNames.list(b.entry().sources()));
        }
        return out.toString();
    }
}
