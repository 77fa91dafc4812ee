package io.spannercs.emulator.edge;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.spannercs.emulator.EdgeCase;
import io.spannercs.emulator.EdgeCases;
import io.spannercs.emulator.changestream.FaultInjector;
import io.spannercs.emulator.testing.EdgeScenario;
import io.spannercs.emulator.testing.EdgeTolerantReader;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every edge case at once, with background churn and injected stream failures: a tolerant reader
 * using the official client still reads exactly the ground truth, in both partition modes and both
 * dialects.
 */
class AllEdgeCasesTest {

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void tolerantReadsEqualTheGroundTruth(boolean postgres) {
        try (EdgeScenario s =
                EdgeScenario.start(
                        EdgeCases.all(),
                        postgres,
                        b ->
                                b.churnInterval(Duration.ofMillis(150))
                                        .transientFaultRate(1.0 / 100)
                                        .maxPartitions(6))) {
            s.emulator()
                    .faults()
                    .failStreamAfterRows(
                            FaultInjector.ANY_PARTITION, 3, Status.Code.UNAVAILABLE, 20);
            s.write(400, 3, 8);
            for (String stream : new String[] {EdgeScenario.MUTABLE, EdgeScenario.LEGACY}) {
                EdgeTolerantReader reader = s.reader(stream);
                s.check(stream, s.read(reader), true);
                assertThat(reader.queries()).isGreaterThan(reader.partitionStarts().size());
            }
            Map<EdgeCase, Long> counts = s.emulator().edgeCaseCounts();
            for (EdgeCase c :
                    new EdgeCase[] {
                        EdgeCase.SHARED_TIMESTAMPS,
                        EdgeCase.HEARTBEAT_BEFORE_PARTITION_RECORDS,
                        EdgeCase.UNORDERED_WITHIN_TIMESTAMP,
                        EdgeCase.SPLIT_PARTITION_RECORDS,
                        EdgeCase.WINDOW_END_WITHOUT_END_RECORD,
                        EdgeCase.UNKNOWN_TYPES,
                        EdgeCase.TRANSIENT_FAULTS
                    }) {
                assertThat(counts.get(c)).as(c.cliName()).isPositive();
            }
            if (!postgres) {
                assertThat(counts.get(EdgeCase.NULL_STRUCT_ELEMENTS)).isPositive();
            }
        }
    }
}
