package io.spannercs.emulator.schema;

import com.google.spanner.v1.Type;
import com.google.spanner.v1.TypeAnnotationCode;
import com.google.spanner.v1.TypeCode;
import java.util.Locale;

/**
 * PostgreSQL type names and the Spanner types they stand for. {@code numeric} and {@code jsonb} are
 * {@code NUMERIC} and {@code JSON} with the type annotations {@code PG_NUMERIC} and {@code
 * PG_JSONB}, exactly as Spanner describes them on the wire (result metadata and change record
 * column types), so the official client decodes them as PostgreSQL values.
 */
public final class PgTypes {
    /** {@code numeric}: NUMERIC annotated PG_NUMERIC. */
    public static final Type NUMERIC =
            Type.newBuilder()
                    .setCode(TypeCode.NUMERIC)
                    .setTypeAnnotation(TypeAnnotationCode.PG_NUMERIC)
                    .build();

    /** {@code jsonb}: JSON annotated PG_JSONB. */
    public static final Type JSONB =
            Type.newBuilder()
                    .setCode(TypeCode.JSON)
                    .setTypeAnnotation(TypeAnnotationCode.PG_JSONB)
                    .build();

    private PgTypes() {}

    /**
     * The Spanner type of a PostgreSQL scalar type name (already lower case, multi-word names
     * joined by one space), or null for a name Spanner's PostgreSQL interface does not have.
     */
    public static Type scalar(String name) {
        switch (name.toLowerCase(Locale.ROOT)) {
            case "bigint":
            case "int8":
            case "int":
            case "integer":
            case "int4":
                // Spanner's PostgreSQL interface stores every integer as 64 bits.
                return SpannerTypes.of(TypeCode.INT64);
            case "double precision":
            case "float8":
                return SpannerTypes.of(TypeCode.FLOAT64);
            case "real":
            case "float4":
                return SpannerTypes.of(TypeCode.FLOAT32);
            case "numeric":
            case "decimal":
                return NUMERIC;
            case "bool":
            case "boolean":
                return SpannerTypes.of(TypeCode.BOOL);
            case "varchar":
            case "character varying":
            case "text":
                return SpannerTypes.of(TypeCode.STRING);
            case "bytea":
                return SpannerTypes.of(TypeCode.BYTES);
            case "date":
                return SpannerTypes.of(TypeCode.DATE);
            case "timestamptz":
            case "timestamp with time zone":
                return SpannerTypes.of(TypeCode.TIMESTAMP);
            case "jsonb":
                return JSONB;
            case "uuid":
                return SpannerTypes.of(TypeCode.UUID);
            default:
                return null;
        }
    }

    /** Whether the type is one of the PostgreSQL-annotated ones. */
    public static boolean isPg(Type type) {
        return type.getTypeAnnotation() == TypeAnnotationCode.PG_NUMERIC
                || type.getTypeAnnotation() == TypeAnnotationCode.PG_JSONB;
    }

    /**
     * The type as PostgreSQL's {@code information_schema.columns.spanner_type} spells it, e.g.
     * {@code bigint}, {@code character varying} or {@code numeric[]}.
     */
    public static String name(Type type) {
        switch (type.getCode()) {
            case ARRAY:
                return name(type.getArrayElementType()) + "[]";
            case INT64:
                return "bigint";
            case FLOAT64:
                return "double precision";
            case FLOAT32:
                return "real";
            case NUMERIC:
                return "numeric";
            case BOOL:
                return "boolean";
            case STRING:
                return "character varying";
            case BYTES:
                return "bytea";
            case DATE:
                return "date";
            case TIMESTAMP:
                return "timestamp with time zone";
            case JSON:
                return "jsonb";
            case UUID:
                return "uuid";
            default:
                return type.getCode().name().toLowerCase(Locale.ROOT);
        }
    }

    /** {@code information_schema.columns.data_type}: the name, or {@code ARRAY} for arrays. */
    public static String dataType(Type type) {
        return type.getCode() == TypeCode.ARRAY ? "ARRAY" : name(type);
    }

    /** Whether PostgreSQL-dialect Spanner allows the type in a primary key. */
    public static boolean allowedInKey(Type type) {
        switch (type.getCode()) {
            case NUMERIC:
            case FLOAT32:
            case JSON:
            case ARRAY:
                return false;
            default:
                return true;
        }
    }
}
