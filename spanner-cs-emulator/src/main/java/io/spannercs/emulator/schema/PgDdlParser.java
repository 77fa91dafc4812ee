package io.spannercs.emulator.schema;

import com.google.spanner.v1.Type;
import io.spannercs.emulator.parse.TokenCursor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Parses the PostgreSQL DDL subset: {@code CREATE TABLE} with PostgreSQL types and inline or table
 * {@code PRIMARY KEY}, and {@code CREATE CHANGE STREAM ... [FOR ...] [WITH (...)]}. Unquoted names
 * fold to lower case and {@code "quoted"} names keep their case, as in PostgreSQL. Clauses the
 * emulator does not model ({@code DEFAULT}, {@code GENERATED ... STORED}, {@code CHECK}, foreign
 * keys, {@code INTERLEAVE IN PARENT}, {@code TTL INTERVAL}) are accepted and ignored.
 */
final class PgDdlParser {
    /** A token: a name or keyword, a quoted name, a string literal, a number or a symbol. */
    private record Token(String text, Kind kind) {
        boolean is(String word) {
            return kind == Kind.WORD && text.equalsIgnoreCase(word);
        }

        boolean isSymbol(String s) {
            return kind == Kind.SYMBOL && text.equals(s);
        }
    }

    private enum Kind {
        WORD,
        QUOTED_NAME,
        STRING,
        SYMBOL
    }

    private final TokenCursor<Token> in;

    private PgDdlParser(String ddl) {
        this.in = new TokenCursor<>(tokenize(ddl), Token::text, "DDL");
    }

    static Schema parse(String ddl) {
        return new PgDdlParser(ddl).parseSchema();
    }

