package io.spannercs.emulator.sql;

import java.util.ArrayList;
import java.util.List;

/**
 * Tokens of the small SQL subset the emulator answers. GoogleSQL and PostgreSQL differ in quoting:
 * GoogleSQL has {@code `names`} and strings in either quote with backslash escapes; PostgreSQL has
 * {@code "names"} and {@code 'strings'} that double the quote to escape it, and positional
 * parameters {@code $1}, which the client binds as {@code p1}.
 */
record SqlToken(Kind kind, String text, boolean quoted) {
    enum Kind {
        WORD,
        PARAM,
        STRING,
        NUMBER,
        SYMBOL
    }

    SqlToken(Kind kind, String text) {
        this(kind, text, false);
    }

    static List<SqlToken> tokenize(String sql) {
        return tokenize(sql, false);
    }

    /**
     * @param postgres whether to read PostgreSQL quoting and parameters
     */
    static List<SqlToken> tokenize(String sql, boolean postgres) {
        List<SqlToken> out = new ArrayList<>();
        int i = 0;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '-' && sql.startsWith("--", i)) {
                while (i < sql.length() && sql.charAt(i) != '\n') {
                    i++;
                }
            } else if (postgres && c == '/' && sql.startsWith("/*", i)) {
                int end = sql.indexOf("*/", i + 2);
                i = end < 0 ? sql.length() : end + 2;
            } else if (c == '@' || c == '$') {
                int j = i + 1;
                while (j < sql.length()
                        && (Character.isLetterOrDigit(sql.charAt(j)) || sql.charAt(j) == '_')) {
                    j++;
                }
                String name = sql.substring(i + 1, j);
                if (postgres
                        && c == '$'
                        && !name.isEmpty()
                        && name.chars().allMatch(Character::isDigit)) {
                    name = "p" + name; // the official client binds $1 as parameter p1
                }
                out.add(new SqlToken(Kind.PARAM, name));
                i = j;
            } else if (postgres && (c == '\'' || c == '"')) {
                int j = i + 1;
                StringBuilder sb = new StringBuilder();
                while (true) {
                    if (j >= sql.length()) {
                        throw new IllegalArgumentException(
                                c == '"'
                                        ? "Unterminated quoted identifier in SQL"
                                        : "Unterminated string literal in SQL");
                    }
                    if (sql.charAt(j) == c) {
                        if (j + 1 < sql.length() && sql.charAt(j + 1) == c) {
                            sb.append(c);
                            j += 2;
                            continue;
                        }
                        break;
                    }
                    sb.append(sql.charAt(j++));
                }
                out.add(
                        c == '"'
                                ? new SqlToken(Kind.WORD, sb.toString(), true)
                                : new SqlToken(Kind.STRING, sb.toString()));
                i = j + 1;
            } else if (c == '\'' || c == '"') {
                StringBuilder sb = new StringBuilder();
                int j = i + 1;
                while (j < sql.length() && sql.charAt(j) != c) {
                    if (sql.charAt(j) == '\\' && j + 1 < sql.length()) {
                        j++;
                    }
                    sb.append(sql.charAt(j++));
                }
                if (j >= sql.length()) {
                    throw new IllegalArgumentException("Unterminated string literal in SQL");
                }
                out.add(new SqlToken(Kind.STRING, sb.toString()));
                i = j + 1;
            } else if (!postgres && c == '`') {
                int j = sql.indexOf('`', i + 1);
                if (j < 0) {
                    throw new IllegalArgumentException("Unterminated quoted identifier in SQL");
                }
                out.add(new SqlToken(Kind.WORD, sql.substring(i + 1, j), true));
                i = j + 1;
            } else if (Character.isDigit(c)
                    || (c == '-' && i + 1 < sql.length() && Character.isDigit(sql.charAt(i + 1)))) {
                int j = i + 1;
                while (j < sql.length()
                        && (Character.isDigit(sql.charAt(j)) || sql.charAt(j) == '.')) {
                    j++;
                }
                out.add(new SqlToken(Kind.NUMBER, sql.substring(i, j)));
                i = j;
            } else if (Character.isLetter(c) || c == '_') {
                int j = i + 1;
                while (j < sql.length()
                        && (Character.isLetterOrDigit(sql.charAt(j)) || sql.charAt(j) == '_')) {
                    j++;
                }
                out.add(new SqlToken(Kind.WORD, sql.substring(i, j)));
                i = j;
            } else if (c == '=' && sql.startsWith("=>", i)) {
                out.add(new SqlToken(Kind.SYMBOL, "=>"));
                i += 2;
            } else if (postgres && c == ':' && sql.startsWith("::", i)) {
                out.add(new SqlToken(Kind.SYMBOL, "::"));
                i += 2;
            } else {
                out.add(new SqlToken(Kind.SYMBOL, String.valueOf(c)));
                i++;
            }
        }
        return out;
    }

    /** A keyword or unquoted name equal to {@code w}, ignoring case; quoted names never are. */
    boolean isWord(String w) {
        return kind == Kind.WORD && !quoted && text.equalsIgnoreCase(w);
    }

    boolean isSymbol(String s) {
        return kind == Kind.SYMBOL && text.equals(s);
    }
}
