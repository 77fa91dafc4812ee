package io.spannercs.flink.format.debezium;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.format.JsonDeserializers;
import io.spannercs.flink.format.datastream.DatastreamContext;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Plugs the Debezium JSON envelope into the source, which then emits one envelope per row change:
 *
 * <pre>{@code
 * DatastreamContext context =
 *         DatastreamContext.builder("my-project", "my-instance", "my-db", "Orders_cs")
 *                 .build();
 * SpannerChangeStreamSource<String> source = SpannerChangeStreamSource.<String>builder()
 *         ...same project, instance, database and change stream...
 *         .setDeserializer(DebeziumJson.deserializer(context))
 *         .build();
 * }</pre>
 *
 * <p>Envelopes made in the source leave per-row commit order to the source alone; a job that must
 * keep it into a sink whose writers run in parallel orders {@link ChangeEvent}s first (see {@code
 * ChangeEventOrdering}) and serializes with {@link DebeziumJsonSerializer} after.
 */
@PublicEvolving
public final class DebeziumJson {
    private DebeziumJson() {}

    /** Emits each change as a JSON string. */
    public static ChangeEventDeserializer<String> deserializer(DatastreamContext context) {
        return JsonDeserializers.strings(new DebeziumJsonSerializer(context));
    }

    /** Emits each change as UTF-8 JSON bytes. */
    public static ChangeEventDeserializer<byte[]> bytesDeserializer(DatastreamContext context) {
        return JsonDeserializers.bytes(new DebeziumJsonSerializer(context));
    }
}
