package io.spannercs.flink.format.datastream;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventDeserializer;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.util.Collector;

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
        return new ToString(new DatastreamJsonSerializer(context));
    }

    /** Emits each change as UTF-8 JSON bytes, e.g. for a Kafka sink. */
    public static ChangeEventDeserializer<byte[]> bytesDeserializer(DatastreamContext context) {
        return new ToBytes(new DatastreamJsonSerializer(context));
    }

    private static final class ToString implements ChangeEventDeserializer<String> {
        private static final long serialVersionUID = 1L;
        private final DatastreamJsonSerializer serializer;

        ToString(DatastreamJsonSerializer serializer) {
            this.serializer = serializer;
        }

        @Override
        public void deserialize(ChangeEvent event, Collector<String> out) {
            out.collect(serializer.toJson(event));
        }

        @Override
        public TypeInformation<String> getProducedType() {
            return Types.STRING;
        }
    }

    private static final class ToBytes implements ChangeEventDeserializer<byte[]> {
        private static final long serialVersionUID = 1L;
        private final DatastreamJsonSerializer serializer;

        ToBytes(DatastreamJsonSerializer serializer) {
            this.serializer = serializer;
        }

        @Override
        public void deserialize(ChangeEvent event, Collector<byte[]> out) {
            out.collect(serializer.toJsonBytes(event));
        }

        @Override
        public TypeInformation<byte[]> getProducedType() {
            return PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO;
        }
    }
}
