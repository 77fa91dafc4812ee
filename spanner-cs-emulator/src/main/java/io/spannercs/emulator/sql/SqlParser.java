package io.spannercs.emulator.sql;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Parses the statements the emulator answers: change stream reads (named or positional arguments),
 * {@code SELECT} from a table or {@code information_schema} with equality filters, and {@code
 * SELECT <literal>}.
 */
public final class SqlParser {
    /** Parameter names of {@code READ_<stream>}, in positional order. */
    public static final List<String> READ_ARGUMENTS =
            List.of(
                    "start_timestamp",
                    "end_timestamp",
                    "partition_token",
                    "heartbeat_milliseconds",
                    "read_options");

    private final List<SqlToken> tokens;
    private int pos;

    private SqlParser(String sql) {
        this.tokens = SqlToken.tokenize(sql);
    }

    /**
     * @throws IllegalArgumentException for statements outside the subset
     */
    public static SqlStatement parse(String sql) {
        return new SqlParser(sql).statement();
    }

    private SqlStatement statement() {
        expectWord("SELECT");
        if (peekLiteral() && (pos + 1 >= tokens.size() || tokens.get(pos + 1).isSymbol(";"))) {
            return new SqlStatement.SelectLiteral(expr());
        }
        List<String> columns = new ArrayList<>();
        if (accept("*")) {
            columns.add("*");
        } else {
            do {
                columns.add(word());
            } while (accept(","));
        }
        expectWord("FROM");
        String first = word();
        String schemaName = "";
        String table = first;
        if (accept(".")) {
            schemaName = first;
            table = word();
        }
        if (schemaName.isEmpty()
                && table.toUpperCase(Locale.ROOT).startsWith("READ_")
                && peek("(")) {
            return changeStreamRead(table.substring("READ_".length()));
        }
        Map<String, SqlExpr> equalities = new LinkedHashMap<>();
        if (acceptWord("WHERE")) {
            do {
                String col = word();
                expect("=");
                equalities.put(col.toLowerCase(Locale.ROOT), expr());
            } while (acceptWord("AND"));
        }
        if (acceptWord("ORDER")) {
            throw new IllegalArgumentException(
                    "The emulator does not support ORDER BY; rows come in key order");
        }
        end();
        return new SqlStatement.Select(schemaName, table, columns, equalities);
    }

    private SqlStatement changeStreamRead(String stream) {
        expect("(");
        Map<String, SqlExpr> args = new LinkedHashMap<>();
        int positional = 0;
        while (!accept(")")) {
            if (tokens.get(pos).kind() == SqlToken.Kind.WORD
                    && pos + 1 < tokens.size()
                    && tokens.get(pos + 1).isSymbol("=>")) {
                String name = word().toLowerCase(Locale.ROOT);
                expect("=>");
                if (!READ_ARGUMENTS.contains(name)) {
                    throw new IllegalArgumentException(
                            "Unknown argument " + name + " of READ_" + stream);
                }
                args.put(name, expr());
            } else {
                if (positional >= READ_ARGUMENTS.size()) {
                    throw new IllegalArgumentException("Too many arguments for READ_" + stream);
                }
                args.put(READ_ARGUMENTS.get(positional++), expr());
            }
            if (!accept(",")) {
                expect(")");
                break;
            }
        }
        accept(";");
        if (pos < tokens.size()) {
            throw new CombinedChangeStreamQueryException(stream);
        }
        return new SqlStatement.ChangeStreamRead(stream, args);
    }

    private boolean peekLiteral() {
        if (pos >= tokens.size()) {
            return false;
        }
        SqlToken t = tokens.get(pos);
        return t.kind() == SqlToken.Kind.NUMBER
                || t.kind() == SqlToken.Kind.STRING
                || t.kind() == SqlToken.Kind.PARAM
                || t.isWord("NULL")
                || t.isWord("TRUE")
                || t.isWord("FALSE");
    }

    private SqlExpr expr() {
        SqlToken t = next();
        switch (t.kind()) {
            case PARAM:
                return new SqlExpr(SqlExpr.Kind.PARAM, t.text());
            case STRING:
                return new SqlExpr(SqlExpr.Kind.STRING, t.text());
            case NUMBER:
                return new SqlExpr(SqlExpr.Kind.NUMBER, t.text());
            case WORD:
                if (t.isWord("NULL")) {
                    return new SqlExpr(SqlExpr.Kind.NULL, "NULL");
                }
                if (t.isWord("TRUE") || t.isWord("FALSE")) {
                    return new SqlExpr(SqlExpr.Kind.BOOL, t.text().toLowerCase(Locale.ROOT));
                }
                if (t.isWord("TIMESTAMP")
                        && pos < tokens.size()
                        && tokens.get(pos).kind() == SqlToken.Kind.STRING) {
                    return new SqlExpr(SqlExpr.Kind.TIMESTAMP, next().text());
                }
                if (t.isWord("CAST")) {
                    expect("(");
                    SqlExpr inner = expr();
                    expectWord("AS");
                    word();
                    expect(")");
                    return inner;
                }
                break;
            default:
                break;
        }
        throw new IllegalArgumentException("Unsupported expression '" + t.text() + "'");
    }

    private void end() {
        accept(";");
        if (pos < tokens.size()) {
            throw new IllegalArgumentException(
                    "Unsupported SQL near '" + tokens.get(pos).text() + "'");
        }
    }

    private SqlToken next() {
        if (pos >= tokens.size()) {
            throw new IllegalArgumentException("Unexpected end of SQL");
        }
        return tokens.get(pos++);
    }

    private String word() {
        SqlToken t = next();
        if (t.kind() != SqlToken.Kind.WORD) {
            throw new IllegalArgumentException("Expected a name, found '" + t.text() + "'");
        }
        return t.text();
    }

    private boolean peek(String symbol) {
        return pos < tokens.size() && tokens.get(pos).isSymbol(symbol);
    }

    private boolean accept(String symbol) {
        if (peek(symbol)) {
            pos++;
            return true;
        }
        return false;
    }

    private boolean acceptWord(String w) {
        if (pos < tokens.size() && tokens.get(pos).isWord(w)) {
            pos++;
            return true;
        }
        return false;
    }

    private void expect(String symbol) {
        if (!accept(symbol)) {
            throw new IllegalArgumentException(
                    "Expected '"
                            + symbol
                            + "'"
                            + (pos < tokens.size()
                                    ? " near '" + tokens.get(pos).text() + "'"
                                    : " at end"));
        }
    }

    private void expectWord(String w) {
        if (!acceptWord(w)) {
            throw new IllegalArgumentException("Unsupported statement: expected " + w);
        }
    }
}
