package io.spannercs.emulator.edge;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.ErrorCode;
import io.spannercs.emulator.EdgeCase;
import io.spannercs.emulator.EdgeCases;
import io.spannercs.emulator.testing.EdgeScenario;
import io.spannercs.emulator.testing.EdgeTolerantReader;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * transient-faults: partition queries fail now and then, at any row (also between two records of
 * one timestamp, with shared timestamps and shuffled records on), cycling through the transient
 * codes; the official client resumes some itself, a reader restarts the others.
 */
class TransientFaultsEdgeTest {

    @ParameterizedTest
    @ValueSource(strings = {EdgeScenario.MUTABLE, EdgeScenario.LEGACY})
    void readsSurviveTransientFaults(String stream) {
        try (EdgeScenario s =
                EdgeScenario.start(
                                EdgeCases.of(
                                        EdgeCase.TRANSIENT_FAULTS,
                                        EdgeCase.SHARED_TIMESTAMPS,
                                        EdgeCase.UNORDERED_WITHIN_TIMESTAMP),
                                false,
                                b -> b.transientFaultRate(1.0 / 15))
                        .write(300, 3, 10)) {
            EdgeTolerantReader reader = s.reader(stream);
            s.check(stream, s.read(reader), true);
            long faults = s.emulator().edgeCaseCounts().get(EdgeCase.TRANSIENT_FAULTS);
            assertThat(faults).isGreaterThanOrEqualTo(6);
            // The client resumes UNAVAILABLE and RST_STREAM itself; the reader restarts the rest.
            Set<ErrorCode> seen = new HashSet<>(reader.errors());
            assertThat(seen)
                    .isSubsetOf(EdgeTolerantReader.TRANSIENT)
                    .contains(ErrorCode.DEADLINE_EXCEEDED, ErrorCode.UNKNOWN)
                    .doesNotContain(ErrorCode.UNAVAILABLE);
            assertThat((long) reader.errors().size()).isLessThan(faults);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {EdgeScenario.MUTABLE, EdgeScenario.LEGACY})
    void aZeroRateNeverFails(String stream) {
        try (EdgeScenario s =
                EdgeScenario.start(
                                EdgeCases.of(EdgeCase.TRANSIENT_FAULTS),
                                false,
                                b -> b.transientFaultRate(0))
                        .write(60, 1, 10)) {
            EdgeTolerantReader reader = s.reader(stream);
            s.check(stream, s.read(reader), false);
            assertThat(reader.errors()).isEmpty();
            assertThat(s.emulator().edgeCaseCounts().get(EdgeCase.TRANSIENT_FAULTS)).isZero();
        }
    }
}
