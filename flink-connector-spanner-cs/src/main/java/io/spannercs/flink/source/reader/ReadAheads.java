package io.spannercs.flink.source.reader;

import io.spannercs.flink.source.split.PartitionReport;
import io.spannercs.flink.source.split.PartitionSplit;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.SimpleCounter;

/**
 * Queries of announced partitions started before their assignment, kept for the whole life of a
 * source reader. Flink shuts a split fetcher (and closes its split reader) down whenever it has no
 * split left, which between a legacy parent's end and its child's assignment is the normal case:
 * the reads ahead must outlive it, or every one of them would be read again once assigned.
 *
 * <p>Used by the fetcher thread; synchronized because Flink may close an idle fetcher's split
 * reader while a new fetcher already runs.
 */
final class ReadAheads {
    /**
     * At most this many at once. The enumerator gives a partition to the reader that announced it
     * unless that reader is busier than the others, so most reads ahead are taken over; partitions
     * announced while this many are read ahead are read once assigned. The oldest are kept: they
     * were announced first, so they are assigned first.
     */
    static final int MAX = 16;

    /**
     * Records a read ahead buffers until it is assigned here: enough to hide the query's start (its
     * first row can take most of a second), little enough that a partition the enumerator gives to
     * another reader costs this reader and Spanner almost nothing.
     */
    static final int HELD_BACK_RECORDS = 64;

    /** A read ahead not assigned to this reader within this time is given up. */
    static final long TTL_NANOS = 30_000_000_000L;

    private record ReadAhead(PartitionSplit split, SplitStream stream, long sinceNanos) {}

    /**
     * Partitions given up are remembered (the most recent this many): the notice that another
     * reader has one can come before the record announcing it is fetched here.
     */
    static final int GIVEN_UP_REMEMBERED = 1024;

    private final Map<String, ReadAhead> byToken = new LinkedHashMap<>();
    private final Set<String> givenUp =
            Collections.newSetFromMap(
                    new LinkedHashMap<>() {
                        @Override
                        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                            return size() > GIVEN_UP_REMEMBERED;
                        }
                    });
    private final LongSupplier nanoClock;
    private final Counter givenUpCount = new SimpleCounter();
    private boolean closed;

    ReadAheads() {
        this(System::nanoTime);
    }

    ReadAheads(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    /** Reads ahead closed unread: given to another reader, restored from elsewhere or expired. */
    Counter givenUp() {
        return givenUpCount;
    }

    /**
     * Starts reading the announced partitions that are neither read ahead nor already read ({@code
     * reading}), as far as the limit allows, with streams from {@code open}.
     */
    synchronized void start(
            List<PartitionReport.NewPartition> announced,
            long sourceEndMicros,
            Function<String, Boolean> reading,
            Function<PartitionSplit, SplitStream> open) {
        if (closed) {
            return;
        }
        for (PartitionReport.NewPartition p : announced) {
            if (byToken.size() >= MAX) {
                break;
            }
            if (byToken.containsKey(p.token())
                    || givenUp.contains(p.token())
                    || reading.apply(p.token())) {
                continue;
            }
            PartitionSplit split =
                    PartitionSplit.fresh(
                            p.token(), p.startMicros(), sourceEndMicros, p.parentTokens());
            SplitStream stream = open.apply(split);
            stream.holdBack(HELD_BACK_RECORDS);
            stream.start();
            byToken.put(p.token(), new ReadAhead(split, stream, nanoClock.getAsLong()));
        }
    }

    /**
     * The running stream of an assigned split, if it was read ahead from exactly that split;
     * otherwise null, and a read ahead of the same partition from elsewhere is closed.
     */
    synchronized SplitStream take(PartitionSplit assigned) {
        ReadAhead ahead = byToken.remove(assigned.splitId());
        if (ahead == null) {
            return null;
        }
        if (ahead.split().equals(assigned)) {
            ahead.stream().takeOver();
            return ahead.stream();
        }
        ahead.stream().close(); // assigned from elsewhere (a restored position)
        givenUpCount.inc();
        return null;
    }

    /** Gives up the reads ahead of partitions another reader was given. */
    synchronized void giveUp(List<String> tokens) {
        for (String token : tokens) {
            givenUp.add(token);
            ReadAhead r = byToken.remove(token);
            if (r != null) {
                r.stream().close();
                givenUpCount.inc();
            }
        }
    }

    /** Gives up the reads ahead that have not been assigned in time. */
    synchronized void expire() {
        long now = nanoClock.getAsLong();
        for (Iterator<ReadAhead> it = byToken.values().iterator(); it.hasNext(); ) {
            ReadAhead r = it.next();
            if (now - r.sinceNanos() >= TTL_NANOS) {
                r.stream().close();
                givenUpCount.inc();
                it.remove();
            }
        }
    }

    synchronized int size() {
        return byToken.size();
    }

    /** Closes every read ahead; none is started afterwards (no more splits, or the reader ends). */
    synchronized void close() {
        closed = true;
        byToken.values().forEach(r -> r.stream().close());
        byToken.clear();
    }
}
