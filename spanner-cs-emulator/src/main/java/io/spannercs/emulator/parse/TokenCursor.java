package io.spannercs.emulator.parse;

import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A reading position over a statement's tokens, shared by the emulator's hand-written parsers (the
 * GoogleSQL and PostgreSQL DDL parsers and the SQL parser). Each parser keeps its own tokenizer,
 * token type and messages; this class only moves through the tokens.
 *
 * @param <T> the parser's token type
 */
public final class TokenCursor<T> {
    private final List<T> tokens;
    private final Function<T, String> text;
    private final String source;
    private int pos;

    /**
     * @param tokens the statement's tokens, in order
     * @param text a token's text, for messages
     * @param source what the tokens are ({@code "DDL"}, {@code "SQL"}), for messages
     */
    public TokenCursor(List<T> tokens, Function<T, String> text, String source) {
        this.tokens = List.copyOf(tokens);
        this.text = text;
        this.source = source;
    }

    /** Whether every token was read. */
    public boolean atEnd() {
        return pos >= tokens.size();
    }

    /** The next token without reading it, or null at the end. */
    public T peek() {
        return peek(0);
    }

    /** The token {@code ahead} places after the next one, or null past the end. */
    public T peek(int ahead) {
        int i = pos + ahead;
        return i < tokens.size() ? tokens.get(i) : null;
    }

    /** Whether there is a next token and it matches. */
    public boolean peekIs(Predicate<? super T> matches) {
        return !atEnd() && matches.test(tokens.get(pos));
    }

    /**
     * Reads the next token.
     *
     * @throws IllegalArgumentException at the end ("Unexpected end of DDL")
     */
    public T next() {
        if (atEnd()) {
            throw new IllegalArgumentException("Unexpected end of " + source);
        }
        return tokens.get(pos++);
    }

    /** Reads the next token if it matches; whether it did. */
    public boolean accept(Predicate<? super T> matches) {
        if (peekIs(matches)) {
            pos++;
            return true;
        }
        return false;
    }

    /**
     * Passes over the next token.
     *
     * @throws IllegalArgumentException at the end, as {@link #next()}
     */
    public void skip() {
        next();
    }

    /** Steps back over the token just read, so that a message shows it. */
    public void back() {
        if (pos > 0) {
            pos--;
        }
    }

    /** The position, to {@link #reset} to when a guess was wrong. */
    public int position() {
        return pos;
    }

    public void reset(int position) {
        pos = position;
    }

    /**
     * After an opening bracket was read: reads up to and including the bracket that closes it,
     * nested pairs included.
     *
     * @throws IllegalArgumentException when the tokens end first
     */
    public void skipToClose(Predicate<? super T> open, Predicate<? super T> close) {
        int depth = 1;
        while (depth > 0) {
            T t = next();
            if (open.test(t)) {
                depth++;
            } else if (close.test(t)) {
                depth--;
            }
        }
    }

    /**
     * Passes over tokens, and over bracketed groups whole, until a token that {@code stop} matches
     * outside brackets (not read) or the end.
     */
    public void skipUntilTopLevel(
            Predicate<? super T> stop, Predicate<? super T> open, Predicate<? super T> close) {
        while (!atEnd() && !peekIs(stop)) {
            if (accept(open)) {
                skipToClose(open, close);
            } else {
                pos++;
            }
        }
    }

    /** The texts of up to {@code count} tokens from the next one, separated by spaces, trimmed. */
    public String near(int count) {
        StringBuilder near = new StringBuilder();
        for (int i = pos; i < Math.min(tokens.size(), pos + count); i++) {
            near.append(text.apply(tokens.get(i))).append(' ');
        }
        return near.toString().trim();
    }
}
