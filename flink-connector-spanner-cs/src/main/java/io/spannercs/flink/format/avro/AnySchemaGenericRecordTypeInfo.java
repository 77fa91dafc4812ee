package io.spannercs.flink.format.avro;

import org.apache.avro.generic.GenericRecord;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Type information for {@link GenericRecord}s of any schema, such as the change events of many
 * tables in one stream. flink-avro's {@code GenericRecordAvroTypeInfo} needs the one schema of all
 * records up front; here each record carries its own (see {@link
 * AnySchemaGenericRecordSerializer}).
 */
@PublicEvolving
public final class AnySchemaGenericRecordTypeInfo extends TypeInformation<GenericRecord> {
    private static final long serialVersionUID = 1L;

    public static final AnySchemaGenericRecordTypeInfo INSTANCE =
            new AnySchemaGenericRecordTypeInfo();

    private AnySchemaGenericRecordTypeInfo() {}

    @Override
    public boolean isBasicType() {
        return false;
    }

    @Override
    public boolean isTupleType() {
        return false;
    }

    @Override
    public int getArity() {
        return 1;
    }

    @Override
    public int getTotalFields() {
        return 1;
    }

    @Override
    public Class<GenericRecord> getTypeClass() {
        return GenericRecord.class;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<GenericRecord> createSerializer(SerializerConfig config) {
        return new AnySchemaGenericRecordSerializer();
    }

    @Override
    public String toString() {
        return "GenericRecord(any schema)";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AnySchemaGenericRecordTypeInfo;
    }

    @Override
    public int hashCode() {
        return AnySchemaGenericRecordTypeInfo.class.hashCode();
    }

    @Override
    public boolean canEqual(Object o) {
        return o instanceof AnySchemaGenericRecordTypeInfo;
    }

    /** Keeps the singleton a singleton after Java deserialization. */
    private Object readResolve() {
        return INSTANCE;
    }
}
