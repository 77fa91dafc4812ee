package io.spannercs.flink.format;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.util.Collector;

/**
 * The source's deserializers that emit each change as JSON in some format: what {@code
 * DatastreamJson} and {@code DebeziumJson} hand out, each with its own writer.
 */
@Internal
public final class JsonDeserializers {
    private JsonDeserializers() {}

    /** Emits each change as a JSON string. */
    public static ChangeEventDeserializer<String> strings(ChangeEventJsonWriter writer) {
        return new ToString(writer);
    }

    /** Emits each change as UTF-8 JSON bytes. */
    public static ChangeEventDeserializer<byte[]> bytes(ChangeEventJsonWriter writer) {
        return new ToBytes(writer);
    }

    private static final class ToString implements ChangeEventDeserializer<String> {
        private static final long serialVersionUID = 1L;
        private final ChangeEventJsonWriter writer;

        ToString(ChangeEventJsonWriter writer) {
            this.writer = writer;
        }

        @Override
        public void deserialize(ChangeEvent event, Collector<String> out) {
            out.collect(writer.toJson(event));
        }

        @Override
        public TypeInformation<String> getProducedType() {
            return Types.STRING;
        }
    }

    private static final class ToBytes implements ChangeEventDeserializer<byte[]> {
        private static final long serialVersionUID = 1L;
        private final ChangeEventJsonWriter writer;

        ToBytes(ChangeEventJsonWriter writer) {
            this.writer = writer;
        }

        @Override
        public void deserialize(ChangeEvent event, Collector<byte[]> out) {
            out.collect(writer.toJsonBytes(event));
        }

        @Override
        public TypeInformation<byte[]> getProducedType() {
            return PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO;
        }
    }
}
