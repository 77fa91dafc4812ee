package io.spannercs.emulator.workload;

import com.google.protobuf.ListValue;
import com.google.protobuf.Value;
import com.google.spanner.v1.Type;
import com.google.spanner.v1.TypeCode;
import io.spannercs.emulator.schema.SpannerTypes;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Base64;
import java.util.Random;

/**
 * Values of Spanner column types in their canonical wire form (what the emulator stores): random
 * ones for data columns and deterministic, distinct ones for key columns.
 */
final class Values {
    private static final long DATE_BASE = LocalDate.of(2000, 1, 1).toEpochDay();
    private static final long DATE_SPAN = LocalDate.of(2040, 1, 1).toEpochDay() - DATE_BASE;
    private static final long TIMESTAMP_BASE =
            Instant.parse("2020-01-01T00:00:00Z").getEpochSecond();
    private static final long TIMESTAMP_SPAN = 10L * 365 * 24 * 3600;
    private static final String LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    private static final String[] SPECIAL = {" ", "é", "ß", "日本", "\"", "\\", "'", "\n", "😀"};

    private Values() {}

    /** Whether {@link #random} can make values of the type. */
    static boolean supported(Type type) {
        switch (type.getCode()) {
            case INT64:
            case FLOAT64:
            case FLOAT32:
            case NUMERIC:
            case BOOL:
            case STRING:
            case BYTES:
            case DATE:
            case TIMESTAMP:
            case JSON:
            case UUID:
                return true;
            case ARRAY:
                return supported(type.getArrayElementType());
            default:
                return false;
        }
    }

    /** A random non-NULL value of the type, canonical. */
    static Value random(Type type, Random r) {
        switch (type.getCode()) {
            case INT64:
                {
                    // Mostly small numbers, sometimes beyond 2^53 to exercise the string encoding.
                    long v = r.nextInt(20) == 0 ? r.nextLong() : r.nextInt(2_000_001) - 1_000_000;
                    return SpannerTypes.str(Long.toString(v));
                }
            case FLOAT64:
                return number((r.nextDouble() - 0.5) * 2e6);
            case FLOAT32:
                return number((float) ((r.nextDouble() - 0.5) * 2e4));
            case NUMERIC:
                {
                    long unscaled = r.nextLong() % 1_000_000_000_000L;
                    BigDecimal d =
                            new BigDecimal(BigInteger.valueOf(unscaled), r.nextInt(10))
                                    .stripTrailingZeros();
                    String plain = d.toPlainString();
                    return SpannerTypes.str(plain.equals("-0") ? "0" : plain);
                }
            case BOOL:
                return Value.newBuilder().setBoolValue(r.nextBoolean()).build();
            case STRING:
                return SpannerTypes.str(text(r, r.nextInt(21)));
            case BYTES:
                {
                    byte[] b = new byte[r.nextInt(17)];
                    r.nextBytes(b);
                    return SpannerTypes.str(Base64.getEncoder().encodeToString(b));
                }
            case DATE:
                return SpannerTypes.str(
                        LocalDate.ofEpochDay(DATE_BASE + r.nextLong(DATE_SPAN)).toString());
            case TIMESTAMP:
                return timestamp(
                        Instant.ofEpochSecond(
                                TIMESTAMP_BASE + r.nextLong(TIMESTAMP_SPAN),
                                r.nextInt(1_000_000) * 1000L));
            case JSON:
                return SpannerTypes.str(json(r));
            case UUID:
                return SpannerTypes.str(new java.util.UUID(r.nextLong(), r.nextLong()).toString());
            case ARRAY:
                {
                    ListValue.Builder list = ListValue.newBuilder();
                    int n = r.nextInt(5);
                    for (int i = 0; i < n; i++) {
                        list.addValues(
                                r.nextInt(10) == 0
                                        ? SpannerTypes.NULL
                                        : random(type.getArrayElementType(), r));
                    }
                    return Value.newBuilder().setListValue(list).build();
                }
            default:
                throw new IllegalArgumentException(
                        "The workload cannot make values of type " + SpannerTypes.toDdl(type));
        }
    }

