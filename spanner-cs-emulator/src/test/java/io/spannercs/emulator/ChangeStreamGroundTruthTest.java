package io.spannercs.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.Timestamp;
import io.spannercs.emulator.changestream.ChangeStream;
import io.spannercs.emulator.schema.ChangeStreamDef;
import io.spannercs.emulator.schema.PartitionMode;
import io.spannercs.emulator.testing.ClientChangeStreamReader;
import io.spannercs.emulator.testing.EmulatorClients;
import io.spannercs.emulator.testing.ExpectedMod;
import io.spannercs.emulator.testing.GroundTruthChecks;
import io.spannercs.emulator.testing.RandomClientWrites;
import io.spannercs.emulator.testing.ReadRecord;
import io.spannercs.emulator.testing.TestTimes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Writes random transactions through the official client while partitions churn, then reads every
 * change stream back with the official client and compares with the emulator's ground truth: every
 * change exactly once with the values its capture type promises, transaction metadata consistent,
 * record order as Spanner states it, and each key's changes only moving along the partition graph.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ChangeStreamGroundTruthTest {
    private static final String[] CAPTURES = {
        "OLD_AND_NEW_VALUES", "NEW_VALUES", "NEW_ROW", "NEW_ROW_AND_OLD_VALUES"
    };

    private SpannerEmulator emulator;
    private EmulatorClients clients;
    private Timestamp start;
    private Timestamp end;

    @BeforeAll
    void writeWithChurn() {
        StringBuilder ddl = new StringBuilder(RandomClientWrites.TABLES);
        for (String mode : new String[] {"MUTABLE_KEY_RANGE", "IMMUTABLE_KEY_RANGE"}) {
            for (String capture : CAPTURES) {
                ddl.append(
                        String.format(
                                "CREATE CHANGE STREAM %s_%s FOR ALL OPTIONS (partition_mode = '%s',"
                                        + " value_capture_type = '%s');\n",
                                mode.substring(0, 3), capture, mode, capture));
            }
            ddl.append(
                    String.format(
                            "CREATE CHANGE STREAM %s_cols FOR Items(Name, Price), Lines()"
                                    + " OPTIONS (partition_mode = '%s');\n",
                            mode.substring(0, 3), mode));
        }
        emulator =
                SpannerEmulator.builder()
                        .ddl(ddl.toString())
                        .initialPartitions(3)
                        .maxPartitions(6)
                        .seed(7)
                        .start();
        clients = new EmulatorClients(emulator);
        start = TestTimes.now();
        RandomClientWrites writes = new RandomClientWrites(11, 40);
        for (int i = 0; i < 400; i++) {
            writes.writeOne(clients.client());
            if (i % 7 == 0) {
                for (ChangeStream cs : emulator.database().changeStreams()) {
                    cs.churnRandomly();
                }
            }
        }
        end = TestTimes.now();
        assertThat(emulator.database().groundTruth()).hasSizeGreaterThan(200);
    }

    @AfterAll
    void stop() {
        clients.close();
        emulator.close();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "MUT_OLD_AND_NEW_VALUES",
                "MUT_NEW_VALUES",
                "MUT_NEW_ROW",
                "MUT_NEW_ROW_AND_OLD_VALUES",
                "MUT_cols",
                "IMM_OLD_AND_NEW_VALUES",
                "IMM_NEW_VALUES",
                "IMM_NEW_ROW",
                "IMM_NEW_ROW_AND_OLD_VALUES",
                "IMM_cols"
            })
    void streamMatchesGroundTruth(String streamName) {
        ChangeStreamDef def = emulator.database().changeStream(streamName).def();
        boolean mutable = def.partitionMode() == PartitionMode.MUTABLE_KEY_RANGE;
        Map<String, List<ReadRecord>> partitions =
                new ClientChangeStreamReader(clients.client(), streamName, mutable)
                        .readAll(start, end);

        List<ExpectedMod> expected = ExpectedMod.forStream(def, emulator.database().groundTruth());
        List<ExpectedMod> actual = new ArrayList<>();
        List<ReadRecord> dataRecords = new ArrayList<>();
        for (List<ReadRecord> records : partitions.values()) {
            for (ReadRecord r : records) {
                if (r.kind() == ReadRecord.Kind.DATA) {
                    dataRecords.add(r);
                    r.data().mods().forEach(m -> actual.add(ExpectedMod.fromRecord(r, m)));
                }
            }
        }
        assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(actual).doesNotHaveDuplicates();
        assertThat(partitions.size()).as("partitions read").isGreaterThan(3);

        GroundTruthChecks.checkTransactionMetadata(def, dataRecords);
        partitions.values().forEach(GroundTruthChecks::checkOrderWithinPartition);
        GroundTruthChecks.checkKeyContinuity(partitions, mutable);
    }
}
