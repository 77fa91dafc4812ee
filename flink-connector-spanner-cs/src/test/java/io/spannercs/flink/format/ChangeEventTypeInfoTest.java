package io.spannercs.flink.format;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeInformationTestBase;
import org.apache.flink.api.java.typeutils.TypeExtractor;
import org.junit.jupiter.api.Test;

/** Flink's type information contract for {@link ChangeEventTypeInfo}, and where Flink uses it. */
class ChangeEventTypeInfoTest extends TypeInformationTestBase<ChangeEventTypeInfo> {

    @Override
    protected ChangeEventTypeInfo[] getTestData() {
        return new ChangeEventTypeInfo[] {ChangeEventTypeInfo.INSTANCE};
    }

    @Test
    void theSourceAndTypeExtractionUseItInsteadOfKryo() {
        assertThat(ChangeEventDeserializer.changeEvents().getProducedType())
                .isSameAs(ChangeEventTypeInfo.INSTANCE);
        assertThat(TypeInformation.of(ChangeEvent.class)).isEqualTo(ChangeEventTypeInfo.INSTANCE);
        assertThat(TypeExtractor.getMapReturnTypes(new Identity(), ChangeEventTypeInfo.INSTANCE))
                .isEqualTo(ChangeEventTypeInfo.INSTANCE);
        assertThat(ChangeEventTypeInfo.INSTANCE.createSerializer(new SerializerConfigImpl()))
                .isSameAs(ChangeEventSerializer.INSTANCE);
    }

    private static final class Identity implements MapFunction<ChangeEvent, ChangeEvent> {
        @Override
        public ChangeEvent map(ChangeEvent e) {
            return e;
        }
    }
}
