package io.spannercs.flink.source.reader;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.flink.source.split.PartitionPosition;
import io.spannercs.flink.source.split.PartitionReport;
import io.spannercs.flink.source.split.PartitionSplit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ReadAheadsTest {
    private static final long END = 1_000_000L;

    private final AtomicLong clock = new AtomicLong();
    private final ReadAheads readAheads = new ReadAheads(clock::get);
    private final List<FakeStream> opened = new ArrayList<>();

    private void announce(Set<String> reading, String... tokens) {
        List<PartitionReport.NewPartition> announced = new ArrayList<>();
        for (String t : tokens) {
            announced.add(new PartitionReport.NewPartition(t, 100, List.of("parent")));
        }
        readAheads.start(
                announced,
                END,
                reading::contains,
                split -> {
                    FakeStream s = new FakeStream(split.token());
                    opened.add(s);
                    return s;
                });
    }

    private static PartitionSplit split(String token) {
        return PartitionSplit.fresh(token, 100, END, List.of("parent"));
    }

    @Test
    void startsAnnouncedPartitionsOnceAndHandsThemToTheirAssignment() {
        announce(Set.of(), "a", "b");
        announce(Set.of(), "a");
        assertThat(opened).extracting(s -> s.token).containsExactly("a", "b");
        assertThat(opened).allMatch(s -> s.started);

        SplitStream taken = readAheads.take(split("a"));
        assertThat(taken).isSameAs(opened.get(0));
        assertThat(opened.get(0).closed).isFalse();
        assertThat(readAheads.take(split("a"))).as("taken once").isNull();
        assertThat(readAheads.size()).isEqualTo(1);
    }

    @Test
    void doesNotReadAheadWhatIsReadAlready() {
        announce(Set.of("a"), "a");
        assertThat(opened).isEmpty();
    }

    @Test
    void aSplitAssignedFromElsewhereClosesTheReadAhead() {
        announce(Set.of(), "a");
        PartitionSplit restored =
                new PartitionSplit(
                        "a",
                        100,
                        END,
                        List.of("parent"),
                        PartitionPosition.before(150),
                        PartitionSplit.NO_BARRIER,
                        List.of(),
                        List.of(),
                        false);
        assertThat(readAheads.take(restored)).isNull();
        assertThat(opened.get(0).closed).isTrue();
    }

    @Test
    void keepsTheOldestWhenFullInsteadOfReadingThemTwice() {
        String[] tokens =
                IntStream.range(0, ReadAheads.MAX + 5)
                        .mapToObj(i -> "p" + i)
                        .toArray(String[]::new);
        announce(Set.of(), tokens);
        assertThat(opened).hasSize(ReadAheads.MAX);
        assertThat(opened).noneMatch(s -> s.closed);
        assertThat(readAheads.take(split("p0"))).isSameAs(opened.get(0));
        assertThat(readAheads.take(split("p" + ReadAheads.MAX))).isNull();
    }

    @Test
    void givesUpWhatAnotherReaderWasGiven() {
        announce(Set.of(), "a", "b");
        readAheads.giveUp(List.of("a", "unknown"));
        assertThat(opened.get(0).closed).isTrue();
        assertThat(opened.get(1).closed).isFalse();
        assertThat(readAheads.take(split("a"))).isNull();
        announce(Set.of(), "c");
        assertThat(opened).as("the slot is free again").hasSize(3);
        assertThat(readAheads.givenUp().getCount()).isEqualTo(1);
    }

    @Test
    void doesNotStartWhatAnotherReaderWasGivenBeforeItWasAnnouncedHere() {
        readAheads.giveUp(List.of("a"));
        announce(Set.of(), "a", "b");
        assertThat(opened).extracting(s -> s.token).containsExactly("b");
    }

    @Test
    void holdsAReadAheadBackUntilItIsTakenOver() {
        announce(Set.of(), "a");
        assertThat(opened.get(0).heldBackTo).isEqualTo(ReadAheads.HELD_BACK_RECORDS);
        assertThat(opened.get(0).takenOver).isFalse();
        readAheads.take(split("a"));
        assertThat(opened.get(0).takenOver).isTrue();
    }

    @Test
    void givesUpReadAheadsNotAssignedInTime() {
        announce(Set.of(), "a");
        clock.set(ReadAheads.TTL_NANOS - 1);
        readAheads.expire();
        assertThat(opened.get(0).closed).isFalse();
        clock.set(ReadAheads.TTL_NANOS);
        readAheads.expire();
        assertThat(opened.get(0).closed).isTrue();
        assertThat(readAheads.size()).isZero();
        assertThat(readAheads.givenUp().getCount()).isEqualTo(1);
    }

    @Test
    void closingClosesEveryReadAheadAndStartsNoMore() {
        announce(Set.of(), "a", "b");
        readAheads.close();
        assertThat(opened).allMatch(s -> s.closed);
        announce(Set.of(), "c");
        assertThat(opened).hasSize(2);
    }

    private static final class FakeStream implements SplitStream {
        final String token;
        boolean started;
        boolean closed;
        int heldBackTo = -1;
        boolean takenOver;

        FakeStream(String token) {
            this.token = token;
        }

        @Override
        public String token() {
            return token;
        }

        @Override
        public boolean started() {
            return started;
        }

        @Override
        public boolean blocked() {
            return false;
        }

        @Override
        public void start() {
            started = true;
        }

        @Override
        public void retryIfDue() {}

        @Override
        public RuntimeException failure() {
            return null;
        }

        @Override
        public int drain(int max, Consumer<FetchedRecord> out) {
            return 0;
        }

        @Override
        public boolean finishedAndDrained() {
            return false;
        }

        @Override
        public boolean hasBufferedRecords() {
            return false;
        }

        @Override
        public void holdBack(int records) {
            heldBackTo = records;
        }

        @Override
        public void takeOver() {
            takenOver = true;
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
