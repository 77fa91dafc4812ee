package io.spannercs.flink.source.anywhere;

import io.spannercs.flink.format.ChangeEvent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceOutput;

/**
 * A reader's output as Flink's {@code ProgressiveTimestampsAndWatermarks} builds it for a source
 * with {@code WatermarkStrategy.noWatermarks()}: one output per split ({@link
 * #createOutputForSplit}, idempotent, as {@code SourceOperator} creates them for added splits and
 * {@code SourceReaderBase} asks again), whose watermarks a {@code WatermarkOutputMultiplexer}
 * combines as the minimum over the live, non-idle split outputs, forwarded when it rises; the main
 * output's own watermarks go straight through; and {@code WatermarkToDataOutput} downstream, which
 * drops a watermark that is not above the last one. A released split output leaves the minimum at
 * the next periodic emit, which can come at any time: {@link #periodicEmit} models it, and the
 * driver calls it after every poll.
 *
 * <p>Every record is kept with its timestamp and the downstream watermark when it was emitted.
 */
final class SimOutput implements ReaderOutput<ChangeEvent> {
    /** A record as a reader emitted it. */
    record Emission(
            long seq,
            int subtask,
            int attempt,
            ChangeEvent event,
            long timestampMillis,
            long watermarkBefore,
            String split) {}

    private final int subtask;
    private final int attempt;
    private final Job job;
    private final List<Emission> emissions = new ArrayList<>();
    private final Map<String, Partial> splits = new LinkedHashMap<>();
    private long combined = Long.MIN_VALUE;
    private long downstream = Long.MIN_VALUE;

    SimOutput(Job job, int subtask, int attempt) {
        this.job = job;
        this.subtask = subtask;
        this.attempt = attempt;
    }

    /** A split output's watermark state ({@code PartialWatermark}). */
    private static final class Partial {
        long watermark = Long.MIN_VALUE;
        boolean idle;
    }

    List<Emission> emissions() {
        return emissions;
    }

    /** The downstream watermark now. */
    long downstream() {
        return downstream;
    }

    private void record(ChangeEvent event, long timestamp, String split) {
        Emission e =
                new Emission(job.nextSeq(), subtask, attempt, event, timestamp, downstream, split);
        emissions.add(e);
        job.emitted(e);
    }

    @Override
    public void collect(ChangeEvent record) {
        record(record, Long.MIN_VALUE, null);
    }

    @Override
    public void collect(ChangeEvent record, long timestamp) {
        record(record, timestamp, null);
    }

    @Override
    public void emitWatermark(Watermark watermark) {
        toDownstream(watermark.getTimestamp());
    }

    @Override
    public void markIdle() {}

    @Override
    public void markActive() {}

    @Override
    public SourceOutput<ChangeEvent> createOutputForSplit(String splitId) {
        splits.computeIfAbsent(splitId, id -> new Partial());
        return new SplitOutput(splitId);
    }

    @Override
    public void releaseOutputForSplit(String splitId) {
        splits.remove(splitId);
    }

    /** What the periodic watermark emit does for split outputs: combine them again. */
    void periodicEmit() {
        updateCombined();
    }

    private void updateCombined() {
        if (splits.isEmpty()) {
            return; // CombinedWatermarkStatus: no outputs, nothing valid to emit
        }
        long min = Long.MAX_VALUE;
        boolean allIdle = true;
        for (Partial p : splits.values()) {
            if (!p.idle) {
                min = Math.min(min, p.watermark);
                allIdle = false;
            }
        }
        if (!allIdle && min > combined) {
            combined = min;
            toDownstream(min);
        }
    }

    private void toDownstream(long watermark) {
        if (watermark > downstream) {
            downstream = watermark;
        }
    }

    /** The output of one split. */
    private final class SplitOutput implements SourceOutput<ChangeEvent> {
        private final String splitId;

        SplitOutput(String splitId) {
            this.splitId = splitId;
        }

        @Override
        public void collect(ChangeEvent record) {
            record(record, Long.MIN_VALUE, splitId);
        }

        @Override
        public void collect(ChangeEvent record, long timestamp) {
            record(record, timestamp, splitId);
        }

        @Override
        public void emitWatermark(Watermark watermark) {
            Partial p = splits.get(splitId);
            if (p == null) {
                return; // released: nothing listens any more
            }
            long t = watermark.getTimestamp();
            p.idle = false;
            boolean updated = t > p.watermark;
            p.watermark = Math.max(p.watermark, t);
            if (updated && t > combined) {
                updateCombined();
            }
        }

        @Override
        public void markIdle() {
            Partial p = splits.get(splitId);
            if (p != null) {
                p.idle = true;
                updateCombined();
            }
        }

        @Override
        public void markActive() {
            Partial p = splits.get(splitId);
            if (p != null) {
                p.idle = false;
                updateCombined();
            }
        }
    }
}
