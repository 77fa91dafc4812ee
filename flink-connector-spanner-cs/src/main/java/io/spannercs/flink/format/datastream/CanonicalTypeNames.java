package io.spannercs.flink.format.datastream;

import com.google.spanner.v1.StructType;
import com.google.spanner.v1.Type;
import com.google.spanner.v1.TypeCode;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.SpannerTypeNames;
import java.util.Locale;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Canonical names of Spanner column types, so that one type has one spelling whichever way it was
 * learnt: from a change record's column metadata ({@link Type}, or {@link
 * ChangeEvent#getColumnTypes()} as {@link SpannerTypeNames} spells it), from GoogleSQL DDL or
 * {@code information_schema.columns.spanner_type} ({@code STRING(MAX)}, {@code ARRAY<BYTES(16)>})
 * or from PostgreSQL's spelling ({@code character varying}, {@code bigint[]}).
 *
 * <p>Canonical names are GoogleSQL type names without lengths: {@code INT64}, {@code FLOAT64},
 * {@code FLOAT32}, {@code NUMERIC}, {@code BOOL}, {@code STRING}, {@code JSON}, {@code BYTES},
 * {@code DATE}, {@code TIMESTAMP}, {@code ARRAY<T>}, {@code PROTO<full.Name>}, {@code
 * ENUM<full.Name>}, {@code STRUCT<name T, ...>}. PostgreSQL's {@code numeric} is {@code NUMERIC}
 * and its {@code jsonb} is {@code JSON}: their values are read and written the same way (a
 * PostgreSQL NaN arrives as a Double), and a name must not depend on how the type was learnt. A
 * name this class does not know is returned trimmed and in upper case.
 */
@PublicEvolving
public final class CanonicalTypeNames {
    private CanonicalTypeNames() {}

    /** The canonical name of a type from change record metadata or a result set. */
    public static String of(Type type) {
        if (type.getCode() == TypeCode.STRUCT) {
            StringBuilder sb = new StringBuilder("STRUCT<");
            for (int i = 0; i < type.getStructType().getFieldsCount(); i++) {
                StructType.Field f = type.getStructType().getFields(i);
                sb.append(i == 0 ? "" : ", ").append(f.getName()).append(' ');
                sb.append(of(f.getType()));
            }
            return sb.append('>').toString();
        }
        return canonical(SpannerTypeNames.of(type));
    }

    /**
     * The canonical name of a type written as text, in either dialect's spelling.
     *
     * @throws NullPointerException for null
     */
    public static String canonical(String text) {
        String t = text.trim();
        if (t.endsWith("[]")) {
            return "ARRAY<" + canonical(t.substring(0, t.length() - 2)) + ">";
        }
        String upper = t.toUpperCase(Locale.ROOT);
        if (upper.startsWith("ARRAY<") && upper.endsWith(">")) {
            return "ARRAY<" + canonical(t.substring(6, t.length() - 1)) + ">";
        }
        if ((upper.startsWith("PROTO<") || upper.startsWith("ENUM<")) && upper.endsWith(">")) {
            // The full name of a proto type is case-sensitive.
            int open = t.indexOf('<');
            return upper.substring(0, open)
                    + "<"
                    + t.substring(open + 1, t.length() - 1).trim()
                    + ">";
        }
        if (upper.startsWith("STRUCT<")) {
            return upper; // not a column type; kept only so that it has some stable spelling
        }
        // Lengths and precisions do not change how values are written: STRING(MAX), BYTES(16),
        // character varying(256), numeric(10,2).
        int paren = upper.indexOf('(');
        String base =
                (paren < 0 ? upper : upper.substring(0, paren)).trim().replaceAll("\\s+", " ");
        switch (base) {
            case "BIGINT":
            case "INT8":
                return "INT64";
            case "DOUBLE PRECISION":
            case "FLOAT8":
                return "FLOAT64";
            case "REAL":
            case "FLOAT4":
                return "FLOAT32";
            case "DECIMAL":
                return "NUMERIC";
            case "BOOLEAN":
                return "BOOL";
            case "CHARACTER VARYING":
            case "VARCHAR":
            case "TEXT":
                return "STRING";
            case "BYTEA":
                return "BYTES";
            case "TIMESTAMPTZ":
            case "TIMESTAMP WITH TIME ZONE":
                return "TIMESTAMP";
            case "JSONB":
            case "PG_JSONB":
                return "JSON";
            case "PG_NUMERIC":
                return "NUMERIC";
            case "PG_OID":
                return "INT64";
            default:
                return base;
        }
    }
}
