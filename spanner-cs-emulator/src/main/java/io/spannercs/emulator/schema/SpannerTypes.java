package io.spannercs.emulator.schema;

import com.google.protobuf.ListValue;
import com.google.protobuf.NullValue;
import com.google.protobuf.Value;
import com.google.spanner.v1.Type;
import com.google.spanner.v1.TypeCode;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;

/**
 * Spanner types and their wire values ({@code google.protobuf.Value}): DDL names, validation with
 * canonical forms (as Spanner returns them) and the key order.
 */
public final class SpannerTypes {
    /** The placeholder clients write for "the commit timestamp of this transaction". */
    public static final String COMMIT_TIMESTAMP = "spanner.commit_timestamp()";

    public static final Value NULL = Value.newBuilder().setNullValue(NullValue.NULL_VALUE).build();

    /** A UUID as text: 32 hex digits in groups of 8-4-4-4-12, either case. */
    private static final java.util.regex.Pattern UUID_TEXT =
            java.util.regex.Pattern.compile(
                    "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    private SpannerTypes() {}

    public static Type of(TypeCode code) {
        return Type.newBuilder().setCode(code).build();
    }

    public static Type arrayOf(Type element) {
        return Type.newBuilder().setCode(TypeCode.ARRAY).setArrayElementType(element).build();
    }

    /** The type as DDL writes it, e.g. {@code ARRAY<STRING(MAX)>}. */
    public static String toDdl(Type type) {
        if (PgTypes.isPg(type)) {
            return PgTypes.name(type);
        }
        switch (type.getCode()) {
            case ARRAY:
                return "ARRAY<" + toDdl(type.getArrayElementType()) + ">";
            case STRING:
                return "STRING(MAX)";
            case BYTES:
                return "BYTES(MAX)";
            default:
                return type.getCode().name();
        }
    }

    /** The type as {@code information_schema} and legacy change records spell it. */
    public static String toSpannerTypeName(Type type) {
        return toDdl(type);
    }

    /** Whether the value is NULL. */
    public static boolean isNull(Value v) {
        return v == null || v.getKindCase() == Value.KindCase.NULL_VALUE;
    }

    /**
     * Checks that a value sent by a client fits the column type and returns Spanner's canonical
     * form of it.
     *
     * @throws IllegalArgumentException naming the problem, for a FAILED_PRECONDITION answer
     */
    public static Value canonicalize(Type type, Value v) {
        if (isNull(v)) {
            return NULL;
        }
        switch (type.getCode()) {
            case INT64:
                {
                    String s = stringOrNumber(type, v);
                    try {
                        return str(Long.toString(Long.parseLong(s)));
                    } catch (NumberFormatException e) {
                        throw invalid(type, v);
                    }
                }
            case FLOAT64:
            case FLOAT32:
                if (v.hasNumberValue()) {
                    double d = v.getNumberValue();
                    if (type.getCode() == TypeCode.FLOAT32) {
                        d = (float) d;
                    }
                    if (Double.isNaN(d)) {
                        return str("NaN"); // Spanner sends non-finite floats as strings
                    }
                    if (Double.isInfinite(d)) {
                        return str(d > 0 ? "Infinity" : "-Infinity");
                    }
                    return Value.newBuilder().setNumberValue(d).build();
                }
                if (v.hasStringValue()) {
                    switch (v.getStringValue()) {
                        case "NaN":
                        case "Infinity":
                        case "-Infinity":
                            return v;
                        default:
                            throw invalid(type, v);
                    }
                }
                throw invalid(type, v);
            case BOOL:
                if (!v.hasBoolValue()) {
                    throw invalid(type, v);
                }
                return v;
            case STRING:
            case PROTO:
            case ENUM:
                if (!v.hasStringValue()) {
                    throw invalid(type, v);
                }
                return v;
            case UUID:
                if (!v.hasStringValue() || !UUID_TEXT.matcher(v.getStringValue()).matches()) {
                    throw invalid(type, v);
                }
                // The canonical text: lower case, 8-4-4-4-12 hex digits.
                return str(v.getStringValue().toLowerCase(java.util.Locale.ROOT));
            case JSON:
                if (!v.hasStringValue()) {
                    throw invalid(type, v);
                }
                return str(
                        PgTypes.isPg(type)
                                ? Jsonb.normalize(v.getStringValue())
                                : JsonNormalizer.normalize(v.getStringValue()));
            case BYTES:
                if (!v.hasStringValue()) {
                    throw invalid(type, v);
                }
                try {
                    Base64.getDecoder().decode(v.getStringValue());
                } catch (IllegalArgumentException e) {
                    throw invalid(type, v);
                }
                return v;
            case NUMERIC:
                {
                    if (PgTypes.isPg(type)) {
                        if (v.hasNumberValue() && Double.isNaN(v.getNumberValue())) {
                            return str(PgNumeric.NAN);
                        }
                        if (v.hasNumberValue() && Double.isInfinite(v.getNumberValue())) {
                            throw invalid(type, v);
                        }
                        return str(PgNumeric.canonicalize(stringOrNumber(type, v)));
                    }
                    String s = stringOrNumber(type, v);
                    try {
                        BigDecimal stripped = new BigDecimal(s).stripTrailingZeros();
                        if (stripped.scale() > 9) {
                            throw new IllegalArgumentException(
                                    "NUMERIC value has more than 9 fractional digits: " + s);
                        }
                        if (stripped.precision() - stripped.scale() > 29) {
                            throw new IllegalArgumentException("NUMERIC value out of range: " + s);
                        }
                        String plain = stripped.toPlainString();
                        return str(plain.equals("-0") ? "0" : plain);
                    } catch (NumberFormatException | ArithmeticException e) {
                        throw invalid(type, v);
                    }
                }
            case DATE:
                try {
                    return str(LocalDate.parse(v.getStringValue()).toString());
                } catch (DateTimeParseException e) {
                    throw invalid(type, v);
                }
            case TIMESTAMP:
                if (!v.hasStringValue()) {
                    throw invalid(type, v);
                }
                try {
                    return str(formatTimestamp(Instant.parse(v.getStringValue())));
                } catch (DateTimeParseException e) {
                    throw invalid(type, v);
                }
            case ARRAY:
                {
                    if (!v.hasListValue()) {
                        throw invalid(type, v);
                    }
                    ListValue.Builder out = ListValue.newBuilder();
                    for (Value e : v.getListValue().getValuesList()) {
                        out.addValues(canonicalize(type.getArrayElementType(), e));
                    }
                    return Value.newBuilder().setListValue(out).build();
                }
            default:
                throw new IllegalArgumentException("Unsupported column type " + type.getCode());
        }
    }

    /**
     * RFC 3339 in UTC with the fraction's trailing zeros dropped, as Spanner writes timestamps
     * (e.g. {@code 2026-12-02T17:02:50.05573Z}).
     */
    public static String formatTimestamp(Instant instant) {
        String s = instant.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
        int nanos = instant.getNano();
        if (nanos == 0) {
            return s;
        }
        String fraction = String.format("%09d", nanos).replaceAll("0+$", "");
        return s.substring(0, s.length() - 1) + "." + fraction + "Z";
    }

    /**
     * A timestamp as Spanner's error messages print it, e.g. {@code 2026-12-02T17:02:51.529+00:00}.
     */
    public static String formatForMessage(Instant instant) {
        String s = formatTimestamp(instant);
        return s.substring(0, s.length() - 1) + "+00:00";
    }

    public static Value str(String s) {
        return Value.newBuilder().setStringValue(s).build();
    }

    private static String stringOrNumber(Type type, Value v) {
        if (v.hasStringValue()) {
            return v.getStringValue();
        }
        if (v.hasNumberValue()) {
            double d = v.getNumberValue();
            if (d == Math.rint(d) && type.getCode() == TypeCode.INT64) {
                return Long.toString((long) d);
            }
            return BigDecimal.valueOf(d).toPlainString();
        }
        throw invalid(type, v);
    }

    private static IllegalArgumentException invalid(Type type, Value v) {
        return new IllegalArgumentException(
                "Invalid value for column of type " + toDdl(type) + ": " + shortText(v));
    }

    private static String shortText(Value v) {
        String s = v.toString().replace('\n', ' ').trim();
        return s.length() > 80 ? s.substring(0, 80) + "..." : s;
    }

    /** Orders canonical values of one type the way Spanner orders keys (NULL first). */
    public static Comparator<Value> comparator(Type type) {
        return (a, b) -> compare(type, a, b);
    }

    /** Compares two canonical values of one type; NULLs sort first. */
    public static int compare(Type type, Value a, Value b) {
        boolean an = isNull(a);
        boolean bn = isNull(b);
        if (an || bn) {
            return Boolean.compare(!an, !bn);
        }
        switch (type.getCode()) {
            case INT64:
                return Long.compare(
                        Long.parseLong(a.getStringValue()), Long.parseLong(b.getStringValue()));
            case FLOAT64:
            case FLOAT32:
                return Double.compare(toDouble(a), toDouble(b));
            case BOOL:
                return Boolean.compare(a.getBoolValue(), b.getBoolValue());
            case NUMERIC:
                return PgNumeric.compare(a.getStringValue(), b.getStringValue());
            case TIMESTAMP:
                return Instant.parse(a.getStringValue())
                        .compareTo(Instant.parse(b.getStringValue()));
            case BYTES:
                return java.util.Arrays.compareUnsigned(
                        Base64.getDecoder().decode(a.getStringValue()),
                        Base64.getDecoder().decode(b.getStringValue()));
            case ARRAY:
                {
                    List<Value> la = a.getListValue().getValuesList();
                    List<Value> lb = b.getListValue().getValuesList();
                    for (int i = 0; i < Math.min(la.size(), lb.size()); i++) {
                        int c = compare(type.getArrayElementType(), la.get(i), lb.get(i));
                        if (c != 0) {
                            return c;
                        }
                    }
                    return Integer.compare(la.size(), lb.size());
                }
            case STRING:
                return compareCodePoints(a.getStringValue(), b.getStringValue());
            default:
                return a.getStringValue().compareTo(b.getStringValue());
        }
    }

    /**
     * Spanner's string order: by Unicode code point, which is UTF-8 byte order (Java's {@code
     * compareTo} compares UTF-16 units and puts U+10000 and above before U+E000..U+FFFF).
     */
    static int compareCodePoints(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }

    private static double toDouble(Value v) {
        if (v.hasNumberValue()) {
            return v.getNumberValue();
        }
        switch (v.getStringValue()) {
            case "NaN":
                return Double.NaN;
            case "Infinity":
                return Double.POSITIVE_INFINITY;
            default:
                return Double.NEGATIVE_INFINITY;
        }
    }
}
