package io.spannercs.emulator.sql;

import io.spannercs.emulator.parse.TokenCursor;
import io.spannercs.emulator.schema.Dialect;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Parses the statements the emulator answers: change stream reads, {@code SELECT} from a table or
 * {@code information_schema} with {@code =} and {@code IN} filters, and {@code SELECT <literal>}.
 *
 * <p>In GoogleSQL a change stream is read with {@code READ_<stream>(...)}, with named ({@code
 * start_timestamp => @s}) or positional arguments. In PostgreSQL it is read with {@code
 * spanner.read_json_<stream>(...)} or {@code spanner.read_proto_bytes_<stream>(...)} with
 * positional arguments, which may carry casts ({@code '2024-01-01T00:00:00Z'::timestamptz}, {@code
 * NULL::text[]}); unquoted names fold to lower case and {@code "quoted"} ones keep their case.
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

    /** PostgreSQL's schema of the change stream functions. */
    public static final String PG_FUNCTION_SCHEMA = "spanner";

    public static final String PG_READ_JSON = "read_json_";
    public static final String PG_READ_PROTO_BYTES = "read_proto_bytes_";

    private final TokenCursor<SqlToken> in;
    private final boolean postgres;

    private SqlParser(String sql, Dialect dialect) {
        this.postgres = dialect == Dialect.POSTGRESQL;
        this.in = new TokenCursor<>(SqlToken.tokenize(sql, postgres), SqlToken::text, "SQL");
    }

    /**
     * Parses GoogleSQL.
     *
     * @throws IllegalArgumentException for statements outside the subset
     */
    public static SqlStatement parse(String sql) {
        return parse(sql, Dialect.GOOGLE_STANDARD_SQL);
    }

    /**
     * Parses a statement of the dialect.
     *
     * @throws IllegalArgumentException for statements outside the subset
     */
    public static SqlStatement parse(String sql, Dialect dialect) {
        return new SqlParser(sql, dialect).statement();
    }

    private SqlStatement statement() {
        expectWord("SELECT");
        if (peekLiteral() && (in.peek(1) == null || in.peek(1).isSymbol(";"))) {
            return new SqlStatement.SelectLiteral(expr());
        }
        List<String> columns = new ArrayList<>();
        if (accept("*")) {
            columns.add("*");
        } else {
            do {
                columns.add(name());
            } while (accept(","));
        }
        expectWord("FROM");
        String first = name();
        String schemaName = "";
        String table = first;
        if (accept(".")) {
            schemaName = first;
            table = name();
        }
        if (peek("(")) {
            if (postgres) {
                return pgChangeStreamRead(schemaName, table);
            }
            if (schemaName.isEmpty() && table.toUpperCase(Locale.ROOT).startsWith("READ_")) {
                String stream = table.substring("READ_".length());
                return new SqlStatement.ChangeStreamRead(stream, arguments("READ_" + stream, true));
            }
            throw new IllegalArgumentException(
                    "Table-valued function not found: "
                            + (schemaName.isEmpty() ? "" : schemaName + ".")
                            + table
                            + " (GoogleSQL reads change streams with READ_<stream>)");
        }
        Map<String, SqlExpr> equalities = new LinkedHashMap<>();
        Map<String, List<SqlExpr>> memberships = new LinkedHashMap<>();
        if (acceptWord("WHERE")) {
            do {
                String col = name().toLowerCase(Locale.ROOT);
                if (acceptWord("IN")) {
                    expect("(");
                    List<SqlExpr> values = new ArrayList<>();
                    do {
                        values.add(expr());
                    } while (accept(","));
                    expect(")");
                    memberships.put(col, values);
                } else {
                    expect("=");
                    equalities.put(col, expr());
                }
            } while (acceptWord("AND"));
        }
        if (acceptWord("ORDER")) {
            throw new IllegalArgumentException(
                    "The emulator does not support ORDER BY; rows come in key order");
        }
        end();
        return new SqlStatement.Select(schemaName, table, columns, equalities, memberships);
    }

    /**
     * {@code spanner.read_json_<stream>(...)} or {@code spanner.read_proto_bytes_<stream>(...)}.
     */
    private SqlStatement pgChangeStreamRead(String schemaName, String function) {
        SqlStatement.ReadFunction kind;
        String stream;
        if (function.startsWith(PG_READ_JSON)) {
            kind = SqlStatement.ReadFunction.READ_JSON;
            stream = function.substring(PG_READ_JSON.length());
        } else if (function.startsWith(PG_READ_PROTO_BYTES)) {
            kind = SqlStatement.ReadFunction.READ_PROTO_BYTES;
            stream = function.substring(PG_READ_PROTO_BYTES.length());
        } else {
            throw new IllegalArgumentException(
                    "Table-valued function not found: "
                            + (schemaName.isEmpty() ? "" : schemaName + ".")
                            + function
                            + " (PostgreSQL reads change streams with spanner.read_json_<stream>"
                            + " or spanner.read_proto_bytes_<stream>)");
        }
        if (!schemaName.equals(PG_FUNCTION_SCHEMA)) {
            throw new IllegalArgumentException(
                    "Table-valued function not found: "
                            + (schemaName.isEmpty() ? "" : schemaName + ".")
                            + function
                            + " (the change stream functions are in schema spanner: spanner."
                            + function
                            + ")");
        }
        Map<String, SqlExpr> args = arguments(PG_FUNCTION_SCHEMA + "." + function, false);
        return new SqlStatement.ChangeStreamRead(stream, args, kind, function);
    }

    /** The arguments of a change stream function, ending at its closing parenthesis. */
    private Map<String, SqlExpr> arguments(String function, boolean namedAllowed) {
        expect("(");
        Map<String, SqlExpr> args = new LinkedHashMap<>();
        int positional = 0;
        while (!accept(")")) {
            if (in.peekIs(t -> t.kind() == SqlToken.Kind.WORD)
                    && in.peek(1) != null
                    && in.peek(1).isSymbol("=>")) {
                String argName = name().toLowerCase(Locale.ROOT);
                if (!namedAllowed) {
                    throw new IllegalArgumentException(
                            "The emulator takes only positional arguments for "
                                    + function
                                    + " (start_timestamp, end_timestamp, partition_token,"
                                    + " heartbeat_milliseconds, null), got "
                                    + argName
                                    + " =>");
                }
                expect("=>");
                if (!READ_ARGUMENTS.contains(argName)) {
                    throw new IllegalArgumentException(
                            "Unknown argument " + argName + " of " + function);
                }
                args.put(argName, expr());
            } else {
                if (positional >= READ_ARGUMENTS.size()) {
                    throw new IllegalArgumentException("Too many arguments for " + function);
                }
                args.put(READ_ARGUMENTS.get(positional++), expr());
            }
            if (!accept(",")) {
                expect(")");
                break;
            }
        }
        accept(";");
        if (!in.atEnd()) {
            throw new CombinedChangeStreamQueryException(
                    postgres
                            ? "SELECT * FROM " + function + "(<args>)"
                            : "SELECT ChangeRecord FROM " + function + "(<args>)");
        }
        return args;
    }

    private boolean peekLiteral() {
        if (in.atEnd()) {
            return false;
        }
        SqlToken t = in.peek();
        return t.kind() == SqlToken.Kind.NUMBER
                || t.kind() == SqlToken.Kind.STRING
                || t.kind() == SqlToken.Kind.PARAM
                || t.isWord("NULL")
                || t.isWord("TRUE")
                || t.isWord("FALSE");
    }

    /** A literal or parameter, with PostgreSQL {@code ::type} casts after it. */
    private SqlExpr expr() {
        SqlExpr e = primary();
        while (postgres && accept("::")) {
            e = cast(e, typeName());
        }
        return e;
    }

    private SqlExpr primary() {
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
                if ((t.isWord("TIMESTAMP") || (postgres && t.isWord("TIMESTAMPTZ")))
                        && in.peekIs(n -> n.kind() == SqlToken.Kind.STRING)) {
                    return new SqlExpr(SqlExpr.Kind.TIMESTAMP, next().text());
                }
                if (t.isWord("CAST")) {
                    expect("(");
                    SqlExpr inner = expr();
                    expectWord("AS");
                    String type = typeName();
                    expect(")");
                    return cast(inner, type);
                }
                break;
            default:
                break;
        }
        throw new IllegalArgumentException("Unsupported expression '" + t.text() + "'");
    }

    /** A type name of one or more words, with an optional {@code [ ]} or {@code (n)}. */
    private String typeName() {
        StringBuilder sb = new StringBuilder(next().text().toLowerCase(Locale.ROOT));
        while (in.peekIs(
                t ->
                        t.kind() == SqlToken.Kind.WORD
                                && !t.isWord("AS")
                                && !t.isWord("AND")
                                && !t.isWord("FROM"))) {
            sb.append(' ').append(next().text().toLowerCase(Locale.ROOT)); // double precision
        }
        if (accept("(")) {
            while (!accept(")")) {
                next();
            }
        }
        if (accept("[")) {
            expect("]");
            sb.append("[]");
        }
        return sb.toString();
    }

    /** Casting a string to a timestamp type makes a TIMESTAMP literal; other casts keep it. */
    private static SqlExpr cast(SqlExpr e, String type) {
        boolean toTimestamp =
                type.equals("timestamp")
                        || type.equals("timestamptz")
                        || type.equals("timestamp with time zone");
        if (toTimestamp && e.kind() == SqlExpr.Kind.STRING) {
            return new SqlExpr(SqlExpr.Kind.TIMESTAMP, e.text());
        }
        return e;
    }

    private void end() {
        accept(";");
        if (!in.atEnd()) {
            throw new IllegalArgumentException("Unsupported SQL near '" + in.peek().text() + "'");
        }
    }

    private SqlToken next() {
        return in.next();
    }

    /** A name; in PostgreSQL unquoted names fold to lower case. */
    private String name() {
        SqlToken t = next();
        if (t.kind() != SqlToken.Kind.WORD) {
            throw new IllegalArgumentException("Expected a name, found '" + t.text() + "'");
        }
        return postgres && !t.quoted() ? t.text().toLowerCase(Locale.ROOT) : t.text();
    }

    private boolean peek(String symbol) {
        return in.peekIs(t -> t.isSymbol(symbol));
    }

    private boolean accept(String symbol) {
        return in.accept(t -> t.isSymbol(symbol));
    }

    private boolean acceptWord(String w) {
        return in.accept(t -> t.isWord(w));
    }

    private void expect(String symbol) {
        if (!accept(symbol)) {
            throw new IllegalArgumentException(
                    "Expected '"
                            + symbol
                            + "'"
                            + (!in.atEnd() ? " near '" + in.peek().text() + "'" : " at end"));
        }
    }

    private void expectWord(String w) {
        if (!acceptWord(w)) {
            throw new IllegalArgumentException("Unsupported statement: expected " + w);
        }
    }
}
