package io.spannercs.flink.source.enumerator;

import static io.spannercs.flink.source.enumerator.EnumeratorHarness.START;
import static io.spannercs.flink.source.enumerator.EnumeratorHarness.partition;
import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.flink.source.split.PartitionReport;
import io.spannercs.flink.testing.LogCapture;
import java.util.List;
import java.util.Map;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;

/** What the enumerator says at INFO: short partition names and counts, never whole tokens. */
class EnumeratorLoggingTest {
    private static final String ENUMERATOR = "io.spannercs.flink.source.enumerator";

    /** As long as Spanner's partition tokens. */
    private static String token(char c) {
        return String.valueOf(c).repeat(150);
    }

    private static List<String> info(LogCapture log) {
        return log.events().stream()
                .filter(e -> e.logger().startsWith(ENUMERATOR))
                .filter(e -> e.level().isMoreSpecificThan(Level.INFO))
                .map(LogCapture.Event::message)
                .toList();
    }

    @Test
    void infoLinesNameShortPartitionNamesAndCountsNotTokens() throws Throwable {
        String a = token('a');
        String b = token('b');
        String child = token('c');
        try (LogCapture log = new LogCapture(Map.of(ENUMERATOR, Level.INFO));
                EnumeratorHarness h =
                        EnumeratorHarness.unbounded(2, partition(a, START), partition(b, START))) {
            h.start();
            h.addReaders(0, 1);
            h.report(
                    0,
                    new PartitionReport.Discovered(
                            a, START + 10, List.of(partition(child, START + 10, a))));
            h.report(0, new PartitionReport.Finished(a, START + 10));

            List<String> info = info(log);
            assertThat(info)
                    .isNotEmpty()
                    .noneMatch(m -> m.contains(a) || m.contains(b) || m.contains(child))
                    .anyMatch(
                            m ->
                                    m.contains("starts with 2 partitions")
                                            && m.contains(PartitionNames.of(a))
                                            && m.contains(PartitionNames.of(b)))
                    .anyMatch(m -> m.startsWith("Assigning 1 partitions [p:"))
                    .anyMatch(
                            m ->
                                    m.contains(
                                            "announced 1 partitions ["
                                                    + PartitionNames.of(child)
                                                    + "]"))
                    .noneMatch(m -> m.contains("finished at"));
        }
    }

    @Test
    void theWholeTokensAreAtDebug() throws Throwable {
        String a = token('a');
        try (LogCapture log = new LogCapture(Map.of(ENUMERATOR, Level.DEBUG));
                EnumeratorHarness h = EnumeratorHarness.unbounded(1, partition(a, START))) {
            h.start();
            assertThat(log.events())
                    .anyMatch(
                            e ->
                                    e.level() == Level.DEBUG
                                            && e.message()
                                                    .equals(
                                                            "Partition "
                                                                    + PartitionNames.of(a)
                                                                    + " has token "
                                                                    + a));
        }
    }

    @Test
    void aStartInTheFutureSaysThatItWaitsAndUntilWhen() throws Throwable {
        try (LogCapture log = new LogCapture(Map.of(ENUMERATOR, Level.INFO));
                EnumeratorHarness h = EnumeratorHarness.unbounded(1, partition("t", START))) {
            h.clockMillis.set(START / 1000 - 90_000);
            h.enumerator.start();

            assertThat(info(log))
                    .contains(
                            "The start timestamp "
                                    + TimeFormat.micros(START)
                                    + " of change stream orders_cs is 90 s in the future: the"
                                    + " source waits until then before it lists partitions and"
                                    + " reads changes");
        }
    }

    @Test
    void shortNamesAreStableAndListsAreCapped() {
        assertThat(PartitionNames.of("abc"))
                .isEqualTo("p:352441c2")
                .isEqualTo(PartitionNames.of("abc"));
        assertThat(PartitionNames.of(null)).isEqualTo("root");
        List<String> many = List.of("1", "2", "3", "4", "5", "6", "7", "8", "9", "10");
        assertThat(PartitionNames.list(many)).endsWith(" and 2 more]").startsWith("[p:");
    }
}
