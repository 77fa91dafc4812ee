package io.spannercs.flink.operators;

import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Type information of {@link SpannerTransaction}: an atomic type serialized by {@link
 * SpannerTransactionSerializer} rather than Kryo. Not a key type; key by a field instead.
 *
 * <p>{@link SpannerTransaction} names {@link Factory} in its {@code @TypeInfo} annotation, so
 * Flink's type extraction and {@code TypeInformation.of(SpannerTransaction.class)} return this type
 * information too.
 */
@PublicEvolving
public final class SpannerTransactionTypeInfo extends TypeInformation<SpannerTransaction> {
    private static final long serialVersionUID = 1L;

    /** The type information; it has no state. */
    public static final SpannerTransactionTypeInfo INSTANCE = new SpannerTransactionTypeInfo();

    private SpannerTransactionTypeInfo() {}

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
    public Class<SpannerTransaction> getTypeClass() {
        return SpannerTransaction.class;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<SpannerTransaction> createSerializer(SerializerConfig config) {
        return SpannerTransactionSerializer.INSTANCE;
    }

    @Override
    public String toString() {
        return "SpannerTransaction";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SpannerTransactionTypeInfo;
    }

    @Override
    public int hashCode() {
        return SpannerTransactionTypeInfo.class.getName().hashCode();
    }

    @Override
    public boolean canEqual(Object o) {
        return o instanceof SpannerTransactionTypeInfo;
    }

    private Object readResolve() {
        return INSTANCE;
    }

    /**
     * Creates {@link SpannerTransactionTypeInfo} wherever Flink extracts the type of a transaction.
     */
    public static final class Factory extends TypeInfoFactory<SpannerTransaction> {
        @Override
        public TypeInformation<SpannerTransaction> createTypeInfo(
                Type t, Map<String, TypeInformation<?>> genericParameters) {
            return INSTANCE;
        }
    }
}
