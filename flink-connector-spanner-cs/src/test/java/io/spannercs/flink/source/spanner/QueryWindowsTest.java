package io.spannercs.flink.source.spanner;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.flink.source.config.SpannerSourceConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class QueryWindowsTest {
    private static final long MINUTE = 60_000_000L;
    private static final long NOW = 1_700_000_000_000_000L;
    private static final long NO_END = SpannerSourceConfig.NO_END;

    @Test
    void aWindowInThePastLastsTheConfiguredLength() {
        long start = NOW - 120 * MINUTE;
        assertThat(
                        QueryWindows.end(
                                start,
                                QueryWindows.NO_PREVIOUS,
                                Duration.ofMinutes(30),
                                NO_END,
                                NOW))
                .isEqualTo(start + 30 * MINUTE);
    }

    @Test
    void neverEndsMoreThan29MinutesAfterNow() {
        long start = NOW - MINUTE;
        assertThat(
                        QueryWindows.end(
                                start,
                                QueryWindows.NO_PREVIOUS,
                                Duration.ofMinutes(30),
                                NO_END,
                                NOW))
                .isEqualTo(NOW + 29 * MINUTE);
    }

    @Test
    void aQueryResumingBeforeThePreviousEndReachesFurther() {
        long start = NOW - 120 * MINUTE;
        long previous = start + 10_000_000L;
        long end = QueryWindows.end(start, previous, Duration.ofSeconds(1), NO_END, NOW);
        assertThat(end).isEqualTo(previous + 1_000_000L);
        assertThat(
                        QueryWindows.end(
                                start, start + 40 * MINUTE, Duration.ofMinutes(30), NO_END, NOW))
                .as("never more than 30 minutes after the start")
                .isEqualTo(start + 30 * MINUTE);
    }

    @Test
    void stopsAtTheSourcesEnd() {
        long start = NOW - 120 * MINUTE;
        assertThat(
                        QueryWindows.end(
                                start,
                                QueryWindows.NO_PREVIOUS,
                                Duration.ofMinutes(30),
                                start + 10,
                                NOW))
                .isEqualTo(start + 10);
    }

    @Test
    void aStartFarInTheFutureWaitsOnTheClient() {
        long start = NOW + 60 * MINUTE;
        assertThat(QueryWindows.earliestQueryMicros(start)).isEqualTo(NOW + 31 * MINUTE);
    }
}
