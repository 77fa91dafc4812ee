package io.spannercs.emulator.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Value;
import org.junit.jupiter.api.Test;

/** Canonical forms of PostgreSQL {@code numeric} and {@code jsonb} values. */
class PgValuesTest {
    private static String canonical(com.google.spanner.v1.Type type, String text) {
        return SpannerTypes.canonicalize(type, SpannerTypes.str(text)).getStringValue();
    }

    @Test
    void numericKeepsScaleAcceptsNanAndDropsExponents() {
        assertThat(canonical(PgTypes.NUMERIC, "1.50")).isEqualTo("1.50");
        assertThat(canonical(PgTypes.NUMERIC, "nan")).isEqualTo("NaN");
        assertThat(canonical(PgTypes.NUMERIC, "1e3")).isEqualTo("1000");
        assertThat(canonical(PgTypes.NUMERIC, "-0.00")).isEqualTo("0.00");
        String big = "9".repeat(60) + "." + "1".repeat(20);
        assertThat(canonical(PgTypes.NUMERIC, big)).isEqualTo(big);
        assertThat(
                        SpannerTypes.canonicalize(
                                        PgTypes.NUMERIC,
                                        Value.newBuilder().setNumberValue(1.23).build())
                                .getStringValue())
                .isEqualTo("1.23");
        assertThatThrownBy(() -> canonical(PgTypes.NUMERIC, "abc"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(
                        SpannerTypes.compare(
                                PgTypes.NUMERIC, SpannerTypes.str("NaN"), SpannerTypes.str("1e9")))
                .isPositive();
    }

    @Test
    void jsonbSortsKeysByLengthKeepsLastDuplicateAndWritesPlainNumbers() {
        assertThat(
                        canonical(
                                PgTypes.JSONB,
                                "{\"bb\": 1, \"a\": [1e2, 1.10], \"c\": {\"zz\":0,\"y\":1}}"))
                .isEqualTo("{\"a\":[100,1.10],\"c\":{\"y\":1,\"zz\":0},\"bb\":1}");
        assertThat(canonical(PgTypes.JSONB, "{\"a\":1,\"a\":2}")).isEqualTo("{\"a\":2}");
        assertThat(Jsonb.write(Jsonb.number(1e-7))).isEqualTo("0.0000001");
        assertThat(Jsonb.write(Jsonb.number(3.140000104904175))).isEqualTo("3.140000104904175");
        assertThat(Jsonb.write(Jsonb.number(2.0))).isEqualTo("2");
        assertThatThrownBy(() -> canonical(PgTypes.JSONB, "{nope"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> canonical(PgTypes.JSONB, "{} /* comment */"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void jsonbKeepsLongNumbersNumbers() {
        // 1e300 is written with 301 digits; normalizing that again must not make it a string.
        String once = canonical(PgTypes.JSONB, "{\"x\": 1e300, \"y\": \"1e300\"}");
        assertThat(once).isEqualTo("{\"x\":1" + "0".repeat(300) + ",\"y\":\"1e300\"}");
        assertThat(canonical(PgTypes.JSONB, once)).isEqualTo(once);
        assertThat(canonical(PgTypes.JSONB, "[\"\\u00e9\\n\", -0.5E-3, null, true]"))
                .isEqualTo("[\"é\\n\",-0.0005,null,true]");
    }
}
