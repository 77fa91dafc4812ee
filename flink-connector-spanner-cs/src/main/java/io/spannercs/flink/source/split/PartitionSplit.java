package io.spannercs.flink.source.split;

import java.util.List;
import java.util.Objects;
import org.apache.flink.annotation.Internal;

/**
 * One change stream partition and how far it has been read.
 *
 * <p>The position is the timestamp of the last record emitted and the records emitted at it (see
 * {@link PartitionPosition}): every record before that timestamp, and those, have been emitted.
 */
@Internal
public final class PartitionSplit implements SpannerSplit {
    /** No barrier pending. */
    public static final long NO_BARRIER = Long.MIN_VALUE;

    private final String token;
    private final long startMicros;
    private final long endMicros;
    private final List<String> parentTokens;
    private final long positionMicros;
    private final List<String> positionHandled;
    private final String positionUpToSequence;
    private final long barrierMicros;
    private final List<String> barrierSources;
    private final List<PartitionReport> pendingReports;
    private final boolean finished;

    public PartitionSplit(
            String token,
            long startMicros,
            long endMicros,
            List<String> parentTokens,
            PartitionPosition position,
            long barrierMicros,
            List<String> barrierSources,
            List<PartitionReport> pendingReports,
            boolean finished) {
        this.token = Objects.requireNonNull(token);
        this.startMicros = startMicros;
        this.endMicros = endMicros;
        this.parentTokens = List.copyOf(parentTokens);
        this.positionMicros = position.micros();
        this.positionHandled = position.handled();
        this.positionUpToSequence = position.upToSequence();
        this.barrierMicros = barrierMicros;
        this.barrierSources = List.copyOf(barrierSources);
        this.pendingReports = List.copyOf(pendingReports);
        this.finished = finished;
    }

    /** A partition not read yet. */
    public static PartitionSplit fresh(
            String token, long startMicros, long endMicros, List<String> parentTokens) {
        return new PartitionSplit(
                token,
                startMicros,
                endMicros,
                parentTokens,
                PartitionPosition.before(startMicros),
                NO_BARRIER,
                List.of(),
                List.of(),
                false);
    }

    @Override
    public String splitId() {
        return token;
    }

    public String token() {
        return token;
    }

    public long startMicros() {
        return startMicros;
    }

    /** The source's end timestamp, or {@code SpannerSourceConfig.NO_END}. */
    public long endMicros() {
        return endMicros;
    }

    public List<String> parentTokens() {
        return parentTokens;
    }

    /** Where reading resumes (a new copy each call). */
    public PartitionPosition position() {
        return new PartitionPosition(positionMicros, positionHandled, positionUpToSequence);
    }

    /** Timestamp of the move-in the partition waits at, or {@link #NO_BARRIER}. */
    public long barrierMicros() {
        return barrierMicros;
    }

    /** The greatest timestamp up to which this split has emitted every record. */
    public long progressMicros() {
        return progressOf(position(), barrierMicros);
    }

    /**
     * The greatest timestamp up to which every data record has been emitted: the position's {@link
     * PartitionPosition#progressMicros()}, and below a pending barrier.
     */
    public static long progressOf(PartitionPosition position, long barrierMicros) {
        long p = position.progressMicros();
        return barrierMicros == NO_BARRIER ? p : Math.min(p, barrierMicros - 1);
    }

    public List<String> barrierSources() {
        return barrierSources;
    }

    /** Reports not yet acknowledged by the enumerator. */
    public List<PartitionReport> pendingReports() {
        return pendingReports;
    }

    /**
     * Whether the partition has ended: kept in reader state only until its last reports are
     * acknowledged, and never queried again.
     */
    public boolean finished() {
        return finished;
    }

    @Override
    public String toString() {
        return "PartitionSplit{"
                + token
                + ", start="
                + startMicros
                + ", position="
                + position()
                + (barrierMicros == NO_BARRIER ? "" : ", barrier=" + barrierMicros)
                + (pendingReports.isEmpty() ? "" : ", pending=" + pendingReports.size())
                + (finished ? ", finished" : "")
                + "}";
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof PartitionSplit)) {
            return false;
        }
        PartitionSplit s = (PartitionSplit) o;
        return token.equals(s.token)
                && startMicros == s.startMicros
                && endMicros == s.endMicros
                && parentTokens.equals(s.parentTokens)
                && positionMicros == s.positionMicros
                && positionHandled.equals(s.positionHandled)
                && Objects.equals(positionUpToSequence, s.positionUpToSequence)
                && barrierMicros == s.barrierMicros
                && barrierSources.equals(s.barrierSources)
                && pendingReports.equals(s.pendingReports)
                && finished == s.finished;
    }

    @Override
    public int hashCode() {
        return Objects.hash(token, startMicros, positionMicros, positionHandled, barrierMicros);
    }
}
