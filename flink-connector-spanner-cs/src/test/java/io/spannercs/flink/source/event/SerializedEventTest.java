package io.spannercs.flink.source.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.spanner.Dialect;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.split.PartitionReport;
import java.io.InvalidObjectException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.Test;

/** Source events survive the Java serialization Flink's RPC applies, in their binary form. */
class SerializedEventTest {

    private static final List<PartitionReport> EVERY_REPORT =
            List.of(
                    new PartitionReport.Discovered(
                            "p1",
                            10,
                            List.of(
                                    new PartitionReport.NewPartition("c1", 11, List.of("p1")),
                                    new PartitionReport.NewPartition(
                                            "c2", 12, List.of("p1", "p0")))),
                    new PartitionReport.Finished("p1", 20),
                    new PartitionReport.BarrierReached("p2", 30, List.of("p1", "p3")),
                    new PartitionReport.MovedOut("p3", 40, List.of("p2")),
                    new PartitionReport.SnapshotFinished("snapshot-0", 1234));

    @Test
    void everyEventComesBackEqual() throws Exception {
        Map<String, Long> progress = new LinkedHashMap<>();
        progress.put("p2", 25L);
        progress.put("p3", 41L);
        SplitsResumedEvent resumed =
                new SplitsResumedEvent(
                        List.of(
                                new SplitsResumedEvent.ResumedSplit(
                                        "p2", 5, List.of("p0"), 25, 30, List.of("p1"), false),
                                new SplitsResumedEvent.ResumedSplit(
                                        "p4", 6, List.of(), 6, -1, List.of(), true)),
                        List.of("snapshot-1"));
        List<SourceEvent> events =
                List.of(
                        new ReaderReportsEvent(resumed, EVERY_REPORT, progress),
                        new ReaderReportsEvent(List.of(), Map.of()),
                        new ReleaseBarrierEvent("p2", 30),
                        new LowWatermarkEvent(Long.MIN_VALUE),
                        new AckReportsEvent(List.of("F|p1|20", "B|p2|30")),
                        new AssignedElsewhereEvent(List.of("c1")),
                        new StreamShapeEvent(
                                Dialect.POSTGRESQL,
                                SpannerSourceConfig.PartitionMode.IMMUTABLE_KEY_RANGE),
                        new ReaderFailingEvent("java.io.IOException: ünïcode cause"),
                        new ReaderFailingEvent(""),
                        new EventsStoppedEvent(),
                        new EnumeratorEventsEvent(
                                List.of(
                                        new StreamShapeEvent(
                                                Dialect.GOOGLE_STANDARD_SQL,
                                                SpannerSourceConfig.PartitionMode
                                                        .MUTABLE_KEY_RANGE),
                                        new ReleaseBarrierEvent("p2", 30),
                                        new LowWatermarkEvent(29),
                                        new AckReportsEvent(List.of("F|p1|20")))));
        for (SourceEvent event : events) {
            assertThat(roundTrip(event)).isEqualTo(event);
        }
    }

    @Test
    void aLongFailureCauseIsCutToTheLimit() throws Exception {
        ReaderFailingEvent event = new ReaderFailingEvent("x".repeat(100_000));
        assertThat(event.cause()).hasSize(ReaderFailingEvent.MAX_CAUSE_LENGTH + 3).endsWith("...");
        assertThat(roundTrip(event)).isEqualTo(event);
    }

    @Test
    void theWireFormNamesNoClassButTheEnvelope() throws Exception {
        byte[] bytes =
                InstantiationUtil.serializeObject(
                        new ReaderReportsEvent(EVERY_REPORT, Map.of("p2", 25L)));
        String wire = new String(bytes, StandardCharsets.ISO_8859_1);
        assertThat(wire).contains(SerializedEvent.class.getName());
        assertThat(wire)
                .doesNotContain("PartitionReport")
                .doesNotContain("ReaderReportsEvent")
                .doesNotContain("java.util");
    }

    @Test
    void unreadableBytesFailWithTheReason() throws Exception {
        byte[] bytes = InstantiationUtil.serializeObject(new LowWatermarkEvent(7));
        // The last byte belongs to the event's long; one kind byte further on cannot be read.
        byte[] kindChanged = bytes.clone();
        int kindAt = indexOfEventBytes(kindChanged);
        kindChanged[kindAt] = 99;
        assertThatThrownBy(
                        () ->
                                InstantiationUtil.deserializeObject(
                                        kindChanged, getClass().getClassLoader()))
                .isInstanceOf(InvalidObjectException.class)
                .hasMessageContaining("Unknown source event kind 99");
    }

    private static SourceEvent roundTrip(SourceEvent event) throws Exception {
        return InstantiationUtil.deserializeObject(
                InstantiationUtil.serializeObject(event),
                SerializedEventTest.class.getClassLoader());
    }

    /** Where the event's own bytes (kind byte, then a long) start: the last 9 bytes. */
    private static int indexOfEventBytes(byte[] serialized) {
        return serialized.length - 9;
    }
}
