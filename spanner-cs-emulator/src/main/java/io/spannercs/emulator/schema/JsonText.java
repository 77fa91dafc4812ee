package io.spannercs.emulator.schema;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.math.BigDecimal;

/**
 * A strict JSON (RFC 8259) parser into Gson trees that keeps numbers exact as {@link BigDecimal}s.
 * Gson's own parser turns integers of many digits (a {@code jsonb} {@code 1e300} is written with
 * 301 of them) into strings, which would change a value's type.
 */
final class JsonText {
    private final String s;
    private int pos;

    private JsonText(String s) {
        this.s = s;
    }

    /**
     * @throws IllegalArgumentException for text that is not one JSON value
     */
    static JsonElement parse(String text) {
        JsonText p = new JsonText(text);
        p.skipSpace();
        JsonElement e = p.value();
        p.skipSpace();
        if (p.pos != text.length()) {
            throw p.error("unexpected text after the value");
        }
        return e;
    }

    private JsonElement value() {
        if (pos >= s.length()) {
            throw error("unexpected end");
        }
        char c = s.charAt(pos);
        switch (c) {
            case '{':
                return object();
            case '[':
                return array();
            case '"':
                return new JsonPrimitive(string());
            case 't':
                return literal("true", new JsonPrimitive(true));
            case 'f':
                return literal("false", new JsonPrimitive(false));
            case 'n':
                return literal("null", JsonNull.INSTANCE);
            default:
                return number();
        }
    }

    private JsonObject object() {
        JsonObject o = new JsonObject();
        pos++;
        skipSpace();
        if (peek('}')) {
            pos++;
            return o;
        }
        while (true) {
            skipSpace();
            if (!peek('"')) {
                throw error("expected a key");
            }
            String key = string();
            skipSpace();
            expect(':');
            skipSpace();
            o.add(key, value()); // a duplicate key replaces the earlier value
            skipSpace();
            if (peek(',')) {
                pos++;
            } else {
                expect('}');
                return o;
            }
        }
    }

    private JsonArray array() {
        JsonArray a = new JsonArray();
        pos++;
        skipSpace();
        if (peek(']')) {
            pos++;
            return a;
        }
        while (true) {
            skipSpace();
            a.add(value());
            skipSpace();
            if (peek(',')) {
                pos++;
            } else {
                expect(']');
                return a;
            }
        }
    }

    private String string() {
        StringBuilder sb = new StringBuilder();
        pos++;
        while (true) {
            if (pos >= s.length()) {
                throw error("unterminated string");
            }
            char c = s.charAt(pos++);
            if (c == '"') {
                return sb.toString();
            }
            if (c < 0x20) {
                throw error("control character in string");
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            if (pos >= s.length()) {
                throw error("unterminated escape");
            }
            char e = s.charAt(pos++);
            switch (e) {
                case '"':
                case '\\':
                case '/':
                    sb.append(e);
                    break;
                case 'b':
                    sb.append('\b');
                    break;
                case 'f':
                    sb.append('\f');
                    break;
                case 'n':
                    sb.append('\n');
                    break;
                case 'r':
                    sb.append('\r');
                    break;
                case 't':
                    sb.append('\t');
                    break;
                case 'u':
                    if (pos + 4 > s.length()) {
                        throw error("bad \\u escape");
                    }
                    try {
                        sb.append((char) Integer.parseInt(s.substring(pos, pos + 4), 16));
                    } catch (NumberFormatException ex) {
                        throw error("bad \\u escape");
                    }
                    pos += 4;
                    break;
                default:
                    throw error("bad escape \\" + e);
            }
        }
    }

    private JsonPrimitive number() {
        int start = pos;
        if (peek('-')) {
            pos++;
        }
        int intStart = pos;
        digits();
        if (pos - intStart > 1 && s.charAt(intStart) == '0') {
            throw error("leading zero in number");
        }
        if (peek('.')) {
            pos++;
            if (digits() == 0) {
                throw error("digits expected after '.'");
            }
        }
        if (peek('e') || peek('E')) {
            pos++;
            if (peek('+') || peek('-')) {
                pos++;
            }
            if (digits() == 0) {
                throw error("digits expected in exponent");
            }
        }
        if (pos == intStart) {
            throw error(
                    "unexpected character '" + (start < s.length() ? s.charAt(start) : ' ') + "'");
        }
        return new JsonPrimitive(new BigDecimal(s.substring(start, pos)));
    }

    private int digits() {
        int start = pos;
        while (pos < s.length() && s.charAt(pos) >= '0' && s.charAt(pos) <= '9') {
            pos++;
        }
        return pos - start;
    }

    private JsonElement literal(String word, JsonElement value) {
        if (!s.startsWith(word, pos)) {
            throw error("unexpected character '" + s.charAt(pos) + "'");
        }
        pos += word.length();
        return value;
    }

    private void skipSpace() {
        while (pos < s.length()
                && (s.charAt(pos) == ' '
                        || s.charAt(pos) == '\t'
                        || s.charAt(pos) == '\n'
                        || s.charAt(pos) == '\r')) {
            pos++;
        }
    }

    private boolean peek(char c) {
        return pos < s.length() && s.charAt(pos) == c;
    }

    private void expect(char c) {
        if (!peek(c)) {
            throw error("expected '" + c + "'");
        }
        pos++;
    }

    private IllegalArgumentException error(String message) {
        return new IllegalArgumentException(message + " at offset " + pos);
    }
}
