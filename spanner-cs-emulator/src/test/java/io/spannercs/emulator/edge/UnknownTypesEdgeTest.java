package io.spannercs.emulator.edge;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.Timestamp;
import io.spannercs.emulator.EdgeCase;
import io.spannercs.emulator.EdgeCases;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.storage.CommittedTransaction;
import io.spannercs.emulator.testing.EdgeChecks;
import io.spannercs.emulator.testing.EdgeScenario;
import io.spannercs.emulator.testing.EdgeTolerantReader;
import io.spannercs.emulator.testing.EmulatorClients;
import io.spannercs.emulator.testing.ReadRecord;
import io.spannercs.emulator.testing.TestTimes;
import io.spannercs.emulator.workload.WorkloadConfig;
import io.spannercs.emulator.workload.WorkloadGenerator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * unknown-types: data records of about one transaction in 40 carry enum values the proto does not
 * define (mutable: mod_type 7, value_capture_type 9; legacy and PostgreSQL JSON: FUTURE_MOD_TYPE,
 * FUTURE_VALUE_CAPTURE_TYPE), chosen from the seed and the server transaction id; UUID columns
 * appear as TypeCode.UUID.
 */
class UnknownTypesEdgeTest {

    @ParameterizedTest
    @CsvSource({"false,mut", "false,imm", "true,mut", "true,imm"})
    void chosenTransactionsCarryUnknownEnumValues(boolean postgres, String stream) {
        try (EdgeScenario s =
                EdgeScenario.start(EdgeCases.of(EdgeCase.UNKNOWN_TYPES), postgres, b -> {})
                        .write(240, 2, 20)) {
            EdgeCases edges = s.emulator().edgeCases();
            List<CommittedTransaction> truth = s.emulator().database().groundTruth();
            long chosen =
                    truth.stream()
                            .filter(t -> edges.sendsUnknownEnums(t.serverTransactionId()))
                            .count();
            assertThat(chosen).isPositive().isLessThan(truth.size() / 10 + 2);
            assertThat(s.emulator().edgeCaseCounts().get(EdgeCase.UNKNOWN_TYPES)).isPositive();

            Map<String, List<ReadRecord>> partitions = s.readAndCheck(stream, true);
            boolean mutable = s.mutable(stream);
            String modType = mutable ? "UNRECOGNIZED(7)" : EdgeCases.UNKNOWN_MOD_TYPE_NAME;
            String capture =
                    mutable ? "UNRECOGNIZED(9)" : EdgeCases.UNKNOWN_VALUE_CAPTURE_TYPE_NAME;
            int unknown = 0;
            for (ReadRecord r : EdgeChecks.dataRecords(partitions)) {
                boolean expected = edges.sendsUnknownEnums(r.data().serverTransactionId());
                assertThat(r.data().modType().equals(modType)).isEqualTo(expected);
                assertThat(r.data().valueCaptureType().equals(capture)).isEqualTo(expected);
                if (expected) {
                    unknown++;
                }
            }
            assertThat(unknown).isPositive();
        }
    }

    @ParameterizedTest
    @CsvSource({"MUTABLE_KEY_RANGE", "IMMUTABLE_KEY_RANGE"})
    void workloadWritesUuidColumnsThatStreamsDescribe(String mode) {
        String ddl =
                "CREATE TABLE Things (Id UUID NOT NULL, Other UUID, Many ARRAY<UUID>, N INT64)"
                        + " PRIMARY KEY (Id);\n"
                        + "CREATE CHANGE STREAM cs FOR ALL OPTIONS (partition_mode = '"
                        + mode
                        + "');";
        try (SpannerEmulator emulator =
                        SpannerEmulator.builder()
                                .ddl(ddl)
                                .edgeCases(EdgeCases.of(EdgeCase.UNKNOWN_TYPES))
                                .start();
                EmulatorClients clients = new EmulatorClients(emulator)) {
            Timestamp start = TestTimes.now();
            new WorkloadGenerator(
                            emulator.database(),
                            WorkloadConfig.builder().seed(4).keySpace(50).build())
                    .runTransactions(200);
            Timestamp end = TestTimes.now();
            boolean mutable = mode.startsWith("MUTABLE");
            Map<String, List<ReadRecord>> partitions =
                    new EdgeTolerantReader(clients.client(), "cs", mutable).readAll(start, end);
            EdgeChecks.checkStream(
                    emulator.database().changeStream("cs").def(),
                    emulator.database().groundTruth(),
                    emulator.edgeCases(),
                    mutable,
                    mutable,
                    partitions,
                    false);
            List<ReadRecord> data = EdgeChecks.dataRecords(partitions);
            assertThat(data).isNotEmpty();
            for (ReadRecord r : data) {
                for (ReadRecord.Column c : r.data().columns()) {
                    if (c.name().equals("Id") || c.name().equals("Other")) {
                        assertThat(c.typeCode()).isEqualTo("UUID");
                    }
                }
                for (ReadRecord.Mod m : r.data().mods()) {
                    assertThat(m.keys().get("Id").getStringValue())
                            .matches(
                                    "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
                }
            }
        }
    }
}
