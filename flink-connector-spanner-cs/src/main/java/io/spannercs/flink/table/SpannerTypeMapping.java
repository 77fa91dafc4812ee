package io.spannercs.flink.table;

import io.spannercs.flink.format.SpannerTypeNames;
import io.spannercs.flink.format.datastream.CanonicalTypeNames;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;

/**
 * Which Flink SQL types a Spanner column may be declared as, and the check of a declared schema
 * against the table's columns in Spanner (see docs/sql.md, "Type mapping").
 */
@Internal
public final class SpannerTypeMapping {
    private SpannerTypeMapping() {}

    /**
     * Resolves each declared physical column to its Spanner column and checks its type.
     *
     * @param table the Spanner table, for messages
     * @param spannerColumns the table's columns to their types, in any spelling {@link
     *     CanonicalTypeNames} reads ({@code STRING(MAX)}, {@code bigint[]}); null when the table
     *     does not exist
     * @param declared the declared physical columns
     * @return the Spanner name of each declared column, in declared order (names match
     *     case-insensitively, as Spanner's do)
     * @throws ValidationException naming every column that is missing or has an incompatible type
     */
    public static List<String> check(
            String table, Map<String, String> spannerColumns, RowType declared) {
        if (spannerColumns == null || spannerColumns.isEmpty()) {
            throw new ValidationException(
                    "Spanner table '" + table + "' does not exist (option 'table').");
        }
        Map<String, String> byLowerName = new LinkedHashMap<>();
        spannerColumns.forEach((n, t) -> byLowerName.put(n.toLowerCase(Locale.ROOT), n));
        List<String> names = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (RowType.RowField f : declared.getFields()) {
            String spannerName = byLowerName.get(f.getName().toLowerCase(Locale.ROOT));
            if (spannerName == null) {
                problems.add(
                        "column '"
                                + f.getName()
                                + "' does not exist in Spanner table '"
                                + table
                                + "' (columns: "
                                + String.join(", ", spannerColumns.keySet())
                                + ")");
                continue;
            }
            String spannerType = CanonicalTypeNames.canonical(spannerColumns.get(spannerName));
            if (!compatible(spannerType, f.getType())) {
                problems.add(
                        "column '"
                                + f.getName()
                                + "' is declared "
                                + f.getType().asSummaryString()
                                + " but is "
                                + spannerType
                                + " in Spanner table '"
                                + table
                                + "'; declare it as "
                                + expected(spannerType));
            }
            names.add(spannerName);
        }
        if (!problems.isEmpty()) {
            throw new ValidationException(
                    "The declared schema does not match Spanner: " + String.join("; ", problems));
        }
        return names;
    }

    /** Whether values of the canonical Spanner type can be read as the Flink type. */
    public static boolean compatible(String spannerType, LogicalType type) {
        String element = SpannerTypeNames.arrayElement(spannerType);
        if (element != null) {
            return type.getTypeRoot() == LogicalTypeRoot.ARRAY
                    && compatible(element, ((ArrayType) type).getElementType());
        }
        LogicalTypeRoot root = type.getTypeRoot();
        String base = baseName(spannerType);
        switch (base) {
            case "INT64":
            case "ENUM":
                return root == LogicalTypeRoot.BIGINT;
            case "FLOAT64":
                return root == LogicalTypeRoot.DOUBLE;
            case "FLOAT32":
                return root == LogicalTypeRoot.FLOAT || root == LogicalTypeRoot.DOUBLE;
            case "NUMERIC":
                return root == LogicalTypeRoot.DECIMAL || isString(root);
            case "BOOL":
                return root == LogicalTypeRoot.BOOLEAN;
            case "STRING":
            case "JSON":
            case "UUID":
            case "INTERVAL":
                return isString(root);
            case "BYTES":
            case "PROTO":
                return root == LogicalTypeRoot.VARBINARY || root == LogicalTypeRoot.BINARY;
            case "DATE":
                return root == LogicalTypeRoot.DATE;
            case "TIMESTAMP":
                return root == LogicalTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE
                        || root == LogicalTypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE;
            default:
                return false;
        }
    }

    /** The Flink type to declare for a canonical Spanner type, for messages and docs. */
    public static String expected(String spannerType) {
        String element = SpannerTypeNames.arrayElement(spannerType);
        if (element != null) {
            return "ARRAY<" + expected(element) + ">";
        }
        switch (baseName(spannerType)) {
            case "INT64":
            case "ENUM":
                return "BIGINT";
            case "FLOAT64":
                return "DOUBLE";
            case "FLOAT32":
                return "FLOAT";
            case "NUMERIC":
                return "DECIMAL(38, 9)";
            case "BOOL":
                return "BOOLEAN";
            case "STRING":
            case "JSON":
            case "UUID":
            case "INTERVAL":
                return "STRING";
            case "BYTES":
            case "PROTO":
                return "BYTES";
            case "DATE":
                return "DATE";
            case "TIMESTAMP":
                return "TIMESTAMP_LTZ(9)";
            default:
                return "(no Flink type: " + spannerType + " is not supported)";
        }
    }

    /** {@code PROTO<a.B>} and {@code ENUM<a.B>} to PROTO and ENUM; other names unchanged. */
    private static String baseName(String spannerType) {
        int open = spannerType.indexOf('<');
        return open < 0 ? spannerType : spannerType.substring(0, open);
    }

    private static boolean isString(LogicalTypeRoot root) {
        return root == LogicalTypeRoot.VARCHAR || root == LogicalTypeRoot.CHAR;
    }
}
