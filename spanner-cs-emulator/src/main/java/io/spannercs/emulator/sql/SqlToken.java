package io.spannercs.emulator.sql;

import java.util.ArrayList;
import java.util.List;

/** Tokens of the small SQL subset the emulator answers. */
record SqlToken(Kind kind, String text) {
    enum Kind {
        WORD,
        PARAM,
        STRING,
        NUMBER,
        SYMBOL
    }

    static List<SqlToken> tokenize(String sql) {
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
            } else if (c == '@' || c == '$') {
                int j = i + 1;
                while (j < sql.length()
                        && (Character.isLetterOrDigit(sql.charAt(j)) || sql.charAt(j) == '_')) {
                    j++;
                }
                out.add(new SqlToken(Kind.PARAM, sql.substring(i + 1, j)));
                i = j;
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
            } else if (c == '`') {
                int j = sql.indexOf('`', i + 1);
                if (j < 0) {
                    throw new IllegalArgumentException("Unterminated quoted identifier in SQL");
                }
                out.add(new SqlToken(Kind.WORD, sql.substring(i + 1, j)));
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
            } else {
                out.add(new SqlToken(Kind.SYMBOL, String.valueOf(c)));
                i++;
            }
        }
        return out;
    }

    boolean isWord(String w) {
        return kind == Kind.WORD && text.equalsIgnoreCase(w);
    }

    boolean isSymbol(String s) {
        return kind == Kind.SYMBOL && text.equals(s);
    }
}
