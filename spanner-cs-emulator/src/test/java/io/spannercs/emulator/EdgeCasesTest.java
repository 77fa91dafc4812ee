package io.spannercs.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/** The EdgeCases value: parsing, printing, equality and the unknown-enums choice. */
class EdgeCasesTest {

    @Test
    void parsesAllNoneAndLists() {
        assertThat(EdgeCases.parse("all")).isEqualTo(EdgeCases.all());
        assertThat(EdgeCases.parse(" NONE ")).isEqualTo(EdgeCases.none());
        assertThat(EdgeCases.parse("stream-limit,unknown-types").asSet())
                .containsExactlyInAnyOrder(EdgeCase.STREAM_LIMIT, EdgeCase.UNKNOWN_TYPES);
        assertThat(EdgeCases.all().asSet()).isEqualTo(EnumSet.allOf(EdgeCase.class));
        assertThat(EdgeCases.none().isEmpty()).isTrue();
    }

    @Test
    void everyNameRoundTrips() {
        for (EdgeCase c : EdgeCase.values()) {
            assertThat(EdgeCase.fromCliName(c.cliName())).isEqualTo(c);
            assertThat(EdgeCases.parse(c.cliName())).isEqualTo(EdgeCases.of(c));
            assertThat(EdgeCases.parse(EdgeCases.of(c).toString())).isEqualTo(EdgeCases.of(c));
        }
        assertThat(EdgeCases.all().toString()).isEqualTo("all");
        assertThat(EdgeCases.none().toString()).isEqualTo("none");
        assertThat(EdgeCases.of(EdgeCase.MUTABLE_END_LIMIT, EdgeCase.SHARED_TIMESTAMPS).toString())
                .isEqualTo("shared-timestamps,mutable-end-limit");
    }

    @Test
    void badNamesListTheValidOnes() {
        assertThatThrownBy(() -> EdgeCases.parse("shared-timestamps,bogus"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown edge case 'bogus'")
                .hasMessageContaining("shared-timestamps, heartbeat-before-partition-records")
                .hasMessageContaining("mutable-end-limit");
        assertThatThrownBy(() -> EdgeCases.parse(""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("empty edge case name");
    }

    @Test
    void unknownEnumsNeedTheEdgeAndTheSeed() {
        assertThatThrownBy(() -> EdgeCases.all().sendsUnknownEnums("1"))
                .isInstanceOf(IllegalStateException.class);
        EdgeCases bound = EdgeCases.all().withSeed(42);
        EdgeCases off = EdgeCases.none().withSeed(42);
        int chosen = 0;
        for (int i = 1; i <= 4000; i++) {
            String id = Integer.toString(i);
            assertThat(bound.sendsUnknownEnums(id)).isEqualTo(EdgeCases.sendsUnknownEnums(42, id));
            assertThat(off.sendsUnknownEnums(id)).isFalse();
            if (bound.sendsUnknownEnums(id)) {
                chosen++;
            }
        }
        assertThat(chosen).isBetween(60, 140); // about 1 in 40
        assertThat(bound).isEqualTo(EdgeCases.all()).hasSameHashCodeAs(EdgeCases.all());
    }
}
