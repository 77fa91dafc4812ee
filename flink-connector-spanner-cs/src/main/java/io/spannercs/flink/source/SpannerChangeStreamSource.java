package io.spannercs.flink.source;

import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.enumerator.ChangeStreamEnumeratorState;
import io.spannercs.flink.source.enumerator.ChangeStreamEnumeratorStateSerializer;
import io.spannercs.flink.source.enumerator.ChangeStreamSplitEnumerator;
import io.spannercs.flink.source.reader.ChangeStreamSourceReader;
import io.spannercs.flink.source.split.SpannerSplit;
import io.spannercs.flink.source.split.SpannerSplitSerializer;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A Flink source reading a Spanner change stream, in either partition mode.
 *
 * <p>Each change stream partition is a split. The enumerator discovers partitions, assigns them,
 * holds partitions at key-range move-ins until their sources have caught up (so each key's changes
 * are emitted in commit order), and tells readers the low watermark, so that event time driven by
 * heartbeats never produces a late record. Checkpoints keep each partition's last emitted position:
 * a restored job resumes exactly once.
 *
 * <pre>{@code
 * SpannerChangeStreamSource<ChangeEvent> source = SpannerChangeStreamSource.<ChangeEvent>builder()
 *     .setProjectId("p").setInstanceId("i").setDatabaseId("d")
 *     .setChangeStream("Orders_cs")
 *     .setDeserializer(ChangeEventDeserializer.changeEvents())
 *     .build();
 * env.fromSource(source, WatermarkStrategy.noWatermarks(), "spanner");
 * }</pre>
 *
 * @param <T> the type the deserializer produces
 */
@PublicEvolving
public final class SpannerChangeStreamSource<T>
        implements Source<T, SpannerSplit, ChangeStreamEnumeratorState>, ResultTypeQueryable<T> {
    private static final long serialVersionUID = 1L;

    private final SpannerSourceConfig config;
    private final ChangeEventDeserializer<T> deserializer;
    private final ChangeFilter filter;

    SpannerChangeStreamSource(
            SpannerSourceConfig config,
            ChangeEventDeserializer<T> deserializer,
            ChangeFilter filter) {
        this.config = config;
        this.deserializer = deserializer;
        this.filter = filter;
    }

    public static <T> SpannerChangeStreamSourceBuilder<T> builder() {
        return new SpannerChangeStreamSourceBuilder<>();
    }

    /** The validated options. */
    @Internal
    public SpannerSourceConfig config() {
        return config;
    }

    @Override
    public Boundedness getBoundedness() {
        return config.bounded() ? Boundedness.BOUNDED : Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SourceReader<T, SpannerSplit> createReader(SourceReaderContext context) {
        return ChangeStreamSourceReader.create(config, deserializer, filter, context);
    }

    @Override
    public SplitEnumerator<SpannerSplit, ChangeStreamEnumeratorState> createEnumerator(
            SplitEnumeratorContext<SpannerSplit> context) {
        return ChangeStreamSplitEnumerator.create(context, config, filter, null);
    }

    @Override
    public SplitEnumerator<SpannerSplit, ChangeStreamEnumeratorState> restoreEnumerator(
            SplitEnumeratorContext<SpannerSplit> context, ChangeStreamEnumeratorState state) {
        return ChangeStreamSplitEnumerator.create(context, config, filter, state);
    }

    @Override
    public SimpleVersionedSerializer<SpannerSplit> getSplitSerializer() {
        return SpannerSplitSerializer.INSTANCE;
    }

    @Override
    public SimpleVersionedSerializer<ChangeStreamEnumeratorState>
            getEnumeratorCheckpointSerializer() {
        return ChangeStreamEnumeratorStateSerializer.INSTANCE;
    }

    @Override
    public TypeInformation<T> getProducedType() {
        return deserializer.getProducedType();
    }
}
