package io.spannercs.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.Dialect;
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
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The PostgreSQL counterpart of {@link ChangeStreamGroundTruthTest}: random transactions through
 * the official client into a PostgreSQL-dialect database while partitions churn, then every
 * partition read back through {@code spanner.read_json_<stream>} (legacy mode) and {@code
 * spanner.read_proto_bytes_<stream>} (mutable mode) and compared with the ground truth, with the
 * same checks, plus the PostgreSQL type annotations of the column metadata.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PgChangeStreamGroundTruthTest {
    private static final String[] CAPTURES = {
        "OLD_AND_NEW_VALUES", "NEW_VALUES", "NEW_ROW", "NEW_ROW_AND_OLD_VALUES"
    };

    private SpannerEmulator emulator;
    private EmulatorClients clients;
    private Timestamp start;
    private Timestamp end;

    @BeforeAll
    void writeWithChurn() {
        StringBuilder ddl = new StringBuilder(RandomClientWrites.PG_TABLES);
        for (String mode : new String[] {"MUTABLE_KEY_RANGE", "IMMUTABLE_KEY_RANGE"}) {
            for (String capture : CAPTURES) {
                // Unquoted names fold to lower case: mut_new_row, imm_old_and_new_values, ...
                ddl.append(
                        String.format(
                                "CREATE CHANGE STREAM %s_%s FOR ALL WITH (partition_mode = '%s',"
                                        + " value_capture_type = '%s');\n",
                                mode.substring(0, 3), capture, mode, capture));
            }
            ddl.append(
                    String.format(
                            "CREATE CHANGE STREAM \"%s_Cols\" FOR items(name, price), lines()"
                                    + " WITH (partition_mode = '%s');\n",
                            mode.substring(0, 3), mode));
        }
        emulator =
                SpannerEmulator.builder()
                        .dialect(io.spannercs.emulator.schema.Dialect.POSTGRESQL)
                        .ddl(ddl.toString())
                        .initialPartitions(3)
                        .maxPartitions(6)
                        .seed(7)
                        .start();
        clients = new EmulatorClients(emulator);
        assertThat(clients.client().getDialect()).isEqualTo(Dialect.POSTGRESQL);
        start = TestTimes.now();
        RandomClientWrites writes = new RandomClientWrites(11, 40, true);
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
                "\"MUT_Cols\"",
                "IMM_OLD_AND_NEW_VALUES",
                "IMM_NEW_VALUES",
                "IMM_NEW_ROW",
                "IMM_NEW_ROW_AND_OLD_VALUES",
                "\"IMM_Cols\""
            })
    void streamMatchesGroundTruth(String ddlName) {
        String streamName =
                ddlName.startsWith("\"")
                        ? ddlName.substring(1, ddlName.length() - 1)
                        : ddlName.toLowerCase(Locale.ROOT);
        ChangeStreamDef def = emulator.database().changeStream(streamName).def();
        assertThat(def.name()).isEqualTo(streamName);
        boolean mutable = def.partitionMode() == PartitionMode.MUTABLE_KEY_RANGE;
        Map<String, List<ReadRecord>> partitions =
                new ClientChangeStreamReader(
                                clients.client(), streamName, mutable, 1000, Dialect.POSTGRESQL)
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
        checkPostgresColumnTypes(dataRecords);
    }

    /** numeric and jsonb columns carry their PostgreSQL annotations; other types none. */
    private static void checkPostgresColumnTypes(List<ReadRecord> records) {
        int annotated = 0;
        for (ReadRecord r : records) {
            for (ReadRecord.Column c : r.data().columns()) {
                switch (c.name()) {
                    case "price":
                        assertThat(c.typeCode()).isEqualTo("NUMERIC");
                        assertThat(c.typeAnnotation()).isEqualTo("PG_NUMERIC");
                        annotated++;
                        break;
                    case "meta":
                        assertThat(c.typeCode()).isEqualTo("JSON");
                        assertThat(c.typeAnnotation()).isEqualTo("PG_JSONB");
                        annotated++;
                        break;
                    default:
                        assertThat(c.typeAnnotation())
                                .as(c.name())
                                .isEqualTo("TYPE_ANNOTATION_CODE_UNSPECIFIED");
                }
            }
        }
        assertThat(annotated).as("annotated columns seen").isGreaterThan(0);
    }
}
