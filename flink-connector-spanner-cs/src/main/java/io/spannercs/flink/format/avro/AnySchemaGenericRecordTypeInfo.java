package io.spannercs.flink.format.avro;

import io.spannercs.flink.format.SingletonTypeInfo;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Type information for {@link GenericRecord}s of any schema, such as the change events of many
 * tables in one stream. flink-avro's {@code GenericRecordAvroTypeInfo} needs the one schema of all
 * records up front; here each record carries its own (see {@link
 * AnySchemaGenericRecordSerializer}).
 */
@PublicEvolving
public final class AnySchemaGenericRecordTypeInfo extends SingletonTypeInfo<GenericRecord> {
    private static final long serialVersionUID = 1L;

    public static final AnySchemaGenericRecordTypeInfo INSTANCE =
            new AnySchemaGenericRecordTypeInfo();

    private AnySchemaGenericRecordTypeInfo() {
        super(GenericRecord.class, "GenericRecord(any schema)");
    }

    @Override
    public TypeSerializer<GenericRecord> createSerializer(SerializerConfig config) {
        return new AnySchemaGenericRecordSerializer();
    }

    /** Keeps the singleton a singleton after Java deserialization. */
    private Object readResolve() {
        return INSTANCE;
    }
}
