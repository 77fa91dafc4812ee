package io.spannercs.emulator.testing;

import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Struct;
import java.util.ArrayList;
import java.util.List;

/**
 * Rows as text for comparisons: {@code 1|one|NULL}. Client rows use the official client's {@code
 * Value.toString()}; ground-truth rows (canonical protobuf values) are written the same way for
 * INT64, STRING, BOOL and NULL, which is what the snapshot tests' tables hold.
 */
public final class Rows {
    private Rows() {}

    /** Reads the result set to its end. */
    public static List<String> of(ResultSet rs) {
        List<String> out = new ArrayList<>();
        while (rs.next()) {
            out.add(text(rs.getCurrentRowAsStruct()));
        }
        return out;
    }

    public static String text(Struct row) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < row.getColumnCount(); i++) {
            sb.append(i == 0 ? "" : "|").append(row.getValue(i).toString());
        }
        return sb.toString();
    }

    /** Ground-truth rows (INT64, STRING, BOOL and NULL values) in the client's text form. */
    public static List<String> ofCanonical(List<List<com.google.protobuf.Value>> rows) {
        List<String> out = new ArrayList<>();
        for (List<com.google.protobuf.Value> row : rows) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < row.size(); i++) {
                com.google.protobuf.Value v = row.get(i);
                String s;
                switch (v.getKindCase()) {
                    case NULL_VALUE:
                        s = "NULL";
                        break;
                    case BOOL_VALUE:
                        s = Boolean.toString(v.getBoolValue());
                        break;
                    case STRING_VALUE:
                        s = v.getStringValue();
                        break;
                    default:
                        throw new IllegalArgumentException("Unexpected value " + v);
                }
                sb.append(i == 0 ? "" : "|").append(s);
            }
            out.add(sb.toString());
        }
        return out;
    }
}
