package io.spannercs.emulator.schema;

import com.google.spanner.v1.Type;
import com.google.spanner.v1.TypeCode;
import io.spannercs.emulator.parse.TokenCursor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Parses the DDL subset the emulator serves: {@code CREATE TABLE} and {@code CREATE CHANGE STREAM},
 * separated by semicolons, with {@code --} and {@code /* *}{@code /} comments. Clauses it does not
 * model (interleaving, row deletion policies, column options, defaults) are accepted and ignored.
 */
public final class DdlParser {
    private final TokenCursor<String> in;

    private DdlParser(String ddl) {
        this.in = new TokenCursor<>(tokenize(ddl), t -> t, "DDL");
    }

    /** Parses a whole GoogleSQL DDL script into a schema. */
    public static Schema parse(String ddl) {
        return new DdlParser(ddl).parseSchema();
    }

    /**
     * Parses a whole DDL script of the dialect into a schema.
     *
     * @throws IllegalArgumentException for DDL outside the subset, naming the problem
     */
    public static Schema parse(String ddl, Dialect dialect) {
        return dialect == Dialect.POSTGRESQL ? PgDdlParser.parse(ddl) : parse(ddl);
    }

    /**
     * Parses DDL made only of {@code ALTER DATABASE <db> SET OPTIONS (...)} statements, as {@code
     * UpdateDatabaseDdl} may send at run time.
     *
     * @return the {@code version_retention_period} the last statement set, or empty when none set
     *     it
     * @throws IllegalArgumentException for another statement or an invalid option value
     */
    public static java.util.Optional<VersionRetention> parseAlterDatabase(
            String ddl, Dialect dialect) {
        if (dialect == Dialect.POSTGRESQL) {
            return PgDdlParser.parseAlterDatabase(ddl);
        }
        DdlParser p = new DdlParser(ddl);
        VersionRetention retention = null;
        while (!p.in.atEnd()) {
            if (p.accept(";")) {
                continue;
            }
            if (!p.acceptWord("ALTER") || !p.acceptWord("DATABASE")) {
                throw p.error(
                        "The emulator's schema is fixed when it starts; at run time it only"
                                + " accepts ALTER DATABASE <db> SET OPTIONS ("
                                + VersionRetention.OPTION
                                + " = '...')");
            }
            VersionRetention r = p.parseAlterDatabase();
            retention = r == null ? retention : r;
        }
        return java.util.Optional.ofNullable(retention);
    }

    private Schema parseSchema() {
        List<TableDef> tables = new ArrayList<>();
        List<ChangeStreamDef> streams = new ArrayList<>();
        VersionRetention retention = null;
        while (!in.atEnd()) {
            if (accept(";")) {
                continue;
            }
            if (acceptWord("ALTER")) {
                expectWord("DATABASE");
                VersionRetention r = parseAlterDatabase();
                retention = r == null ? retention : r;
                if (!in.atEnd()) {
                    expect(";");
                }
                continue;
            }
            expectWord("CREATE");
            if (acceptWord("TABLE")) {
                tables.add(parseTable());
            } else if (acceptWord("CHANGE")) {
                expectWord("STREAM");
                streams.add(parseChangeStream());
            } else {
                throw error("Expected TABLE or CHANGE STREAM after CREATE");
            }
            if (!in.atEnd()) {
                expect(";");
            }
        }
        return new Schema(tables, streams, Dialect.GOOGLE_STANDARD_SQL, retention);
    }

    /**
     * After {@code ALTER DATABASE}: {@code <db> SET OPTIONS (name = value, ...)}. The database name
     * is not checked (the emulator serves one database). Options other than {@code
     * version_retention_period} are accepted and ignored.
     *
     * @return the retention period set (the default for NULL), or null when not set
     */
    private VersionRetention parseAlterDatabase() {
        identifier();
        expectWord("SET");
        expectWord("OPTIONS");
        expect("(");
        VersionRetention retention = null;
        while (!accept(")")) {
            String key = identifier().toLowerCase(Locale.ROOT);
            expect("=");
            String value = next();
            if (key.equals(VersionRetention.OPTION)) {
                if (value.equalsIgnoreCase("NULL")) {
                    retention = VersionRetention.DEFAULT;
                } else if (value.startsWith("'") || value.startsWith("\"")) {
                    retention = VersionRetention.parse(unquote(value));
                } else {
                    in.back();
                    throw error(
                            VersionRetention.OPTION
                                    + " takes a string such as '1h' or '7d', or NULL");
                }
            }
            accept(",");
        }
        return retention;
    }

    private TableDef parseTable() {
        String name = identifier();
        expect("(");
        List<ColumnDef> columns = new ArrayList<>();
        while (!accept(")")) {
            if (peekWord("CONSTRAINT") || peekWord("FOREIGN")) {
                skipUntilTopLevel(",", ")");
            } else {
                String col = identifier();
                Type type = parseType();
                boolean notNull = false;
                while (!peek(",") && !peek(")")) {
                    if (acceptWord("NOT")) {
                        expectWord("NULL");
                        notNull = true;
                    } else if (peek("(")) {
                        skipBalanced();
                    } else {
                        in.skip(); // OPTIONS, DEFAULT, AS (...) STORED, HIDDEN: not modelled
                    }
                }
                columns.add(new ColumnDef(col, type, notNull, columns.size() + 1, false));
            }
            if (!accept(",")) {
                expect(")");
                break;
            }
        }
        expectWord("PRIMARY");
        expectWord("KEY");
        expect("(");
        List<String> keys = new ArrayList<>();
        List<Boolean> descending = new ArrayList<>();
        while (!accept(")")) {
            keys.add(identifier());
            boolean desc = false;
            if (!acceptWord("ASC")) {
                desc = acceptWord("DESC");
            }
            descending.add(desc);
            accept(",");
        }
        // INTERLEAVE IN PARENT ..., ROW DELETION POLICY (...): not modelled.
        skipUntilTopLevel(";");
        return new TableDef(name, columns, keys, descending);
    }

    private Type parseType() {
        String word = next().toUpperCase(Locale.ROOT);
        if (word.equals("ARRAY")) {
            expect("<");
            Type element = parseType();
            expect(">");
            return SpannerTypes.arrayOf(element);
        }
        TypeCode code;
        switch (word) {
            case "INT64":
            case "FLOAT64":
            case "FLOAT32":
            case "NUMERIC":
            case "BOOL":
            case "STRING":
            case "BYTES":
            case "DATE":
            case "TIMESTAMP":
            case "JSON":
            case "UUID":
                code = TypeCode.valueOf(word);
                break;
            default:
                in.back();
                throw error("Unsupported column type " + word);
        }
        if ((code == TypeCode.STRING || code == TypeCode.BYTES) && peek("(")) {
            skipBalanced();
        }
        return SpannerTypes.of(code);
    }

    private ChangeStreamDef parseChangeStream() {
        String name = identifier();
        boolean forAll = false;
        Map<String, List<String>> watched = new LinkedHashMap<>();
        if (acceptWord("FOR")) {
            if (acceptWord("ALL")) {
                forAll = true;
            } else {
                do {
                    String table = identifier();
                    List<String> cols = null;
                    if (accept("(")) {
                        cols = new ArrayList<>();
                        while (!accept(")")) {
                            cols.add(identifier());
                            accept(",");
                        }
                    }
                    watched.put(table, cols);
                } while (accept(","));
            }
        }
        Map<String, String> options = new LinkedHashMap<>();
        if (acceptWord("OPTIONS")) {
            expect("(");
            while (!accept(")")) {
                String key = identifier().toLowerCase(Locale.ROOT);
                expect("=");
                String value = next();
                options.put(key, unquote(value));
                accept(",");
            }
        }
        return ChangeStreamOptions.build(name, forAll, watched, options);
    }

    // ---- tokens -------------------------------------------------------------------------

    private static List<String> tokenize(String s) {
        List<String> out = new ArrayList<>();
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '-' && s.startsWith("--", i) || c == '#') {
                while (i < s.length() && s.charAt(i) != '\n') {
                    i++;
                }
            } else if (c == '/' && s.startsWith("/*", i)) {
                int end = s.indexOf("*/", i + 2);
                i = end < 0 ? s.length() : end + 2;
            } else if (c == '\'' || c == '"' || c == '`') {
                int end = s.indexOf(c, i + 1);
                if (end < 0) {
                    throw new IllegalArgumentException("Unterminated quote in DDL at offset " + i);
                }
                out.add(s.substring(i, end + 1));
                i = end + 1;
            } else if (Character.isLetterOrDigit(c) || c == '_') {
                int j = i;
                while (j < s.length()
                        && (Character.isLetterOrDigit(s.charAt(j))
                                || s.charAt(j) == '_'
                                || s.charAt(j) == '.')) {
                    j++;
                }
                out.add(s.substring(i, j));
                i = j;
            } else {
                out.add(String.valueOf(c));
                i++;
            }
        }
        return out;
    }

    private static String unquote(String token) {
        if (token.length() >= 2
                && (token.charAt(0) == '\'' || token.charAt(0) == '"' || token.charAt(0) == '`')) {
            return token.substring(1, token.length() - 1);
        }
        return token;
    }

    private String identifier() {
        String t = next();
        if (!t.isEmpty()
                && (Character.isLetter(t.charAt(0)) || t.charAt(0) == '_' || t.charAt(0) == '`')) {
            return unquote(t);
        }
        in.back();
        throw error("Expected a name");
    }

    private String next() {
        return in.next();
    }

    private boolean peek(String t) {
        return in.peekIs(t::equals);
    }

    private boolean peekWord(String w) {
        return in.peekIs(w::equalsIgnoreCase);
    }

    private boolean accept(String t) {
        return in.accept(t::equals);
    }

    private boolean acceptWord(String w) {
        return in.accept(w::equalsIgnoreCase);
    }

    private void expect(String t) {
        if (!accept(t)) {
            throw error("Expected '" + t + "'");
        }
    }

    private void expectWord(String w) {
        if (!acceptWord(w)) {
            throw error("Expected " + w);
        }
    }

    private void skipBalanced() {
        expect("(");
        in.skipToClose("("::equals, ")"::equals);
    }

    private void skipUntilTopLevel(String... stops) {
        in.skipUntilTopLevel(t -> List.of(stops).contains(t), "("::equals, ")"::equals);
    }

    private IllegalArgumentException error(String message) {
        return new IllegalArgumentException("DDL error: " + message + " near '" + in.near(6) + "'");
    }
}
