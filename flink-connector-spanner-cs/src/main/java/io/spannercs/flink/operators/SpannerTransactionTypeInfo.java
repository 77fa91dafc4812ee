package io.spannercs.flink.operators;

import io.spannercs.flink.format.SingletonTypeInfo;
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
public final class SpannerTransactionTypeInfo extends SingletonTypeInfo<SpannerTransaction> {
    private static final long serialVersionUID = 1L;

    /** The type information; it has no state. */
    public static final SpannerTransactionTypeInfo INSTANCE = new SpannerTransactionTypeInfo();

    private SpannerTransactionTypeInfo() {
        super(SpannerTransaction.class, "SpannerTransaction");
    }

    @Override
    public TypeSerializer<SpannerTransaction> createSerializer(SerializerConfig config) {
        return SpannerTransactionSerializer.INSTANCE;
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
