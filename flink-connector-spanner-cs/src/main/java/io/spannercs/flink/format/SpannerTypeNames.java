package io.spannercs.flink.format;

import com.google.spanner.v1.Type;
import com.google.spanner.v1.TypeAnnotationCode;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Spells a Spanner column type as text, for {@link ChangeEvent#getColumnTypes()}: the GoogleSQL
 * type name without length ({@code INT64}, {@code FLOAT64}, {@code FLOAT32}, {@code NUMERIC},
 * {@code BOOL}, {@code STRING}, {@code BYTES}, {@code DATE}, {@code TIMESTAMP}, {@code JSON}),
 * {@code ARRAY<element>}, {@code PROTO<full.Name>} and {@code ENUM<full.Name>}. PostgreSQL types
 * share these codes except the three Spanner annotates, which keep the annotation's name because
 * their values differ: {@code PG_NUMERIC} (arbitrary scale, NaN), {@code PG_JSONB} and {@code
 * PG_OID}. Other codes ({@code INTERVAL}, {@code UUID}, ...) are spelled by their code name, and a
 * code this client does not know as {@code TYPE_CODE_<number>}.
 */
@PublicEvolving
public final class SpannerTypeNames {
    private SpannerTypeNames() {}

    /** The name of a column type. */
    public static String of(Type type) {
        TypeAnnotationCode annotation = type.getTypeAnnotation();
        if (annotation == TypeAnnotationCode.PG_NUMERIC
                || annotation == TypeAnnotationCode.PG_JSONB
                || annotation == TypeAnnotationCode.PG_OID) {
            return annotation.name();
        }
        switch (type.getCode()) {
            case ARRAY:
                return "ARRAY<" + of(type.getArrayElementType()) + ">";
            case PROTO:
            case ENUM:
                return type.getCode().name() + "<" + type.getProtoTypeFqn() + ">";
            case UNRECOGNIZED:
                return "TYPE_CODE_" + type.getCodeValue(); // newer than this client's proto
            default:
                return type.getCode().name();
        }
    }

    /** The element type name of {@code ARRAY<element>}, or null for any other name. */
    public static String arrayElement(String name) {
        return name.startsWith("ARRAY<") && name.endsWith(">")
                ? name.substring("ARRAY<".length(), name.length() - 1)
                : null;
    }
}
