package io.spannercs.flink.format.avro;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventDeserializer;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.util.Collector;

/**
 * Emits each change as a {@link GenericRecord} of its table's schema ({@link
 * ChangeEventAvroConverter}), for {@code SpannerChangeStreamSourceBuilder.setDeserializer}. The
 * records of all tables share one stream, typed {@link AnySchemaGenericRecordTypeInfo}; their
 * {@code object} and {@code schema_key} fields tell tables and schemas apart (as {@link
 * SpannerAvroFileSink}'s buckets do).
 *
 * <pre>{@code
 * SpannerChangeStreamSource<GenericRecord> source = SpannerChangeStreamSource.<GenericRecord>builder()
 *     ...
 *     .setDeserializer(AvroChangeEventDeserializer.of(
 *         StreamIdentity.of("my-project", "my-instance", "my-db", "Orders_cs")))
 *     .build();
 * }</pre>
 */
@PublicEvolving
public final class AvroChangeEventDeserializer implements ChangeEventDeserializer<GenericRecord> {
    private static final long serialVersionUID = 1L;

    private final ChangeEventAvroConverter converter;

    public AvroChangeEventDeserializer(ChangeEventAvroConverter converter) {
        this.converter = converter;
    }

    /** Records for the given stream, with the system clock's read timestamps. */
    public static AvroChangeEventDeserializer of(StreamIdentity stream) {
        return new AvroChangeEventDeserializer(new ChangeEventAvroConverter(stream));
    }

    @Override
    public void deserialize(ChangeEvent event, Collector<GenericRecord> out) {
        out.collect(converter.convert(event));
    }

    @Override
    public TypeInformation<GenericRecord> getProducedType() {
        return AnySchemaGenericRecordTypeInfo.INSTANCE;
    }
}
