package io.spannercs.emulator.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class TokenCursorTest {
    private static TokenCursor<String> cursor(String... tokens) {
        return new TokenCursor<>(List.of(tokens), t -> t, "DDL");
    }

    @Test
    void readsPeeksAcceptsAndStepsBack() {
        TokenCursor<String> in = cursor("CREATE", "TABLE", "T");
        assertThat(in.peek()).isEqualTo("CREATE");
        assertThat(in.peek(2)).isEqualTo("T");
        assertThat(in.peek(3)).isNull();
        assertThat(in.accept("TABLE"::equals)).isFalse();
        assertThat(in.accept("create"::equalsIgnoreCase)).isTrue();
        assertThat(in.peekIs("TABLE"::equals)).isTrue();
        assertThat(in.next()).isEqualTo("TABLE");
        in.back();
        assertThat(in.position()).isEqualTo(1);
        in.skip();
        assertThat(in.next()).isEqualTo("T");
        assertThat(in.atEnd()).isTrue();
        assertThat(in.peek()).isNull();
        assertThat(in.peekIs(t -> true)).isFalse();
        in.reset(0);
        assertThat(in.peek()).isEqualTo("CREATE");
    }

    @Test
    void readingPastTheEndNamesTheSource() {
        TokenCursor<String> in = cursor("x");
        in.next();
        assertThatThrownBy(in::next).hasMessage("Unexpected end of DDL");
        assertThatThrownBy(in::skip).hasMessage("Unexpected end of DDL");
        assertThatThrownBy(() -> new TokenCursor<String>(List.of(), t -> t, "SQL").next())
                .hasMessage("Unexpected end of SQL");
    }

    @Test
    void skipsBracketedGroupsWhole() {
        TokenCursor<String> in = cursor("(", "a", "(", "b", ")", ")", "c");
        in.next();
        in.skipToClose("("::equals, ")"::equals);
        assertThat(in.next()).isEqualTo("c");

        TokenCursor<String> unclosed = cursor("(", "a", "(", "b", ")");
        unclosed.next();
        assertThatThrownBy(() -> unclosed.skipToClose("("::equals, ")"::equals))
                .hasMessage("Unexpected end of DDL");
    }

    @Test
    void skipsToAStopOutsideBrackets() {
        TokenCursor<String> in = cursor("INTERLEAVE", "(", ";", ")", "x", ";", "y");
        in.skipUntilTopLevel(";"::equals, "("::equals, ")"::equals);
        assertThat(in.position()).isEqualTo(5);
        in.next();
        in.skipUntilTopLevel(";"::equals, "("::equals, ")"::equals);
        assertThat(in.atEnd()).isTrue();
    }

    @Test
    void nearShowsTheNextTokens() {
        TokenCursor<String> in = cursor("a", "b", "c", "d");
        in.next();
        assertThat(in.near(2)).isEqualTo("b c");
        assertThat(in.near(10)).isEqualTo("b c d");
        in.reset(4);
        assertThat(in.near(3)).isEmpty();
    }
}