    /** See {@link DdlParser#parseAlterDatabase(String, Dialect)}. */
    static java.util.Optional<VersionRetention> parseAlterDatabase(String ddl) {
        PgDdlParser p = new PgDdlParser(ddl);
        VersionRetention retention = null;
        while (!p.in.atEnd()) {
            if (p.acceptSymbol(";")) {
                continue;
            }
            if (!p.acceptWord("ALTER") || !p.acceptWord("DATABASE")) {
                throw p.error(
                        "The emulator's schema is fixed when it starts; at run time it only"
                                + " accepts ALTER DATABASE <db> SET "
                                + VersionRetention.PG_OPTION
                                + " = '...'");
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
            if (acceptSymbol(";")) {
                continue;
            }
            if (acceptWord("ALTER")) {
                expectWord("DATABASE");
                VersionRetention r = parseAlterDatabase();
                retention = r == null ? retention : r;
                if (!in.atEnd()) {
                    expectSymbol(";");
                }
                continue;
            }
            expectWord("CREATE");
            if (acceptWord("TABLE")) {
                if (peekWord("IF")) {
                    throw error("CREATE TABLE IF NOT EXISTS is not supported by the emulator");
                }
                tables.add(parseTable());
            } else if (acceptWord("CHANGE")) {
                expectWord("STREAM");
                streams.add(parseChangeStream());
            } else {
                throw error("Expected TABLE or CHANGE STREAM after CREATE");
            }
            if (!in.atEnd()) {
                expectSymbol(";");
            }
        }
        return new Schema(tables, streams, Dialect.POSTGRESQL, retention);
    }

    /**
     * After {@code ALTER DATABASE}: {@code <db> SET spanner.version_retention_period = '2h'} (or
     * {@code TO '2h'}, or {@code DEFAULT}), or {@code <db> RESET spanner.version_retention_period}.
     * Other {@code spanner.*} options are accepted and ignored.
     *
     * @return the retention period set (the default for DEFAULT and RESET), or null when not set
     */
    private VersionRetention parseAlterDatabase() {
        identifier();
        if (acceptWord("RESET")) {
            String option = word();
            return option.equals(VersionRetention.PG_OPTION) ? VersionRetention.DEFAULT : null;
        }
        expectWord("SET");
        String option = word();
        if (!acceptSymbol("=") && !acceptWord("TO")) {
            throw error("Expected '=' or TO");
        }
        Token value = next();
        if (!option.equals(VersionRetention.PG_OPTION)) {
            return null;
        }
        if (value.is("DEFAULT") || value.is("NULL")) {
            return VersionRetention.DEFAULT;
        }
        if (value.kind() != Kind.STRING) {
            in.back();
            throw error(VersionRetention.PG_OPTION + " takes a string such as '1h' or '7d'");
        }
        return VersionRetention.parse(value.text());
    }

    private TableDef parseTable() {
        String name = identifier();
        expectSymbol("(");
        List<ColumnDef> columns = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        while (!acceptSymbol(")")) {
            if (acceptWord("CONSTRAINT")) {
                identifier();
            }
            if (acceptWord("PRIMARY")) {
                expectWord("KEY");
                if (!keys.isEmpty()) {
                    throw error("Table " + name + " has more than one PRIMARY KEY");
                }
                keys.addAll(identifierList());
            } else if (peekWord("FOREIGN") || peekWord("CHECK") || peekWord("UNIQUE")) {
                skipUntilTopLevel(",", ")");
            } else {
                columns.add(parseColumn(columns.size() + 1, keys));
            }
            if (!acceptSymbol(",")) {
                expectSymbol(")");
                break;
            }
        }
        // INTERLEAVE IN PARENT ..., TTL INTERVAL ... ON col: not modelled.
        skipUntilTopLevel(";");
        TableDef table = new TableDef(name, columns, keys);
        for (ColumnDef k : table.keyColumns()) {
            if (!PgTypes.allowedInKey(k.type())) {
                throw new IllegalArgumentException(
                        "DDL error: column "
                                + k.name()
                                + " of type "
                                + PgTypes.name(k.type())
                                + " cannot be part of the primary key of "
                                + name);
            }
        }
        return table;
    }

    private ColumnDef parseColumn(int position, List<String> keys) {
        String col = identifier();
        Type type = parseType();
        boolean notNull = false;
        while (!peekSymbol(",") && !peekSymbol(")")) {
            if (acceptWord("NOT")) {
                expectWord("NULL");
                notNull = true;
            } else if (acceptWord("PRIMARY")) {
                expectWord("KEY");
                if (!keys.isEmpty()) {
                    throw error("More than one PRIMARY KEY");
                }
                keys.add(col);
                notNull = true; // a PostgreSQL primary key implies NOT NULL
            } else if (peekSymbol("(")) {
                skipBalanced();
            } else {
                in.skip(); // NULL, DEFAULT ..., GENERATED ALWAYS AS (...) STORED, REFERENCES ...
            }
        }
        return new ColumnDef(col, type, notNull, position, false);
    }

    /** A type name of one or more words, an optional {@code (n)} and an optional {@code []}. */
    private Type parseType() {
        int start = in.position();
        StringBuilder name = new StringBuilder(word());
        for (String[] multi :
                new String[][] {
                    {"double", "precision"},
                    {"character", "varying"},
                    {"timestamp", "with", "time", "zone"}
                }) {
            if (name.toString().equalsIgnoreCase(multi[0])) {
                for (int i = 1; i < multi.length; i++) {
                    expectWord(multi[i]);
                    name.append(' ').append(multi[i]);
                }
            }
        }
        Type type = PgTypes.scalar(name.toString());
        if (type == null) {
            in.reset(start);
            throw error("Unsupported column type " + name);
        }
        if (peekSymbol("(")) {
            skipBalanced(); // varchar(100), numeric(10, 2): lengths are not modelled
        }
        if (acceptSymbol("[")) {
            while (!acceptSymbol("]")) {
                in.skip(); // bigint[10]: PostgreSQL ignores the size
            }
            type = SpannerTypes.arrayOf(type);
        }
        return type;
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
                    watched.put(table, peekSymbol("(") ? identifierList() : null);
                } while (acceptSymbol(","));
            }
        }
        Map<String, String> options = new LinkedHashMap<>();
        if (peekWord("OPTIONS")) {
            throw error("PostgreSQL change streams take WITH (...), not OPTIONS (...)");
        }
        if (acceptWord("WITH")) {
            expectSymbol("(");
            while (!acceptSymbol(")")) {
                String key = identifier().toLowerCase(Locale.ROOT);
                expectSymbol("=");
                options.put(key, next().text());
                acceptSymbol(",");
            }
        }
        return ChangeStreamOptions.build(name, forAll, watched, options);
    }

    private List<String> identifierList() {
        expectSymbol("(");
        List<String> out = new ArrayList<>();
        while (!acceptSymbol(")")) {
            out.add(identifier());
            acceptSymbol(",");
        }
        return out;
    }

    // ---- tokens -------------------------------------------------------------------------

    private static List<Token> tokenize(String s) {
        List<Token> out = new ArrayList<>();
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (s.startsWith("--", i)) {
                while (i < s.length() && s.charAt(i) != '\n') {
                    i++;
                }
            } else if (s.startsWith("/*", i)) {
                int end = s.indexOf("*/", i + 2);
                i = end < 0 ? s.length() : end + 2;
            } else if (c == '\'' || c == '"') {
                // PostgreSQL doubles the quote inside: 'it''s', "a ""b"""
                StringBuilder sb = new StringBuilder();
                int j = i + 1;
                while (true) {
                    if (j >= s.length()) {
                        throw new IllegalArgumentException(
                                "Unterminated quote in DDL at offset " + i);
                    }
                    if (s.charAt(j) == c) {
                        if (j + 1 < s.length() && s.charAt(j + 1) == c) {
                            sb.append(c);
                            j += 2;
                            continue;
                        }
                        break;
                    }
                    sb.append(s.charAt(j++));
                }
                out.add(new Token(sb.toString(), c == '"' ? Kind.QUOTED_NAME : Kind.STRING));
                i = j + 1;
            } else if (Character.isLetterOrDigit(c) || c == '_') {
                int j = i;
                while (j < s.length()
                        && (Character.isLetterOrDigit(s.charAt(j))
                                || s.charAt(j) == '_'
                                || s.charAt(j) == '$'
                                || s.charAt(j) == '.')) {
                    j++;
                }
                out.add(new Token(s.substring(i, j), Kind.WORD));
                i = j;
            } else {
                out.add(new Token(String.valueOf(c), Kind.SYMBOL));
                i++;
            }
        }
        return out;
    }

    /** A name: quoted names keep their case, others fold to lower case. */
    private String identifier() {
        Token t = next();
        if (t.kind() == Kind.QUOTED_NAME) {
            return t.text();
        }
        if (t.kind() == Kind.WORD
                && (Character.isLetter(t.text().charAt(0)) || t.text().charAt(0) == '_')) {
            return t.text().toLowerCase(Locale.ROOT);
        }
        in.back();
        throw error("Expected a name");
    }

    private String word() {
        Token t = next();
        if (t.kind() != Kind.WORD) {
            in.back();
            throw error("Expected a type name");
        }
        return t.text().toLowerCase(Locale.ROOT);
    }

    private Token next() {
        return in.next();
    }

    private boolean peekSymbol(String s) {
        return in.peekIs(t -> t.isSymbol(s));
    }

    private boolean peekWord(String w) {
        return in.peekIs(t -> t.is(w));
    }

    private boolean acceptSymbol(String s) {
        return in.accept(t -> t.isSymbol(s));
    }

    private boolean acceptWord(String w) {
        return in.accept(t -> t.is(w));
    }

    private void expectSymbol(String s) {
        if (!acceptSymbol(s)) {
            throw error("Expected '" + s + "'");
        }
    }

    private void expectWord(String w) {
        if (!acceptWord(w)) {
            throw error("Expected " + w);
        }
    }

    private void skipBalanced() {
        expectSymbol("(");
        in.skipToClose(t -> t.isSymbol("("), t -> t.isSymbol(")"));
    }

    private void skipUntilTopLevel(String... stops) {
        in.skipUntilTopLevel(
                t -> t.kind() == Kind.SYMBOL && List.of(stops).contains(t.text()),
                t -> t.isSymbol("("),
                t -> t.isSymbol(")"));
    }

    private IllegalArgumentException error(String message) {
        return new IllegalArgumentException("DDL error: " + message + " near '" + in.near(6) + "'");
    }
}
