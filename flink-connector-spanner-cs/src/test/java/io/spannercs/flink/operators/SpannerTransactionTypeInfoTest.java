package io.spannercs.flink.operators;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeInformationTestBase;
import org.junit.jupiter.api.Test;

/**
 * Flink's type information contract for {@link SpannerTransactionTypeInfo} (the cases inherited
 * from {@link TypeInformationTestBase}), and that Flink's type extraction finds it.
 */
class SpannerTransactionTypeInfoTest extends TypeInformationTestBase<SpannerTransactionTypeInfo> {
    @Override
    protected SpannerTransactionTypeInfo[] getTestData() {
        return new SpannerTransactionTypeInfo[] {SpannerTransactionTypeInfo.INSTANCE};
    }

    @Test
    void typeExtractionUsesItAndItsSerializerNotKryo() {
        assertThat(TypeInformation.of(SpannerTransaction.class))
                .isSameAs(SpannerTransactionTypeInfo.INSTANCE);
        assertThat(SpannerTransactionTypeInfo.INSTANCE.createSerializer(new SerializerConfigImpl()))
                .isSameAs(SpannerTransactionSerializer.INSTANCE);
        assertThat(SpannerTransactionTypeInfo.INSTANCE.isKeyType()).isFalse();
        assertThat(SpannerTransactionTypeInfo.INSTANCE).hasToString("SpannerTransaction");
    }
}
