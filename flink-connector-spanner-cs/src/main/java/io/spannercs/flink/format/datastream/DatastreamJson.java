package io.spannercs.flink.format.datastream;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.format.JsonDeserializers;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Plugs Datastream JSON into the source, which then emits one JSON event per row change:
 *
 * <pre>{@code
 * DatastreamContext context =
 *         DatastreamContext.builder("my-project", "my-instance", "my-db", "Orders_cs")
 *                 .columnTypes(SpannerColumnTypes.read(databaseClient))
 *                 .build();
 * SpannerChangeStreamSource<String> source = SpannerChangeStreamSource.<String>builder()
 *         ...same project, instance, database and change stream...
 *         .setDeserializer(DatastreamJson.deserializer(context))
 *         .build();
 * }</pre>
 *
 * <p>The source does not hand its settings to deserializers, so the context repeats them. Turning
 * events into JSON in the source also keeps {@link ChangeEvent}s off the network.
 */
@PublicEvolving
public final class DatastreamJson {
    private DatastreamJson() {}

    /** Emits each change as a JSON string. */
    public static ChangeEventDeserializer<String> deserializer(DatastreamContext context) {
        return JsonDeserializers.strings(new DatastreamJsonSerializer(context));
    }

    /** Emits each change as UTF-8 JSON bytes, e.g. for a Kafka sink. */
    public static ChangeEventDeserializer<byte[]> bytesDeserializer(DatastreamContext context) {
        return JsonDeserializers.bytes(new DatastreamJsonSerializer(context));
    }
}
