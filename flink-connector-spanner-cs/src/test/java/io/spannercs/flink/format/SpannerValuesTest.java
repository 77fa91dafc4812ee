package io.spannercs.flink.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ListValue;
import com.google.protobuf.NullValue;
import com.google.protobuf.Value;
import com.google.spanner.v1.Type;
import com.google.spanner.v1.TypeCode;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class SpannerValuesTest {

    @Test
    void uuidAndIntervalAreTheirText() {
        assertThat(
                        SpannerValues.toJava(
                                type(TypeCode.UUID), text("0b3c6fd2-1c4a-4b4e-9c8f-6d7a0e4f2b11")))
                .isEqualTo("0b3c6fd2-1c4a-4b4e-9c8f-6d7a0e4f2b11");
        assertThat(SpannerValues.toJava(type(TypeCode.INTERVAL), text("P1Y2M3DT4H5M6.5S")))
                .isEqualTo("P1Y2M3DT4H5M6.5S");
        assertThat(SpannerTypeNames.of(type(TypeCode.UUID))).isEqualTo("UUID");
    }

    /** Google's emulator writes NULL array elements as the text "NULL" (DESIGN.md section 6). */
    @Test
    void theTextNullIsANullElementWhereItCannotBeAValue() {
        Value list = list(text("1"), text("NULL"), nullValue());
        assertThat(SpannerValues.toJava(array(TypeCode.INT64), list))
                .isEqualTo(Arrays.asList(1L, null, null));
        assertThat(SpannerValues.toJava(array(TypeCode.BOOL), list(bool(true), text("NULL"))))
                .isEqualTo(Arrays.asList(true, null));
        assertThat(SpannerValues.toJava(array(TypeCode.DATE), list(text("NULL"))))
                .isEqualTo(Arrays.asList((Object) null));
        assertThat(SpannerValues.toJava(array(TypeCode.STRING), list(text("NULL"))))
                .as("a string may be NULL")
                .isEqualTo(Arrays.asList("NULL"));
        assertThat(SpannerValues.toJava(array(TypeCode.JSON), list(text("NULL"), text("null"))))
                .as("JSON's null is null, not NULL")
                .isEqualTo(Arrays.asList(null, "null"));
    }

    @Test
    void typesNewerThanTheConnectorAreNotSupported() {
        Type future = Type.newBuilder().setCodeValue(99).build();
        assertThat(SpannerValues.isSupported(future)).isFalse();
        assertThat(
                        SpannerValues.isSupported(
                                Type.newBuilder()
                                        .setCode(TypeCode.ARRAY)
                                        .setArrayElementType(future)
                                        .build()))
                .isFalse();
        assertThat(SpannerTypeNames.of(future)).isEqualTo("TYPE_CODE_99");
        assertThatThrownBy(() -> SpannerValues.toJava(future, text("x")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("TYPE_CODE_99");
    }

    private static Type type(TypeCode code) {
        return Type.newBuilder().setCode(code).build();
    }

    private static Type array(TypeCode element) {
        return Type.newBuilder().setCode(TypeCode.ARRAY).setArrayElementType(type(element)).build();
    }

    private static Value text(String s) {
        return Value.newBuilder().setStringValue(s).build();
    }

    private static Value bool(boolean b) {
        return Value.newBuilder().setBoolValue(b).build();
    }

    private static Value nullValue() {
        return Value.newBuilder().setNullValue(NullValue.NULL_VALUE).build();
    }

    private static Value list(Value... values) {
        return Value.newBuilder()
                .setListValue(ListValue.newBuilder().addAllValues(Arrays.asList(values)))
                .build();
    }
}
