package io.spannercs.emulator.schema;

import com.google.spanner.v1.Type;
import com.google.spanner.v1.TypeCode;
import java.time.Duration;
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
    private final List<String> tokens;
    private int pos;

    private DdlParser(String ddl) {
        this.tokens = tokenize(ddl);
    }

    /** Parses a whole DDL script into a schema. */
    public static Schema parse(String ddl) {
        return new DdlParser(ddl).parseSchema();
    }

    private Schema parseSchema() {
        List<TableDef> tables = new ArrayList<>();
        List<ChangeStreamDef> streams = new ArrayList<>();
        while (pos < tokens.size()) {
            if (accept(";")) {
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
            if (pos < tokens.size()) {
                expect(";");
            }
        }
        return new Schema(tables, streams);
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
                        pos++; // OPTIONS, DEFAULT, AS (...) STORED, HIDDEN: not modelled
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
        while (!accept(")")) {
            keys.add(identifier());
            if (!acceptWord("ASC")) {
                acceptWord("DESC");
            }
            accept(",");
        }
        // INTERLEAVE IN PARENT ..., ROW DELETION POLICY (...): not modelled.
        while (pos < tokens.size() && !peek(";")) {
            if (peek("(")) {
                skipBalanced();
            } else {
                pos++;
            }
        }
        return new TableDef(name, columns, keys);
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
                code = TypeCode.valueOf(word);
                break;
            default:
                pos--;
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
        PartitionMode mode = PartitionMode.IMMUTABLE_KEY_RANGE;
        ValueCaptureType capture = ValueCaptureType.OLD_AND_NEW_VALUES;
        Duration retention = ChangeStreamDef.DEFAULT_RETENTION;
        boolean excludeTtl = false;
        for (Map.Entry<String, String> o : options.entrySet()) {
            String v = o.getValue();
            switch (o.getKey()) {
                case "partition_mode":
                    mode = enumOption(PartitionMode.class, o.getKey(), v);
                    break;
                case "value_capture_type":
                    capture = enumOption(ValueCaptureType.class, o.getKey(), v);
                    break;
                case "retention_period":
                    retention = parseRetention(v);
                    break;
                case "exclude_ttl_deletes":
                    excludeTtl = Boolean.parseBoolean(v);
                    break;
                case "exclude_insert":
                case "exclude_update":
                case "exclude_delete":
                    if (!v.equalsIgnoreCase("true") && !v.equalsIgnoreCase("false")) {
                        throw new IllegalArgumentException(
                                "Invalid value '" + v + "' for change stream option " + o.getKey());
                    }
                    break;
                case "allow_txn_exclusion":
                    throw new IllegalArgumentException(
                            "Change stream option "
                                    + o.getKey()
                                    + " is not supported by the emulator");
                default:
                    throw new IllegalArgumentException(
                            "Unknown change stream option " + o.getKey() + " for " + name);
            }
        }
        return new ChangeStreamDef(
                name, forAll, watched, mode, capture, retention, excludeTtl, options);
    }

    private static <E extends Enum<E>> E enumOption(Class<E> type, String option, String value) {
        try {
            return Enum.valueOf(type, value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "Invalid value '" + value + "' for change stream option " + option);
        }
    }

    /** Spanner accepts {@code 36h}, {@code 2d}, {@code 3600s}, {@code 90m}; range 1 to 7 days. */
    static Duration parseRetention(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.length() < 2) {
            throw new IllegalArgumentException("Invalid retention_period '" + text + "'");
        }
        long n;
        try {
            n = Long.parseLong(t.substring(0, t.length() - 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Invalid retention_period '" + text + "'");
        }
        Duration d;
        switch (t.charAt(t.length() - 1)) {
            case 'd':
                d = Duration.ofDays(n);
                break;
            case 'h':
                d = Duration.ofHours(n);
                break;
            case 'm':
                d = Duration.ofMinutes(n);
                break;
            case 's':
                d = Duration.ofSeconds(n);
                break;
            default:
                throw new IllegalArgumentException("Invalid retention_period '" + text + "'");
        }
        if (d.compareTo(Duration.ofDays(1)) < 0 || d.compareTo(Duration.ofDays(7)) > 0) {
            throw new IllegalArgumentException(
                    "retention_period must be between 1d and 7d, got '" + text + "'");
        }
        return d;
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
        pos--;
        throw error("Expected a name");
    }

    private String next() {
        if (pos >= tokens.size()) {
            throw new IllegalArgumentException("Unexpected end of DDL");
        }
        return tokens.get(pos++);
    }

    private boolean peek(String t) {
        return pos < tokens.size() && tokens.get(pos).equals(t);
    }

    private boolean peekWord(String w) {
        return pos < tokens.size() && tokens.get(pos).equalsIgnoreCase(w);
    }

    private boolean accept(String t) {
        if (peek(t)) {
            pos++;
            return true;
        }
        return false;
    }

    private boolean acceptWord(String w) {
        if (peekWord(w)) {
            pos++;
            return true;
        }
        return false;
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
        int depth = 1;
        while (depth > 0) {
            String t = next();
            if (t.equals("(")) {
                depth++;
            } else if (t.equals(")")) {
                depth--;
            }
        }
    }

    private void skipUntilTopLevel(String... stops) {
        while (pos < tokens.size()) {
            for (String s : stops) {
                if (peek(s)) {
                    return;
                }
            }
            if (peek("(")) {
                skipBalanced();
            } else {
                pos++;
            }
        }
    }

    private IllegalArgumentException error(String message) {
        StringBuilder near = new StringBuilder();
        for (int i = pos; i < Math.min(tokens.size(), pos + 6); i++) {
            near.append(tokens.get(i)).append(' ');
        }
        return new IllegalArgumentException(
                "DDL error: " + message + " near '" + near.toString().trim() + "'");
    }
}
