package io.spannercs.flink.format.avro;

import org.apache.avro.generic.GenericRecord;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.functions.sink.filesystem.OutputFileConfig;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.OnCheckpointRollingPolicy;

/**
 * An exactly-once {@link FileSink} for change event records ({@link AvroChangeEventDeserializer}):
 * Avro container files, each with its schema in the header, under {@code
 * <base>/<table>/<schema_key>/part-<writer uuid>-<n>.avro}.
 *
 * <p>Files roll at every checkpoint and become visible (renamed from hidden in-progress files) when
 * the checkpoint completes, so with checkpointing enabled every change lands in exactly one
 * finished file, also across failures. Without checkpointing files never finish.
 *
 * <pre>{@code
 * env.enableCheckpointing(60_000);
 * env.fromSource(source, WatermarkStrategy.noWatermarks(), "spanner")
 *     .sinkTo(SpannerAvroFileSink.builder(new Path("gs://bucket/orders")).build());
 * }</pre>
 */
@PublicEvolving
public final class SpannerAvroFileSink {
    private SpannerAvroFileSink() {}

    /** Uncompressed files. */
    public static FileSink.DefaultBulkFormatBuilder<GenericRecord> builder(Path basePath) {
        return builder(basePath, "null");
    }

    /**
     * A sink builder with table buckets, the codec, rolling on checkpoints and the {@code .avro}
     * suffix set; the rest of the builder's settings keep FileSink's defaults.
     *
     * @param codec see {@link SchemaPerFileAvroWriterFactory#SchemaPerFileAvroWriterFactory}
     */
    public static FileSink.DefaultBulkFormatBuilder<GenericRecord> builder(
            Path basePath, String codec) {
        return FileSink.forBulkFormat(basePath, new SchemaPerFileAvroWriterFactory(codec))
                .withBucketAssigner(new TableBucketAssigner())
                .withRollingPolicy(OnCheckpointRollingPolicy.build())
                .withOutputFileConfig(OutputFileConfig.builder().withPartSuffix(".avro").build());
    }
}
