package io.spannercs.flink.source.testsuite;

import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.storage.Timestamps;
import java.net.URL;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.connector.testframe.external.ExternalSystemSplitDataWriter;
import org.apache.flink.connector.testframe.external.source.DataStreamSourceExternalContext;
import org.apache.flink.connector.testframe.external.source.TestingSourceSettings;

/**
 * One test case's view of the emulator.
 *
 * <ul>
 *   <li>A suite <em>split</em> is one row key of {@link SpannerEmulatorExternalSystem#TABLE}: each
 *       split writer updates its own key, one transaction per record (see {@link
 *       PayloadSplitWriter}). The change stream's partitions are the source's splits, unrelated to
 *       the suite's: keys share partitions, and partitions split, merge and move under them.
 *   <li>The sources read the change stream from the moment this context was created, so they see
 *       exactly this test case's writes (earlier cases wrote before that moment, under other keys).
 *   <li>A bounded source ends at the commit timestamp of the last record written through this
 *       context (see {@link EndAtLastWriteSource}); an unbounded source never ends.
 *   <li>Records are unique strings naming the context, split, batch and index, so the suite's
 *       equality checks can tell any two apart.
 * </ul>
 */
final class SpannerSourceExternalContext implements DataStreamSourceExternalContext<String> {
    static final Duration HEARTBEAT = Duration.ofMillis(100);

    /** Commit timestamp of the last write of each live context, for bounded sources' ends. */
    private static final Map<String, AtomicLong> LAST_COMMIT_MICROS = new ConcurrentHashMap<>();

    private static final AtomicInteger CONTEXTS = new AtomicInteger();

    private final SpannerEmulator emulator;
    private final SourceParams params;
    private final AtomicInteger writers = new AtomicInteger();
    private final AtomicInteger batches = new AtomicInteger();
    private final List<PayloadSplitWriter> openWriters = new ArrayList<>();

    SpannerSourceExternalContext(SpannerEmulator emulator, String changeStream, String testName) {
        this.emulator = emulator;
        String id = "ctx" + CONTEXTS.incrementAndGet() + "-" + testName.replaceAll("\\W+", "");
        Instant start = Timestamps.toInstant(Timestamps.nowMicros());
        this.params =
                new SourceParams(
                        id,
                        emulator.projectId(),
                        emulator.instanceId(),
                        emulator.databaseId(),
                        emulator.hostPort(),
                        changeStream,
                        start,
                        HEARTBEAT);
        LAST_COMMIT_MICROS.put(id, new AtomicLong(Timestamps.toMicros(start)));
    }

    /** The end of this context's bounded sources: the last commit written so far. */
    static Instant boundedEnd(String contextId) {
        AtomicLong last = LAST_COMMIT_MICROS.get(contextId);
        if (last == null) {
            throw new IllegalStateException(
                    "External context " + contextId + " is closed or in another JVM");
        }
        return Timestamps.toInstant(last.get());
    }

    @Override
    public Source<String, ?, ?> createSource(TestingSourceSettings settings) {
        if (settings.getBoundedness() == Boundedness.BOUNDED) {
            return new EndAtLastWriteSource(params);
        }
        return params.build(null);
    }

    @Override
    public ExternalSystemSplitDataWriter<String> createSourceSplitDataWriter(
            TestingSourceSettings settings) {
        String key = params.contextId() + "/split-" + writers.getAndIncrement();
        AtomicLong last = LAST_COMMIT_MICROS.get(params.contextId());
        PayloadSplitWriter writer =
                new PayloadSplitWriter(
                        emulator.database(),
                        key,
                        micros -> last.accumulateAndGet(micros, Math::max));
        openWriters.add(writer);
        return writer;
    }

    @Override
    public List<String> generateTestData(
            TestingSourceSettings settings, int splitIndex, long seed) {
        Random random = new Random(seed);
        int batch = batches.incrementAndGet();
        int n = 20 + random.nextInt(41);
        List<String> records = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            records.add(
                    String.format(
                            "%s|split-%d|batch-%d|%03d|%08x",
                            params.contextId(), splitIndex, batch, i, random.nextInt()));
        }
        return records;
    }

    @Override
    public TypeInformation<String> getProducedType() {
        return new PayloadDeserializer().getProducedType();
    }

    @Override
    public List<URL> getConnectorJarPaths() {
        return List.of(); // the MiniCluster runs on the test class path
    }

    @Override
    public void close() {
        openWriters.forEach(PayloadSplitWriter::close);
        LAST_COMMIT_MICROS.remove(params.contextId());
    }

    @Override
    public String toString() {
        return params.changeStream();
    }
}
