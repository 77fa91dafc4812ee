package io.spannercs.docs;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Statements of a SQL block, as the SQL client reads them: separated by {@code ;}. */
final class SqlStatements {
    private SqlStatements() {}

    /**
     * The statements, without full-line {@code --} comments; {@code ;} inside quotes and comments
     * does not separate.
     */
    static List<String> split(String sql) {
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        char quote = 0;
        boolean comment = false;
        for (int i = 0; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (comment) {
                if (c == '\n') {
                    comment = false;
                    current.append(c);
                }
                continue;
            }
            if (quote != 0) {
                current.append(c);
                if (c == quote) {
                    quote = 0;
                }
                continue;
            }
            if (c == '-' && i + 1 < sql.length() && sql.charAt(i + 1) == '-') {
                comment = true;
                continue;
            }
            if (c == '\'' || c == '`' || c == '"') {
                quote = c;
                current.append(c);
            } else if (c == ';') {
                add(statements, current);
                current.setLength(0);
            } else {
                current.append(c);
            }
        }
        add(statements, current);
        return statements;
    }

    private static void add(List<String> statements, StringBuilder s) {
        String t = s.toString().strip();
        if (!t.isEmpty()) {
            statements.add(t);
        }
    }

    /** The first word, upper case: SELECT, CREATE, ADD, ... */
    static String keyword(String statement) {
        return statement.strip().split("\\s+", 2)[0].toUpperCase(Locale.ROOT);
    }

    /** Whitespace collapsed, for comparing statements of different blocks. */
    static String normalize(String statement) {
        return statement.strip().replaceAll("\\s+", " ");
    }
}