    /**
     * How many distinct values {@link #key} makes for the type: the largest key space a key column
     * of the type can carry on its own.
     */
    static long keyCapacity(Type type) {
        switch (type.getCode()) {
            case BOOL:
                return 2;
            case FLOAT32:
                return 1L << 24; // floats hold every integer up to 2^24 exactly
            case DATE:
                return LocalDate.of(9999, 12, 31).toEpochDay() - DATE_BASE;
            case ARRAY:
                return keyCapacity(type.getArrayElementType());
            default:
                return Long.MAX_VALUE;
        }
    }

    /** The n-th value of the type for a key column, canonical; distinct for n below capacity. */
    static Value key(Type type, long n) {
        switch (type.getCode()) {
            case INT64:
                return SpannerTypes.str(Long.toString(n + 1));
            case FLOAT64:
                return number((double) n);
            case FLOAT32:
                return number((float) n);
            case NUMERIC:
                return SpannerTypes.str(Long.toString(n));
            case BOOL:
                return Value.newBuilder().setBoolValue((n & 1) == 1).build();
            case STRING:
                return SpannerTypes.str(String.format("key-%08d", n));
            case BYTES:
                return SpannerTypes.str(
                        Base64.getEncoder()
                                .encodeToString(ByteBuffer.allocate(8).putLong(n).array()));
            case DATE:
                return SpannerTypes.str(LocalDate.ofEpochDay(DATE_BASE + n).toString());
            case TIMESTAMP:
                return timestamp(Instant.ofEpochSecond(TIMESTAMP_BASE + n));
            case JSON:
                return SpannerTypes.str("{\"k\":" + n + "}");
            case UUID:
                return SpannerTypes.str(new java.util.UUID(0, n).toString());
            case ARRAY:
                return Value.newBuilder()
                        .setListValue(
                                ListValue.newBuilder()
                                        .addValues(key(type.getArrayElementType(), n)))
                        .build();
            default:
                throw new IllegalArgumentException(
                        "The workload cannot make keys of type " + SpannerTypes.toDdl(type));
        }
    }

    static Value number(double d) {
        return Value.newBuilder().setNumberValue(d).build();
    }

    static Value timestamp(Instant instant) {
        return SpannerTypes.str(SpannerTypes.formatTimestamp(instant));
    }

    static boolean is(Type type, TypeCode code) {
        return type.getCode() == code;
    }

    /** Letters, with the odd space, accent, emoji, quote or backslash. */
    private static String text(Random r, int length) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < length; i++) {
            if (r.nextInt(12) == 0) {
                sb.append(SPECIAL[r.nextInt(SPECIAL.length)]);
            } else {
                sb.append(LETTERS.charAt(r.nextInt(LETTERS.length())));
            }
        }
        return sb.toString();
    }

    /** A small JSON object in normalized form (sorted keys, no spaces). */
    private static String json(Random r) {
        StringBuilder sb = new StringBuilder("{");
        String[] keys = {"a", "b", "c", "d"};
        boolean first = true;
        for (String k : keys) {
            if (r.nextBoolean()) {
                continue;
            }
            if (!first) {
                sb.append(',');
            }
            first = false;
            sb.append('"').append(k).append("\":");
            switch (r.nextInt(5)) {
                case 0:
                    sb.append(r.nextInt(1000));
                    break;
                case 1:
                    sb.append('"');
                    for (int i = r.nextInt(8); i > 0; i--) {
                        sb.append(LETTERS.charAt(r.nextInt(LETTERS.length())));
                    }
                    sb.append('"');
                    break;
                case 2:
                    sb.append(r.nextBoolean());
                    break;
                case 3:
                    sb.append("null");
                    break;
                default:
                    sb.append('[')
                            .append(r.nextInt(10))
                            .append(',')
                            .append(r.nextInt(10))
                            .append(']');
            }
        }
        return sb.append('}').toString();
    }
}
