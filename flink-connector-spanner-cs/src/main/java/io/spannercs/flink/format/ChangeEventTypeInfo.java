package io.spannercs.flink.format;

import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Type information of {@link ChangeEvent}: an atomic type serialized by {@link
 * ChangeEventSerializer} rather than Kryo. Not a key type; key by a field of the event instead.
 *
 * <p>{@link ChangeEvent} names {@link Factory} in its {@code @TypeInfo} annotation, so Flink's type
 * extraction (for example of a {@code ProcessFunction<ChangeEvent, ChangeEvent>}'s output) and
 * {@code TypeInformation.of(ChangeEvent.class)} return this type information too.
 */
@PublicEvolving
public final class ChangeEventTypeInfo extends SingletonTypeInfo<ChangeEvent> {
    private static final long serialVersionUID = 1L;

    /** The type information; it has no state. */
    public static final ChangeEventTypeInfo INSTANCE = new ChangeEventTypeInfo();

    private ChangeEventTypeInfo() {
        super(ChangeEvent.class, "ChangeEvent");
    }

    @Override
    public TypeSerializer<ChangeEvent> createSerializer(SerializerConfig config) {
        return ChangeEventSerializer.INSTANCE;
    }

    private Object readResolve() {
        return INSTANCE;
    }

    /** Creates {@link ChangeEventTypeInfo} wherever Flink extracts the type of a ChangeEvent. */
    public static final class Factory extends TypeInfoFactory<ChangeEvent> {
        @Override
        public TypeInformation<ChangeEvent> createTypeInfo(
                Type t, Map<String, TypeInformation<?>> genericParameters) {
            return INSTANCE;
        }
    }
}
