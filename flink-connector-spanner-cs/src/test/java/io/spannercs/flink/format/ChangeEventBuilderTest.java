package io.spannercs.flink.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChangeEventBuilderTest {

    @Test
    void everyFieldSetIsReadBack() {
        ChangeEvent e =
                ChangeEvent.builder()
                        .table("T")
                        .changeType(ChangeType.UPDATE)
                        .keys(Map.of("Id", 1L))
                        .newValues(Map.of("A", "new"))
                        .oldValues(Map.of("A", "old"))
                        .commitTimestamp(Instant.ofEpochSecond(7, 8000))
                        .serverTransactionId("tx")
                        .recordSequence("00000002")
                        .modNumber(3)
                        .transactionTag("tag")
                        .systemTransaction(true)
                        .partitionToken("p")
                        .numberOfRecordsInTransaction(4)
                        .numberOfPartitionsInTransaction(5)
                        .valueCaptureType("OLD_AND_NEW_VALUES")
                        .columnTypes(Map.of("Id", "INT64"))
                        .snapshot(true)
                        .build();

        assertThat(e.getTable()).isEqualTo("T");
        assertThat(e.getChangeType()).isEqualTo(ChangeType.UPDATE);
        assertThat(e.getKeys()).containsExactly(Map.entry("Id", 1L));
        assertThat(e.getNewValues()).containsExactly(Map.entry("A", "new"));
        assertThat(e.getOldValues()).containsExactly(Map.entry("A", "old"));
        assertThat(e.getCommitTimestamp()).isEqualTo(Instant.ofEpochSecond(7, 8000));
        assertThat(e.getServerTransactionId()).isEqualTo("tx");
        assertThat(e.getRecordSequence()).isEqualTo("00000002");
        assertThat(e.getModNumber()).isEqualTo(3);
        assertThat(e.getTransactionTag()).isEqualTo("tag");
        assertThat(e.isSystemTransaction()).isTrue();
        assertThat(e.getPartitionToken()).isEqualTo("p");
        assertThat(e.getNumberOfRecordsInTransaction()).isEqualTo(4);
        assertThat(e.getNumberOfPartitionsInTransaction()).isEqualTo(5);
        assertThat(e.getValueCaptureType()).isEqualTo("OLD_AND_NEW_VALUES");
        assertThat(e.getColumnTypes()).containsExactly(Map.entry("Id", "INT64"));
        assertThat(e.isSnapshot()).isTrue();
        assertThat(e.getRawChangeType()).isEqualTo("UPDATE");
    }

    @Test
    void unsetMapsAreEmpty() {
        ChangeEvent e = ChangeEvent.builder().table("T").changeType(ChangeType.INSERT).build();

        assertThat(e.getKeys()).isEmpty();
        assertThat(e.getNewValues()).isEmpty();
        assertThat(e.getOldValues()).isEmpty();
        assertThat(e.getColumnTypes()).isEmpty();
    }

    @Test
    void buildCopiesTheMapsButBuildOwningMapsKeepsThem() {
        Map<String, Object> keys = new LinkedHashMap<>(Map.of("Id", 1L));
        ChangeEvent.Builder b = ChangeEvent.builder().table("T").keys(keys);
        ChangeEvent copied = b.build();
        ChangeEvent owning = b.buildOwningMaps();

        keys.put("Id2", 2L);

        assertThat(copied.getKeys()).containsOnlyKeys("Id");
        assertThat(owning.getKeys()).containsOnlyKeys("Id", "Id2");
    }

    @Test
    void oneBuilderBuildsTheModsOfOneRecord() {
        ChangeEvent.Builder b =
                ChangeEvent.builder().table("T").serverTransactionId("tx").recordSequence("1");
        ChangeEvent first = b.keys(Map.of("Id", 1L)).modNumber(0).build();
        ChangeEvent second = b.keys(Map.of("Id", 2L)).modNumber(1).build();

        assertThat(first.getKeys()).containsEntry("Id", 1L);
        assertThat(first.getModNumber()).isZero();
        assertThat(second.getKeys()).containsEntry("Id", 2L);
        assertThat(second.getModNumber()).isEqualTo(1);
        assertThat(second.getServerTransactionId()).isEqualTo("tx");
    }

    @Test
    void aRawChangeTypeIsKeptOnlyWhenItDiffersFromTheChangeType() {
        ChangeEvent unknown =
                ChangeEvent.builder()
                        .changeType(ChangeType.UNKNOWN)
                        .rawChangeType("UPSERT")
                        .build();
        ChangeEvent same =
                ChangeEvent.builder().changeType(ChangeType.INSERT).rawChangeType("INSERT").build();

        assertThat(unknown.getRawChangeType()).isEqualTo("UPSERT");
        assertThat(same.getRawChangeType()).isEqualTo("INSERT");
        assertThat(same).isEqualTo(ChangeEvent.builder().changeType(ChangeType.INSERT).build());
    }
}
