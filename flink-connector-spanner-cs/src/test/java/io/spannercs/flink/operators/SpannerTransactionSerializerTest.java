package io.spannercs.flink.operators;

import static io.spannercs.flink.operators.OperatorEvents.event;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.junit.jupiter.api.Test;

/** Flink's serializer contract for {@link SpannerTransactionSerializer}. */
class SpannerTransactionSerializerTest extends SerializerTestBase<SpannerTransaction> {

    @Override
    protected TypeSerializer<SpannerTransaction> createSerializer() {
        return SpannerTransactionSerializer.INSTANCE;
    }

    @Override
    protected int getLength() {
        return -1;
    }

    @Override
    protected Class<SpannerTransaction> getTypeClass() {
        return SpannerTransaction.class;
    }

    @Override
    protected SpannerTransaction[] getTestData() {
        return new SpannerTransaction[] {
            new SpannerTransaction(
                    "t1",
                    Instant.ofEpochSecond(1_700_000_000L, 123_456_000),
                    "tag",
                    false,
                    2,
                    2,
                    List.of(
                            event("A", 1, 100, 5, "t1", "p1", "0", 0, 2),
                            event("B", 2, 100, 5, "t1", "p2", "1", 0, 2))),
            new SpannerTransaction("t2", Instant.EPOCH, "", true, 1, 1, List.of()),
            new SpannerTransaction(null, null, null, false, 0, 0, List.of())
        };
    }

    @Test
    void typeInformationUsesItInsteadOfKryo() {
        assertThat(TypeInformation.of(SpannerTransaction.class))
                .isSameAs(SpannerTransactionTypeInfo.INSTANCE);
        assertThat(SpannerTransactionTypeInfo.INSTANCE.createSerializer(new SerializerConfigImpl()))
                .isSameAs(SpannerTransactionSerializer.INSTANCE);
    }
}
