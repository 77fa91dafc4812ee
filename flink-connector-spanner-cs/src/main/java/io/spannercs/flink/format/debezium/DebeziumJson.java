package io.spannercs.flink.format.debezium;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.format.datastream.DatastreamContext;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.util.Collector;

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
        return new ToString(new DebeziumJsonSerializer(context));
    }

    /** Emits each change as UTF-8 JSON bytes. */
    public static ChangeEventDeserializer<byte[]> bytesDeserializer(DatastreamContext context) {
        return new ToBytes(new DebeziumJsonSerializer(context));
    }

    private static final class ToString implements ChangeEventDeserializer<String> {
        private static final long serialVersionUID = 1L;
        private final DebeziumJsonSerializer serializer;

        ToString(DebeziumJsonSerializer serializer) {
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
        private final DebeziumJsonSerializer serializer;

        ToBytes(DebeziumJsonSerializer serializer) {
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
