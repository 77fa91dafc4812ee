package io.spannercs.flink.operators;

import org.apache.flink.api.common.typeutils.TypeInformationTestBase;

/** Flink's type information contract for {@link SpannerTransactionTypeInfo}. */
class SpannerTransactionTypeInfoTest extends TypeInformationTestBase<SpannerTransactionTypeInfo> {
    @Override
    protected SpannerTransactionTypeInfo[] getTestData() {
        return new SpannerTransactionTypeInfo[] {SpannerTransactionTypeInfo.INSTANCE};
    }
}
